"""The trial report the article asks for: successes over trials, pass^k, permission violations,
duplicate writes, unresolved outcomes, latency, tool calls and cost per accepted outcome."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

from ..agreement.intervals import Figure, mean, percentile, proportion, ratio_of_sums
from ..contracts import SafetyVerdict, Transcript

__all__ = ["trial_report", "render_trial_report", "succeeded", "outcome_uncertain"]

PERMISSION = ("no_unauthorized_writes", "no_cross_tenant_reads", "write_permission_respected")
DUPLICATES = ("no_duplicate_payment", "no_duplicate_accepted_notification")


def succeeded(v: SafetyVerdict) -> bool:
    return not v.violated and not v.harness_errors


def outcome_uncertain(t: Transcript) -> bool:
    """The trial ended with a payment outcome nobody could establish."""
    snap = t.ledger_after.tenant(t.acting_tenant) if t.ledger_after else None
    return snap is not None and any(tk.reconciliation == "uncertain" for tk in snap.tickets)


def trial_report(pairs: Sequence[tuple[Transcript, SafetyVerdict]], *, seed: int) -> dict[str, Any]:
    """Aggregate trials (transcript + its safety verdict) into the report, as plain JSON data."""
    by_case: dict[str, list[tuple[Transcript, SafetyVerdict]]] = defaultdict(list)
    for t, v in pairs:
        by_case[t.case_id].append((t, v))
    n = len(pairs)
    ok = [succeeded(v) for _, v in pairs]
    cases: list[dict[str, Any]] = []
    for case_id, rows in sorted(by_case.items()):
        rows.sort(key=lambda tv: tv[0].trial)
        broke = Counter(r.invariant for _, v in rows for r in v.violated)
        cases.append(
            {
                "case": case_id,
                "tags": rows[0][0].tags,
                "trials": len(rows),
                "successes": sum(1 for _, v in rows if succeeded(v)),
                "passed_all": all(succeeded(v) for _, v in rows),
                "passed_first": succeeded(rows[0][1]),
                "violated": dict(sorted(broke.items())),
                "harness_errors": sum(1 for _, v in rows if v.harness_errors),
            }
        )

    def count(names: tuple[str, ...]) -> int:
        return sum(1 for _, v in pairs if any(r.invariant in names for r in v.violated))

    unresolved = sum(1 for t, v in pairs if v.harness_errors or outcome_uncertain(t))
    latency = [t.metrics.latency_ms for t, _ in pairs]
    costs = [t.metrics.cost_usd for t, _ in pairs]
    accepted = sum(ok)
    if any(c is None for c in costs):
        cost = Figure(None, n, None, "total/accepted", "cost unknown for some trials")
    else:
        cost = ratio_of_sums(
            [c or 0.0 for c in costs], [1.0 if good else 0.0 for good in ok], seed=seed
        )
        if cost.value is None:
            cost = Figure(None, n, None, "total/accepted", "no accepted outcome")
    per_inv = Counter(r.invariant for _, v in pairs for r in v.violated)
    first = pairs[0][0].provenance if pairs else None
    tags: dict[str, list[bool]] = defaultdict(list)
    for (t, _), good in zip(pairs, ok, strict=True):
        for tag in [str(x) for x in t.tags] or ["untagged"]:
            tags[tag].append(good)
    return {
        "schema_version": 1,
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
        "success_rate": proportion(accepted, n).as_json(),
        "pass_all_k": proportion(sum(1 for c in cases if c["passed_all"]), len(cases)).as_json(),
        "pass_first_trial": proportion(
            sum(1 for c in cases if c["passed_first"]), len(cases)
        ).as_json(),
        "by_tag": {k: proportion(sum(v), len(v)).as_json() for k, v in sorted(tags.items())},
        "permission_violations": proportion(count(PERMISSION), n).as_json(),
        "duplicate_writes": proportion(count(DUPLICATES), n).as_json(),
        "unresolved_outcomes": proportion(unresolved, n).as_json(),
        "harness_incidents": proportion(sum(1 for _, v in pairs if v.harness_errors), n).as_json(),
        "latency_ms_mean": mean(latency, seed=seed).as_json(),
        "latency_ms_p95": percentile(latency, 95, seed=seed).as_json(),
        "tool_calls_mean": mean([t.metrics.tool_calls for t, _ in pairs], seed=seed).as_json(),
        "cost_usd_per_accepted_outcome": cost.as_json(),
        "violations_by_invariant": {
            k: proportion(c, n).as_json() for k, c in sorted(per_inv.items())
        },
        "cases": cases,
    }


def _fig(d: dict[str, Any], fmt: str = "{:.2f}") -> str:
    return Figure(
        d["value"],
        d["n"],
        tuple(d["ci95"]) if d["ci95"] else None,
        d["method"],
        d["undefined_reason"],
    ).text(fmt)


def render_trial_report(console: Console, report: dict[str, Any]) -> None:
    """Terminal rendering of `trial_report`."""
    p = report["provenance"] or {}
    console.print(
        f"[bold]Trial report[/bold] — agent {p.get('agent')} ({p.get('agent_version')}"
        f", model {p.get('agent_model') or 'none'}), harness {p.get('harness_version')},"
        f" tools {p.get('tool_schema_version')}, policy "
        f"{', '.join(p.get('policy_versions', []))}, seed {p.get('seed')}"
    )
    cases = Table(title="Cases", title_justify="left")
    cases.add_column("case", no_wrap=True)
    for col in ("tags", "successes", "all k", "first", "violated invariants"):
        cases.add_column(col)
    for c in report["cases"]:
        cases.add_row(
            c["case"],
            ",".join(c["tags"]),
            f"{c['successes']}/{c['trials']}",
            "yes" if c["passed_all"] else "[red]no[/red]",
            "yes" if c["passed_first"] else "[red]no[/red]",
            ", ".join(f"{k}×{v}" for k, v in c["violated"].items())
            + (f" harness_error×{c['harness_errors']}" if c["harness_errors"] else ""),
        )
    console.print(cases)
    summary = Table(title="Summary (95% intervals)", title_justify="left")
    summary.add_column("figure")
    summary.add_column("value [95% CI] (n)")
    pct = "{:.0%}"
    rows = [
        ("successes / trials", _fig(report["success_rate"], pct)),
        ("cases passing all k trials (pass^k)", _fig(report["pass_all_k"], pct)),
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
    for name, value in rows:
        summary.add_row(name, value)
    console.print(summary)


def report_json(report: dict[str, Any]) -> str:
    return json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False)
