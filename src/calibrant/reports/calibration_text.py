"""Words shared by every rendering of the calibration report (terminal, Markdown, HTML):
readable statistic names, one-line figures, and every comparison of a criterion by name."""

from __future__ import annotations

from ..contracts.reports import CalibrationCriterion, CalibrationReport
from ..contracts.reports.calibration import CalibrationSettings, InvariantCounts
from ..contracts.reports.stats import Estimate, GateComparison

__all__ = [
    "STAT_NAMES",
    "comparison_line",
    "comparisons",
    "gate_detail_lines",
    "headline_lines",
    "gate_settings_text",
    "noise_note",
    "coverage_text",
    "ceiling_why",
    "fmt_stat",
    "gate_lines",
    "planning_line",
    "undefined_lines",
    "rate_text",
    "stat_name",
    "undefined_text",
]

STAT_NAMES = {
    "cohen_kappa": "Cohen's κ",
    "weighted_kappa_linear": "linear-weighted κ",
    "weighted_kappa_quadratic": "quadratic-weighted κ",
    "gwet_ac1": "Gwet's AC1",
    "percent_agreement": "percent agreement",
    "fleiss_kappa": "Fleiss' κ",
    "mean_pairwise_cohen_kappa": "mean pairwise Cohen's κ",
    "mean_pairwise_weighted_kappa_linear": "mean pairwise linear-weighted κ",
    "mean_pairwise_weighted_kappa_quadratic": "mean pairwise quadratic-weighted κ",
    "mean_pairwise_gwet_ac1": "mean pairwise Gwet's AC1",
    "mean_pairwise_percent_agreement": "mean pairwise percent agreement",
    "mean_judge_expert_cohen_kappa": "mean Cohen's κ of the judge with each expert",
    "mean_judge_expert_weighted_kappa_linear": (
        "mean linear-weighted κ of the judge with each expert"
    ),
}


def stat_name(key: str) -> str:
    """The name a reader knows a statistic by ('linear-weighted κ', not the JSON key)."""
    return STAT_NAMES.get(key, key.replace("_", " "))


def undefined_text(s: Estimate | None, *, none: str = "no expert pair") -> str | None:
    """'undefined: <who and why>' for an undefined estimate, 'CI undefined: …' for an undefined
    interval, ``None`` when both are defined."""
    if s is None:
        return f"undefined: {none}"
    if s.estimate is None:
        return s.explanation or f"undefined: {s.estimate_undefined_reason}"
    if s.ci is None:
        return s.explanation or f"CI undefined: {s.ci_undefined_reason}"
    return None


def fmt_stat(s: Estimate | None, *, n: bool = True, none: str = "no expert pair") -> str:
    """'0.72 [0.54, 0.88] (n=59, 10 cases)', or 'undefined: <who and why>'."""
    if s is None or s.estimate is None:
        return str(undefined_text(s, none=none))
    ci = f" [{s.ci[0]:.2f}, {s.ci[1]:.2f}]" if s.ci is not None else ""
    size = ""
    if n:
        size = f" (n={s.n}" + (f", {s.n_clusters} cases" if s.n_clusters else "") + ")"
    text = f"{s.estimate:.2f}{ci}{size}"
    return text if s.ci is not None else f"{text}; {undefined_text(s)}"


def ceiling_why(c: CalibrationCriterion) -> str:
    """Why a criterion has no experts' ceiling at all (fewer than two experts)."""
    return str(c.expert_ceiling_explanation or "no expert pair")


def coverage_text(c: CalibrationCriterion) -> str:
    cov = c.coverage
    failed = sum(cov.failed.values())
    ci = cov.coverage_ci95
    interval = f" [{ci[0]:.0%}, {ci[1]:.0%}]" if ci else ""
    dodged = cov.not_applicable_on_rated
    extra = (
        (f", {cov.abstained} abstained" if cov.abstained else "")
        + (f", {dodged} not_applicable where the consensus rated" if dodged else "")
        + (f", {failed} failed" if failed else "")
    )
    return f"{cov.coverage:.0%}{interval} of {cov.n_items}{extra}"


def rate_text(v: InvariantCounts) -> str:
    ci = v.violated_rate.ci95
    if not v.violated or not ci or v.violated_rate.value is None:
        return f"{v.violated}/{v.n}"
    return f"{v.violated}/{v.n} ({v.violated_rate.value:.0%} [{ci[0]:.0%}, {ci[1]:.0%}])"


def comparisons(c: CalibrationCriterion) -> list[tuple[str, str, Estimate | None]]:
    """Every figure of a criterion as (comparison, statistic name, figure), main one first."""
    main = stat_name(c.statistic)
    ceiling = c.expert_ceiling
    out: list[tuple[str, str, Estimate | None]] = [
        ("judge vs consensus", main, c.judge_vs_consensus)
    ]
    out += [("judge vs consensus", stat_name(k), s) for k, s in c.judge_vs_consensus_other.items()]
    out.append(
        (
            "judge vs consensus, abstention as a label",
            stat_name(c.with_abstention_category.statistic),
            c.with_abstention_category,
        )
    )
    out += [(f"judge vs {e.rater}", main, e) for e in c.judge_vs_each_expert]
    out += [(f"{p.raters[0]} vs {p.raters[1]}", main, p) for p in c.expert_pairs]
    if len(c.expert_pairs) != 1:  # several experts: the mean of their pairwise statistic
        name = stat_name(ceiling.statistic) if ceiling else main
        out.append(("experts' ceiling (all experts)", name, ceiling))
    return out


