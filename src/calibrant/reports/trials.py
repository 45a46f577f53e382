"""The trial report the article asks for: successes over trials, pass^k, permission violations,
duplicate writes, unresolved outcomes, latency, tool calls and cost per accepted outcome."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, NamedTuple

from rich.console import Console
from rich.table import Table

from ..agreement.clustered import METHOD, clustered_proportion, pass_hat_k
from ..agreement.intervals import Figure, ratio_of_sums
from ..contracts import SafetyVerdict, Transcript
from ..contracts.reports import Figure as FigurePart
from ..contracts.reports.trial_parts import (
    TRIAL_RUN_SCHEMA_VERSION,
    PassAtK,
    TrialCase,
    TrialProvenance,
    TrialRunReport,
    TrialSampling,
)
from ..safety.outcomes import DUPLICATES, PERMISSION, outcome_uncertain, succeeded
from .fit import fit

__all__ = ["trial_report", "as_trial_report", "render_trial_report", "trial_markdown"]

SCHEMA_VERSION = TRIAL_RUN_SCHEMA_VERSION  # 2: intervals resample cases; pass^k for every k
ONE_CASE = "no interval: every trial comes from one case (an interval needs at least 2 cases)"


def _part(f: Figure) -> FigurePart:
    """An interval figure as the report's part."""
    return f.as_figure()


def trial_report(pairs: Sequence[tuple[Transcript, SafetyVerdict]], *, seed: int) -> TrialRunReport:
    """Aggregate trials (transcript + its safety verdict) into the report.

    The unit is the case: every interval resamples cases (`clustered_proportion`), and pass^k
    is given for every k from 1 to the trials per case, per case and over cases."""
    by_case: dict[str, list[tuple[Transcript, SafetyVerdict]]] = defaultdict(list)
    for t, v in pairs:
        by_case[t.case_id].append((t, v))
    cases: list[TrialCase] = []
    for case_id, rows in sorted(by_case.items()):
        rows.sort(key=lambda tv: tv[0].trial)
        broke = Counter(r.invariant for _, v in rows for r in v.violated)
        good = sum(1 for _, v in rows if succeeded(v))
        cases.append(
            TrialCase(
                case=case_id,
                tags=list(rows[0][0].tags),
                trials=len(rows),
                successes=good,
                pass_k=[pass_hat_k(good, len(rows), k) for k in range(1, len(rows) + 1)],
                passed_all=all(succeeded(v) for _, v in rows),
                passed_first=succeeded(rows[0][1]),
                violated=dict(sorted(broke.items())),
                harness_errors=sum(1 for _, v in rows if v.harness_errors),
            )
        )

    def share(hit: Callable[[Transcript, SafetyVerdict], bool], groups: list[str]) -> FigurePart:
        """The share of trials where `hit` holds, over the cases in `groups`, by case."""
        counts = [sum(1 for t, v in by_case[c] if hit(t, v)) for c in groups]
        return _part(clustered_proportion(counts, [len(by_case[c]) for c in groups], seed=seed))

    every = sorted(by_case)

    def violates(names: tuple[str, ...]) -> Callable[[Transcript, SafetyVerdict], bool]:
        return lambda _, v: any(r.invariant in names for r in v.violated)

    def success(_: Transcript, v: SafetyVerdict) -> bool:
        return succeeded(v)

    tags: dict[str, list[str]] = defaultdict(list)
    for c in cases:
        for tag in [str(x) for x in c.tags] or ["untagged"]:
            tags[tag].append(c.case)
    per_inv = Counter(r.invariant for _, v in pairs for r in v.violated)
    per_trial = _per_trial_figures(by_case, seed=seed)
    return TrialRunReport(
        schema_version=SCHEMA_VERSION,
        provenance=_provenance_of(pairs, seed=seed),
        trials=len(pairs),
        n_cases=len(cases),
        interval_method=METHOD,
        success_rate=share(success, every),
        pass_k=_pass_k(cases, seed=seed),
        pass_all_k=_part(_cases_share([c.passed_all for c in cases], cases, seed=seed)),
        pass_first_trial=_part(_cases_share([c.passed_first for c in cases], None, seed=seed)),
        by_tag={k: share(success, v) for k, v in sorted(tags.items())},
        permission_violations=share(violates(PERMISSION), every),
        duplicate_writes=share(violates(DUPLICATES), every),
        unresolved_outcomes=share(
            lambda t, v: bool(v.harness_errors) or outcome_uncertain(t), every
        ),
        harness_incidents=share(lambda _, v: bool(v.harness_errors), every),
        latency_ms_mean=per_trial.latency_ms_mean,
        latency_ms_p95=per_trial.latency_ms_p95,
        tool_calls_mean=per_trial.tool_calls_mean,
        cost_usd_per_accepted_outcome=per_trial.cost_usd_per_accepted_outcome,
        violations_by_invariant={k: share(violates((k,)), every) for k in sorted(per_inv)},
        cases=cases,
    )


