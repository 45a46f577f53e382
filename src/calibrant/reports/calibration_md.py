"""The calibration report as Markdown: summary and gate first, then safety and the calibration
pairs, then each criterion in detail with its full list of disagreements. It reads the report's
model (calibrant.contracts.reports), as does the wording shared with the terminal
(calibration_text.py)."""

from __future__ import annotations

from typing import Any

from ..calibration.experts import experts_lines
from ..contracts.reports import CalibrationCriterion, CalibrationReport
from ..contracts.reports.calibration import PairSide
from .calibration_text import (
    ceiling_why,
    comparisons,
    coverage_text,
    fmt_stat,
    gate_detail_lines,
    gate_settings_text,
    noise_note,
    planning_line,
    rate_text,
    stat_name,
)
from .probe import robustness_lines

__all__ = ["calibration_markdown", "pair_cell", "as_report"]


def as_report(r: CalibrationReport | dict[str, Any]) -> CalibrationReport:
    """The report's model (validated from JSON data, stored reports upgraded)."""
    return r if isinstance(r, CalibrationReport) else CalibrationReport.model_validate(r)


def _md(text: object) -> str:
    """Text safe inside a Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def pair_cell(side: PairSide, criterion: str) -> tuple[str, str, bool]:
    """(experts' label, judge's label or outcome, whether they differ) for one pair side."""
    cons = str(side.consensus.get(criterion))
    judge = str(side.judge.get(criterion)) if side.judge else str(side.judge_outcome)
    return cons, judge, cons != judge


def _header(r: CalibrationReport) -> list[str]:
    j, s, note = r.judge, r.settings, noise_note(r)
    out = [
        "# Calibration report",
        "",
        f"**Judge release gate: {r.gate.judge}**",
        "",
    ]
    out += [f"> **Warning:** {w}\n" for w in r.warnings]
    return out + [
        f"- Gold: {r.n_items} items, split `{r.split}`, raters {', '.join(r.gold.raters)}",
        *([f"- Gold from: {r.gold.source}"] if r.gold.source else []),
        *([f"- Left aside: {r.gold.unlabeled_note}"] if r.gold.unlabeled_note else []),
        f"- Judge: `{j and j.model}` (`{j and j.hash}`)",
        f"- Rubric: `{r.rubric.id}` v{r.rubric.version} (`{r.rubric.hash}`)",
        f"- Bootstrap: {s.n_resamples} resamples, {s.bootstrap}, seed {s.seed}; gate "
        f"({gate_settings_text(s)}): {s.gate_rule or ''}",
        f"- Judge outcomes: {', '.join(f'{k} {v}' for k, v in r.judge_outcomes.items())}",
        *([f"- {note}"] if note else []),
    ]


def _summary(r: CalibrationReport) -> list[str]:
    out = [
        "",
        "## Communication criteria",
        "",
        "| criterion | statistic | judge vs consensus [95% CI] | experts' ceiling | coverage "
        "| gate | revise rubric? |",
        "|---|---|---|---|---|---|---|",
    ]
    for c in r.criteria:
        ceiling = fmt_stat(c.expert_ceiling, n=False, none=ceiling_why(c))
        out.append(
            f"| `{c.criterion}` | {stat_name(c.statistic)} | "
            f"{_md(fmt_stat(c.judge_vs_consensus))} | {_md(ceiling)} | {coverage_text(c)} | "
            f"**{c.gate.status}** | {'yes' if c.revise_rubric else 'no'} |"
        )
    return out


def _safety(r: CalibrationReport) -> list[str]:
    s = r.safety
    out = [
        "",
        "## Safety invariants (deterministic checker; never averaged into quality)",
        "",
        s.note,
        "",
        "| invariant | violated | pass | not applicable | harness error |",
        "|---|---|---|---|---|",
    ]
    return out + [
        f"| `{k}` | {rate_text(v)} | {v.pass_} | {v.not_applicable} | {v.harness_error} |"
        for k, v in s.invariants.items()
    ]


def _pairs(r: CalibrationReport) -> list[str]:
    if not r.calibration_pairs:
        return []
    crits = [c.criterion for c in r.criteria]
    out = [
        "",
        "## Calibration pairs",
        "",
        "Excellent text with a wrong transaction beside ordinary text with a correct operation: "
        "the experts' consensus and the judge's label on each criterion (**bold** where they "
        "differ).",
        "",
        "| case | item | role | agent / style | safety violations | "
        + " | ".join(f"`{c}`" for c in crits)
        + " |",
        "|---" * (5 + len(crits)) + "|",
    ]
    for p in r.calibration_pairs:
        for sd in p.sides:
            cells = []
            for c in crits:
                cons, judge, differ = pair_cell(sd, c)
                text = f"experts {cons}, judge {judge}"
                cells.append(f"**{text}**" if differ else text)
            out.append(
                f"| {p.case} | {sd.item} | {sd.role} | {sd.agent} / {sd.style} | "
                f"{', '.join(sd.safety_violations) or '—'} | " + " | ".join(cells) + " |"
            )
    return out


def _criterion(criterion: CalibrationCriterion) -> list[str]:
    c = criterion
    out = [
        "",
        f"### `{c.criterion}` — {c.title}",
        "",
        f"Gate **{c.gate.status}**: " + "; ".join(c.gate.reasons),
        "",
    ]
    details = gate_detail_lines(c)
    out += [f"- {line}" for line in details]
    out += [""] if details else []
    out += [f"> {line}\n" for line in [*c.notes, *planning_line(c)]]
    out += ["| comparison | statistic | value [95% CI] |", "|---|---|---|"]
    out += [
        f"| {what} | {name} | {_md(fmt_stat(s, none=ceiling_why(c)))} |"
        for what, name, s in comparisons(c)
    ]
    na = c.not_applicable
    if na:
        counts = ", ".join(f"{who} {k}" for who, k in na.n_items.items())
        out += [
            "",
            "`not_applicable` (its own category"
            + (
                (", outside the ordered levels" if c.level == "ordinal" else ", outside pass/fail")
                if na.outside_scale
                else ""
            )
            + f"): {counts} item(s); agreement on applicability "
            + _md(fmt_stat(na.agreement_on_applicability, none="undefined")),
        ]
    m = c.confusion
    out += [
        "",
        "| consensus \\ judge | " + " | ".join(m.columns_judge) + " |",
        "|---" * (len(m.columns_judge) + 1) + "|",
    ]
    out += [
        f"| {name} | " + " | ".join(map(str, row)) + " |"
        for name, row in zip(m.rows_consensus, m.counts, strict=True)
        if any(row)
    ]
    if not c.disagreements:
        return [*out, "", "No disagreement."]
    out += [
        "",
        f"{len(c.disagreements)} disagreement(s), unanimous experts and larger distances first:",
        "",
        "| item | case | consensus | experts | judge | judge's rationale | evidence cited |",
        "|---|---|---|---|---|---|---|",
    ]
    for x in c.disagreements:
        experts = ", ".join(f"{k}: {v}" for k, v in x.experts.items())
        out.append(
            f"| {x.item} | {x.case} | {x.consensus} | {experts} | "
            f"{x.judge} | {_md(x.rationale)} | {', '.join(x.evidence)} |"
        )
    return out


def calibration_markdown(report: CalibrationReport | dict[str, Any]) -> str:
    """The report (its model, or its JSON data) as Markdown."""
    r = as_report(report)
    out = _header(r) + _summary(r)
    if r.experts:  # the judge against each expert, and whether consensus echoes one
        lines = experts_lines(r.json_data())  # the experts' wording reads JSON data
        out += ["", "### The judge against each expert", ""] + [f"- {x}" for x in lines]
    out += _safety(r) + _pairs(r)
    robust = robustness_lines(r.robustness)
    if robust:
        out += ["", "## Judge robustness", ""] + [f"- {x.strip()}" for x in robust]
    out += ["", "## Criteria in detail: agreement, confusion and disagreements"]
    for c in r.criteria:
        out += _criterion(c)
    return "\n".join(out) + "\n"