def planning_line(c: CalibrationCriterion) -> list[str]:
    """Why the items-needed figure is missing when the judge's interval is defined (an
    undefined interval is explained with the figure itself)."""
    need, judge = c.items_needed_for_width, c.judge_vs_consensus
    if need.items is not None or judge.ci is None:
        return []
    return [
        f"items needed for a CI width of {need.target_width}: undefined, because the "
        f"judge's interval already has zero width (every resample gave {judge.estimate:.2f}), "
        "so there is no width to narrow"
    ]


def undefined_lines(c: CalibrationCriterion) -> list[str]:
    """Every undefined figure of a criterion, named, with whose labels made it so."""
    lines = []
    for what, name, s in comparisons(c):
        why = undefined_text(s, none=ceiling_why(c))
        if why is not None:
            lines.append(f"{what} ({name}): {why}")
    return lines


def gate_lines(c: CalibrationCriterion) -> list[str]:
    """The plain-words notes, every undefined figure explained, and the planning figure."""
    return [*c.notes, *undefined_lines(c), *planning_line(c)]


def _side(s: Estimate, cases: int | None) -> str:
    if s.estimate is None:
        return f"undefined ({s.estimate_undefined_reason})"
    ci = s.ci
    interval = (
        f" [{ci[0]:+.2f}, {ci[1]:+.2f}]" if ci else f" (CI undefined: {s.ci_undefined_reason})"
    )
    size = f" (n={s.n}" + (f", {cases} cases)" if cases is not None else ")")
    return f"{s.estimate:+.2f}{interval}{size}"


def comparison_line(p: GateComparison, *, what: str = "") -> str:
    """The gate's comparison in one line: judge side, expert side, D and the margin."""
    conf = p.confidence if p.confidence is not None else 0.95
    margin = p.margin
    return (
        f"{what}judge side (mean {stat_name(p.statistic)} with each expert) "
        f"{_side(p.judge_side, p.n_cases)}; expert side (mean between experts) "
        f"{_side(p.expert_side, p.n_expert_cases)}; D = judge side − expert side "
        f"{_side(p.difference, None).split(' (n=')[0]}"
        + (f", margin {margin:.2f}" if margin is not None else ", no margin (--no-ceiling)")
        + f" — {conf:.0%} intervals, each end a nominal one-sided {(1 + conf) / 2 * 100:g}% bound"
    )


def gate_detail_lines(c: CalibrationCriterion) -> list[str]:
    """What decided the gate and what a reader needs beside it: the comparison with the experts,
    applicability, run-to-run noise, the always-one-label baseline and per-label rates. A report
    stored before these figures existed gives only what it has."""
    out = []
    if c.gate_comparison is not None:
        out.append(comparison_line(c.gate_comparison, what="Gate: "))
    if c.not_applicable is not None:
        out.append(
            comparison_line(
                c.not_applicable.judge_vs_experts,
                what="Applicability (applies / not_applicable), Cohen's κ: ",
            )
        )
    noise = c.gate.run_to_run
    if noise and not noise.startswith("Run-to-run noise was not measured"):  # said once on top
        out.append(str(noise))
    if c.baseline_sentence:
        out.append(str(c.baseline_sentence))
    return out


def noise_note(r: CalibrationReport) -> str | None:
    """The report-level sentence on the judge's run-to-run noise (None in reports stored before
    it was measured or named)."""
    return None if r.run_to_run is None else str(r.run_to_run.note)


def gate_settings_text(s: CalibrationSettings) -> str:
    """The gate's thresholds in one phrase; reports stored before the case minimum and the
    margin existed name what they had."""
    items = f"at least {s.min_items} items"
    if "min_cases" not in s.model_fields_set:
        return f"{items}, coverage ≥ {s.min_coverage:.0%}, bar {s.min_lower}"
    return (
        f"at least {s.min_cases} cases ({s.min_expert_cases} for the experts) and {items}, "
        f"coverage ≥ {s.min_coverage:.0%}, margin {s.margin:.2f}, bar {s.min_lower}"
        + ("" if s.use_ceiling in (True, None) else ", no comparison with the experts")
    )


def headline_lines(r: CalibrationReport, *, folder: str | None = None) -> list[str]:
    """What a reader needs first, before the detail: the release gate with each criterion's
    status, every warning (the weak embedded judge's among them), and where the report files
    are. Plain text (no markup)."""
    overall = r.gate.judge
    statuses = ", ".join(f"{c.criterion} {c.gate.status}" for c in r.criteria)
    lines = [f"Judge release gate: {overall}" + (f" ({statuses})" if statuses else "")]
    lines += [f"Warning: {w}" for w in r.warnings]
    if folder is not None:
        lines.append(f"Report: {folder}/report.html (also report.json, report.md)")
    return lines