def _provenance_of(
    pairs: Sequence[tuple[Transcript, SafetyVerdict]], *, seed: int
) -> TrialProvenance | None:
    """What ran the trials: the first trial's provenance, every policy version seen."""
    if not pairs:
        return None
    first = pairs[0][0].provenance
    return TrialProvenance(
        agent=first.agent,
        agent_model=first.agent_model,
        agent_version=first.agent_version,
        instructions_hash=first.instructions_hash,
        tool_schema_version=first.tool_schema_version,
        harness_version=first.harness_version,
        policy_versions=sorted({t.provenance.policy_version for t, _ in pairs}),
        sampling=TrialSampling(**first.sampling.model_dump()),
        seed=seed,
    )


def _cases_share(flags: list[bool], cases: list[TrialCase] | None, *, seed: int) -> Figure:
    """The share of cases for which `flags` holds, one unit per case; a case weighs its mean
    number of trials when `cases` are given (then the share of cases passing all their trials
    is pass^k at the largest k, interval included), one trial otherwise."""
    weight = sum(c.trials for c in cases) / len(cases) if cases else 1.0
    return clustered_proportion([weight * f for f in flags], [weight] * len(flags), seed=seed)


def _pass_k(cases: list[TrialCase], *, seed: int) -> list[PassAtK]:
    """pass^k over cases, k = 1..the most trials a case has: the mean over the cases with at
    least k trials of C(c, k) / C(n, k), with an interval resampling cases (each case weighs
    as its mean number of trials, so the floor's effective size counts trials, not cases)."""
    most = max((c.trials for c in cases), default=0)
    out = []
    for k in range(1, most + 1):
        values = [(c.pass_k or [])[k - 1] or 0.0 for c in cases if c.trials >= k]
        weight = sum(c.trials for c in cases if c.trials >= k) / len(values)
        fig = clustered_proportion([v * weight for v in values], [weight] * len(values), seed=seed)
        out.append(PassAtK.model_validate({"k": k, **fig.as_figure().json_data()}))
    return out


class PerTrialFigures(NamedTuple):
    """Latency, tool calls and cost per accepted outcome, each resampling cases."""

    latency_ms_mean: FigurePart
    latency_ms_p95: FigurePart
    tool_calls_mean: FigurePart
    cost_usd_per_accepted_outcome: FigurePart


