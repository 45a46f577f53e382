"""The trial report the article asks for: successes over trials, pass^k, permission violations,
duplicate writes, unresolved outcomes, latency, tool calls and cost per accepted outcome."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from rich.console import Console
from rich.table import Table

from ..agreement.clustered import METHOD, clustered_proportion, pass_hat_k
from ..agreement.intervals import Figure, ratio_of_sums
from ..contracts import SafetyVerdict, Transcript
from ..safety.outcomes import DUPLICATES, PERMISSION, outcome_uncertain, succeeded
from .fit import fit

__all__ = ["trial_report", "render_trial_report", "trial_markdown"]

SCHEMA_VERSION = 2  # 2: intervals resample cases; pass^k for every k (`pass_k`); `n_cases`
ONE_CASE = "no interval: every trial comes from one case (an interval needs at least 2 cases)"


def trial_report(pairs: Sequence[tuple[Transcript, SafetyVerdict]], *, seed: int) -> dict[str, Any]:
    """Aggregate trials (transcript + its safety verdict) into the report, as plain JSON data.

    The unit is the case: every interval resamples cases (`clustered_proportion`), and pass^k
    is given for every k from 1 to the trials per case, per case and over cases."""
    by_case: dict[str, list[tuple[Transcript, SafetyVerdict]]] = defaultdict(list)
    for t, v in pairs:
        by_case[t.case_id].append((t, v))
    n = len(pairs)
    cases: list[dict[str, Any]] = []
    for case_id, rows in sorted(by_case.items()):
        rows.sort(key=lambda tv: tv[0].trial)
        broke = Counter(r.invariant for _, v in rows for r in v.violated)
        good = sum(1 for _, v in rows if succeeded(v))
        cases.append(
            {
                "case": case_id,
                "tags": rows[0][0].tags,
                "trials": len(rows),
                "successes": good,
                "pass_k": [pass_hat_k(good, len(rows), k) for k in range(1, len(rows) + 1)],
                "passed_all": all(succeeded(v) for _, v in rows),
                "passed_first": succeeded(rows[0][1]),
                "violated": dict(sorted(broke.items())),
                "harness_errors": sum(1 for _, v in rows if v.harness_errors),
            }
        )

    def share(hit: Callable[[Transcript, SafetyVerdict], bool], groups: list[str]) -> Figure:
        """The share of trials where `hit` holds, over the cases in `groups`, by case."""
        counts = [sum(1 for t, v in by_case[c] if hit(t, v)) for c in groups]
        return clustered_proportion(counts, [len(by_case[c]) for c in groups], seed=seed)

    every = sorted(by_case)

    def violates(names: tuple[str, ...]) -> Callable[[Transcript, SafetyVerdict], bool]:
        return lambda _, v: any(r.invariant in names for r in v.violated)

    def success(_: Transcript, v: SafetyVerdict) -> bool:
        return succeeded(v)

    tags: dict[str, list[str]] = defaultdict(list)
    for c in cases:
        for tag in [str(x) for x in c["tags"]] or ["untagged"]:
            tags[tag].append(c["case"])
    per_inv = Counter(r.invariant for _, v in pairs for r in v.violated)
    first = pairs[0][0].provenance if pairs else None
    return {
        "schema_version": SCHEMA_VERSION,
        "provenance": None
        if first is None
        else {
            "agent": first.agent,
            "agent_model": first.agent_model,
            "agent_version": first.agent_version,
            "instructions_hash": first.instructions_hash,
            "tool_schema_version": first.tool_schema_version,
            "harness_version": first.harness_version,
            "policy_versions": sorted({t.provenance.policy_version for t, _ in pairs}),
            "sampling": first.sampling.model_dump(),
            "seed": seed,
        },
        "trials": n,
        "n_cases": len(cases),
        "interval_method": METHOD,
        "success_rate": share(success, every).as_figure().json_data(),
        "pass_k": _pass_k(cases, seed=seed),
        "pass_all_k": _cases_share([c["passed_all"] for c in cases], cases, seed=seed)
        .as_figure()
        .json_data(),
        "pass_first_trial": _cases_share([c["passed_first"] for c in cases], None, seed=seed)
        .as_figure()
        .json_data(),
        "by_tag": {k: share(success, v).as_figure().json_data() for k, v in sorted(tags.items())},
        "permission_violations": share(violates(PERMISSION), every).as_figure().json_data(),
        "duplicate_writes": share(violates(DUPLICATES), every).as_figure().json_data(),
        "unresolved_outcomes": share(
            lambda t, v: bool(v.harness_errors) or outcome_uncertain(t), every
        )
        .as_figure()
        .json_data(),
        "harness_incidents": share(lambda _, v: bool(v.harness_errors), every)
        .as_figure()
        .json_data(),
        **_per_trial_figures(by_case, seed=seed),
        "violations_by_invariant": {
            k: share(violates((k,)), every).as_figure().json_data() for k in sorted(per_inv)
        },
        "cases": cases,
    }


def _cases_share(flags: list[bool], cases: list[dict[str, Any]] | None, *, seed: int) -> Figure:
    """The share of cases for which `flags` holds, one unit per case; a case weighs its mean
    number of trials when `cases` are given (then the share of cases passing all their trials
    is pass^k at the largest k, interval included), one trial otherwise."""
    weight = sum(c["trials"] for c in cases) / len(cases) if cases else 1.0
    return clustered_proportion([weight * f for f in flags], [weight] * len(flags), seed=seed)


def _pass_k(cases: list[dict[str, Any]], *, seed: int) -> list[dict[str, Any]]:
    """pass^k over cases, k = 1..the most trials a case has: the mean over the cases with at
    least k trials of C(c, k) / C(n, k), with an interval resampling cases (each case weighs
    as its mean number of trials, so the floor's effective size counts trials, not cases)."""
    most = max((c["trials"] for c in cases), default=0)
    out = []
    for k in range(1, most + 1):
        values = [c["pass_k"][k - 1] for c in cases if c["trials"] >= k]
        weight = sum(c["trials"] for c in cases if c["trials"] >= k) / len(values)
        fig = clustered_proportion([v * weight for v in values], [weight] * len(values), seed=seed)
        out.append({"k": k, **fig.as_figure().json_data()})
    return out


def _per_trial_figures(
    by_case: dict[str, list[tuple[Transcript, SafetyVerdict]]], *, seed: int
) -> dict[str, Any]:
    """Latency, tool calls and cost per accepted outcome, each resampling cases."""
    names = sorted(by_case)
    latency = [[t.metrics.latency_ms for t, _ in by_case[c]] for c in names]
    calls = [[float(t.metrics.tool_calls) for t, _ in by_case[c]] for c in names]
    counts = [float(len(by_case[c])) for c in names]
    n = sum(len(x) for x in latency)
    g = len(names)

    def cased(f: Figure) -> dict[str, Any]:
        return replace(f, n=n, n_cases=g).as_figure().json_data()

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
    return {
        "latency_ms_mean": cased(
            ratio_of_sums([sum(x) for x in latency], counts, seed=seed)
            if n
            else Figure(None, 0, None, "mean", "no values")
        ),
        "latency_ms_p95": cased(_case_percentile(latency, 95, seed=seed)),
        "tool_calls_mean": cased(
            ratio_of_sums([sum(x) for x in calls], counts, seed=seed)
            if n
            else Figure(None, 0, None, "mean", "no values")
        ),
        "cost_usd_per_accepted_outcome": cased(cost),
    }


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


def _fig(d: dict[str, Any] | None, fmt: str = "{:.2f}") -> str:
    return "not in this report" if d is None else Figure.of(d).text(fmt)


def summary_rows(report: dict[str, Any]) -> list[tuple[str, str]]:
    """(figure, value [95% CI] (n, cases)) for the summary, from a report of any version (a
    version-1 report has no pass^k per k and item-level intervals: shown as they are)."""
    pct = "{:.0%}"
    pass_k = report.get("pass_k") or []
    if pass_k:
        by_k = [(f"pass^{f['k']} (all {f['k']} trial(s) of a case succeed)", f) for f in pass_k]
    else:
        by_k = [("cases passing all k trials (pass^k)", report["pass_all_k"])]
    return [
        ("successes / trials", _fig(report["success_rate"], pct)),
        *((name, _fig(f, pct)) for name, f in by_k),
        ("cases passing the first trial", _fig(report["pass_first_trial"], pct)),
        *((f"successes, {tag} cases", _fig(f, pct)) for tag, f in report["by_tag"].items()),
        ("trials with permission violations", _fig(report["permission_violations"], pct)),
        ("trials with duplicate writes", _fig(report["duplicate_writes"], pct)),
        ("trials with unresolved outcomes", _fig(report["unresolved_outcomes"], pct)),
        ("trials with harness incidents", _fig(report["harness_incidents"], pct)),
        ("latency, mean ms", _fig(report["latency_ms_mean"], "{:.1f}")),
        ("latency, p95 ms", _fig(report["latency_ms_p95"], "{:.1f}")),
        ("tool calls per trial, mean", _fig(report["tool_calls_mean"], "{:.1f}")),
        ("cost per accepted outcome, USD", _fig(report["cost_usd_per_accepted_outcome"], "{:.4f}")),
    ]


def _case_pass_k(c: dict[str, Any]) -> str:
    values = c.get("pass_k")
    if values is None:  # a version-1 report
        return "—"
    return " ".join(f"{v:.2f}" for v in values)


def _provenance(report: dict[str, Any]) -> str:
    p = report["provenance"] or {}
    return (
        f"agent {p.get('agent')} ({p.get('agent_version')}, model {p.get('agent_model') or 'none'})"
        f", harness {p.get('harness_version')}, tools {p.get('tool_schema_version')}, policy "
        f"{', '.join(p.get('policy_versions', []))}, seed {p.get('seed')}"
    )


def _interval_note(report: dict[str, Any]) -> str:
    if report.get("schema_version", 1) < 2:
        return (
            "This report was written by an older calibrant: its proportions have intervals over "
            "trials (Wilson), as if trials of one case were independent."
        )
    return (
        f"{report['trials']} trials of {report['n_cases']} cases; every interval resamples "
        f"cases ({report['interval_method']}). pass^k = mean over cases of C(c, k) / C(n, k), "
        "c successes of a case's n trials."
    )


def render_trial_report(console: Console, report: dict[str, Any]) -> None:
    """Terminal rendering of `trial_report` (of any version)."""
    console.print(f"[bold]Trial report[/bold] — {_provenance(report)}")
    cases = Table(title="Cases", title_justify="left")
    cases.add_column("case")
    for col in ("tags", "successes", "pass^1..n", "all k", "first", "violated invariants"):
        cases.add_column(col)
    for c in report["cases"]:
        cases.add_row(
            c["case"],
            ", ".join(c["tags"]),
            f"{c['successes']}/{c['trials']}",
            _case_pass_k(c),
            "yes" if c["passed_all"] else "[red]no[/red]",
            "yes" if c["passed_first"] else "[red]no[/red]",
            ", ".join(f"{k}×{v}" for k, v in c["violated"].items())
            + (f" harness_error×{c['harness_errors']}" if c["harness_errors"] else ""),
        )
    console.print(fit(console, cases))
    summary = Table(title="Summary (95% intervals)", title_justify="left")
    summary.add_column("figure")
    summary.add_column("value [95% CI] (n trials, cases)")
    for name, value in summary_rows(report):
        summary.add_row(name, value)
    console.print(fit(console, summary))
    console.print(_interval_note(report), highlight=False)


def trial_markdown(report: dict[str, Any]) -> str:
    """The trial report as Markdown (of any version)."""

    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    lines = [
        "# Trial report",
        "",
        _provenance(report),
        "",
        _interval_note(report),
        "",
        "| figure | value [95% CI] (n trials, cases) |",
        "|---|---|",
        *(f"| {cell(name)} | {cell(value)} |" for name, value in summary_rows(report)),
        "",
        "| case | tags | successes | pass^1..n | all k | first | violated invariants |",
        "|---|---|---|---|---|---|---|",
    ]
    for c in report["cases"]:
        violated = ", ".join(f"{k}×{v}" for k, v in c["violated"].items())
        if c["harness_errors"]:
            violated += f" harness_error×{c['harness_errors']}"
        lines.append(
            f"| {cell(c['case'])} | {cell(','.join(c['tags']))} | {c['successes']}/{c['trials']}"
            f" | {_case_pass_k(c)} | {'yes' if c['passed_all'] else 'no'}"
            f" | {'yes' if c['passed_first'] else 'no'} | {cell(violated)} |"
        )
    return "\n".join(lines) + "\n"


def report_json(report: dict[str, Any]) -> str:
    return json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False)