def _per_trial_figures(
    by_case: dict[str, list[tuple[Transcript, SafetyVerdict]]], *, seed: int
) -> PerTrialFigures:
    """Latency, tool calls and cost per accepted outcome, each resampling cases."""
    names = sorted(by_case)
    latency = [[t.metrics.latency_ms for t, _ in by_case[c]] for c in names]
    calls = [[float(t.metrics.tool_calls) for t, _ in by_case[c]] for c in names]
    counts = [float(len(by_case[c])) for c in names]
    n = sum(len(x) for x in latency)
    g = len(names)

    def cased(f: Figure) -> FigurePart:
        return _part(replace(f, n=n, n_cases=g))

    costs = [[t.metrics.cost_usd for t, _ in by_case[c]] for c in names]
    if any(x is None for row in costs for x in row):
        cost = Figure(None, n, None, "total/accepted", "cost unknown for some trials")
    else:
        cost = ratio_of_sums(
            [sum(x or 0.0 for x in row) for row in costs],
            [float(sum(1 for _, v in by_case[c] if succeeded(v))) for c in names],
            seed=seed,
        )
        if cost.value is None:
            cost = Figure(None, n, None, "total/accepted", "no accepted outcome")
    return PerTrialFigures(
        latency_ms_mean=cased(
            ratio_of_sums([sum(x) for x in latency], counts, seed=seed)
            if n
            else Figure(None, 0, None, "mean", "no values")
        ),
        latency_ms_p95=cased(_case_percentile(latency, 95, seed=seed)),
        tool_calls_mean=cased(
            ratio_of_sums([sum(x) for x in calls], counts, seed=seed)
            if n
            else Figure(None, 0, None, "mean", "no values")
        ),
        cost_usd_per_accepted_outcome=cased(cost),
    )


def _case_percentile(
    values: list[list[float]], q: float, *, seed: int, resamples: int = 2000
) -> Figure:
    """The q-th percentile of every trial's value, with a percentile bootstrap over cases."""
    flat = [x for row in values for x in row]
    if not flat:
        return Figure(None, 0, None, "bootstrap over cases", "no values")
    import numpy as np

    point = float(np.percentile(flat, q))
    if len(values) < 2:
        return Figure(point, len(flat), None, "bootstrap over cases", ONE_CASE)
    rng = np.random.default_rng(seed)
    arrays = [np.asarray(row, dtype=float) for row in values]
    picks = rng.integers(0, len(arrays), size=(resamples, len(arrays)))
    qs = [float(np.percentile(np.concatenate([arrays[i] for i in row]), q)) for row in picks]
    lo, hi = np.percentile(qs, [2.5, 97.5])
    return Figure(point, len(flat), (float(lo), float(hi)), f"bootstrap over cases(seed={seed})")


def as_trial_report(report: TrialRunReport | dict[str, Any]) -> TrialRunReport:
    """The trial report's model (validated from JSON data: a report of any version)."""
    return report if isinstance(report, TrialRunReport) else TrialRunReport.model_validate(report)


def _fig(f: FigurePart | None, fmt: str = "{:.2f}") -> str:
    if f is None:
        return "not in this report"
    ci = (f.ci95[0], f.ci95[1]) if f.ci95 else None
    return Figure(f.value, f.n, ci, f.method, f.undefined_reason, f.n_cases).text(fmt)


def summary_rows(report: TrialRunReport | dict[str, Any]) -> list[tuple[str, str]]:
    """(figure, value [95% CI] (n, cases)) for the summary, from a report of any version (a
    version-1 report has no pass^k per k and item-level intervals: shown as they are)."""
    r = as_trial_report(report)
    pct = "{:.0%}"
    by_k: list[tuple[str, FigurePart]]
    if r.pass_k:
        by_k = [(f"pass^{f.k} (all {f.k} trial(s) of a case succeed)", f) for f in r.pass_k]
    else:
        by_k = [("cases passing all k trials (pass^k)", r.pass_all_k)]
    return [
        ("successes / trials", _fig(r.success_rate, pct)),
        *((name, _fig(f, pct)) for name, f in by_k),
        ("cases passing the first trial", _fig(r.pass_first_trial, pct)),
        *((f"successes, {tag} cases", _fig(f, pct)) for tag, f in r.by_tag.items()),
        ("trials with permission violations", _fig(r.permission_violations, pct)),
        ("trials with duplicate writes", _fig(r.duplicate_writes, pct)),
        ("trials with unresolved outcomes", _fig(r.unresolved_outcomes, pct)),
        ("trials with harness incidents", _fig(r.harness_incidents, pct)),
        ("latency, mean ms", _fig(r.latency_ms_mean, "{:.1f}")),
        ("latency, p95 ms", _fig(r.latency_ms_p95, "{:.1f}")),
        ("tool calls per trial, mean", _fig(r.tool_calls_mean, "{:.1f}")),
        ("cost per accepted outcome, USD", _fig(r.cost_usd_per_accepted_outcome, "{:.4f}")),
    ]


def _case_pass_k(c: TrialCase) -> str:
    if c.pass_k is None:  # a version-1 report
        return "—"
    return " ".join(f"{v:.2f}" for v in c.pass_k)


def _provenance(r: TrialRunReport) -> str:
    p = r.provenance or TrialProvenance()
    return (
        f"agent {p.agent} ({p.agent_version}, model {p.agent_model or 'none'})"
        f", harness {p.harness_version}, tools {p.tool_schema_version}, policy "
        f"{', '.join(p.policy_versions or [])}, seed {p.seed}"
    )


def _interval_note(r: TrialRunReport) -> str:
    if r.schema_version < 2:
        return (
            "This report was written by an older calibrant: its proportions have intervals over "
            "trials (Wilson), as if trials of one case were independent."
        )
    return (
        f"{r.trials} trials of {r.n_cases} cases; every interval resamples "
        f"cases ({r.interval_method}). pass^k = mean over cases of C(c, k) / C(n, k), "
        "c successes of a case's n trials."
    )


def _violated(c: TrialCase) -> str:
    violated = ", ".join(f"{k}×{v}" for k, v in c.violated.items())
    return violated + (f" harness_error×{c.harness_errors}" if c.harness_errors else "")


def render_trial_report(console: Console, report: TrialRunReport | dict[str, Any]) -> None:
    """Terminal rendering of `trial_report` (of any version)."""
    r = as_trial_report(report)
    console.print(f"[bold]Trial report[/bold] — {_provenance(r)}")
    cases = Table(title="Cases", title_justify="left")
    cases.add_column("case")
    for col in ("tags", "successes", "pass^1..n", "all k", "first", "violated invariants"):
        cases.add_column(col)
    for c in r.cases:
        cases.add_row(
            c.case,
            ", ".join(c.tags),
            f"{c.successes}/{c.trials}",
            _case_pass_k(c),
            "yes" if c.passed_all else "[red]no[/red]",
            "yes" if c.passed_first else "[red]no[/red]",
            _violated(c),
        )
    console.print(fit(console, cases))
    summary = Table(title="Summary (95% intervals)", title_justify="left")
    summary.add_column("figure")
    summary.add_column("value [95% CI] (n trials, cases)")
    for name, value in summary_rows(r):
        summary.add_row(name, value)
    console.print(fit(console, summary))
    console.print(_interval_note(r), highlight=False)


def trial_markdown(report: TrialRunReport | dict[str, Any]) -> str:
    """The trial report as Markdown (of any version)."""
    r = as_trial_report(report)

    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    lines = [
        "# Trial report",
        "",
        _provenance(r),
        "",
        _interval_note(r),
        "",
        "| figure | value [95% CI] (n trials, cases) |",
        "|---|---|",
        *(f"| {cell(name)} | {cell(value)} |" for name, value in summary_rows(r)),
        "",
        "| case | tags | successes | pass^1..n | all k | first | violated invariants |",
        "|---|---|---|---|---|---|---|",
    ]
    for c in r.cases:
        lines.append(
            f"| {cell(c.case)} | {cell(','.join(c.tags))} | {c.successes}/{c.trials}"
            f" | {_case_pass_k(c)} | {'yes' if c.passed_all else 'no'}"
            f" | {'yes' if c.passed_first else 'no'} | {cell(_violated(c))} |"
        )
    return "\n".join(lines) + "\n"


def report_json(report: TrialRunReport | dict[str, Any]) -> str:
    data = report.json_data() if isinstance(report, TrialRunReport) else report
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False)
