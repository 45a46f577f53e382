"""Rendering the calibration report: rich terminal tables and Markdown (JSON is the data itself;
HTML lives in html.py)."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.table import Table

__all__ = ["render_calibration", "calibration_markdown", "calibration_json", "fmt_stat"]

GATE_STYLE = {"PASS": "bold green", "FAIL": "bold red", "UNDECIDED": "bold yellow"}


def fmt_stat(s: dict[str, Any] | None, *, n: bool = True) -> str:
    """'0.72 [0.54, 0.88] (n=59, 10 cases)' or 'undefined (reason)'."""
    if s is None:
        return "undefined (no expert pair)"
    if s["estimate"] is None:
        return f"undefined ({s['estimate_undefined_reason']})"
    ci = (
        f" [{s['ci'][0]:.2f}, {s['ci'][1]:.2f}]"
        if s["ci"] is not None
        else f" [CI undefined: {s['ci_undefined_reason']}]"
    )
    size = ""
    if n:
        size = f" (n={s['n']}" + (f", {s['n_clusters']} cases" if s.get("n_clusters") else "") + ")"
    return f"{s['estimate']:.2f}{ci}{size}"


def _coverage(c: dict[str, Any]) -> str:
    cov = c["coverage"]
    failed = sum(cov["failed"].values())
    ci = cov.get("coverage_ci95")
    interval = f" [{ci[0]:.0%}, {ci[1]:.0%}]" if ci else ""
    extra = (f", {cov['abstained']} abstained" if cov["abstained"] else "") + (
        f", {failed} failed" if failed else ""
    )
    return f"{cov['coverage']:.0%}{interval} of {cov['n_items']}{extra}"


def rate_text(v: dict[str, Any]) -> str:
    r = v.get("violated_rate") or {}
    ci = r.get("ci95")
    if not v["violated"] or not ci:
        return f"{v['violated']}/{v['n']}"
    return f"{v['violated']}/{v['n']} ({r['value']:.0%} [{ci[0]:.0%}, {ci[1]:.0%}])"


def _stat_name(c: dict[str, Any]) -> str:
    return {"cohen_kappa": "Cohen κ", "weighted_kappa_linear": "linear-weighted κ"}[c["statistic"]]


def render_calibration(console: Console, r: dict[str, Any], *, top: int = 5) -> None:
    """Terminal rendering."""
    j = r["judge"] or {}
    console.print(
        f"[bold]Calibration report[/bold] — {r['n_items']} gold items (split "
        f"{r['split']}), raters {', '.join(r['gold']['raters'])}"
    )
    console.print(
        f"judge {j.get('model')} [dim]{str(j.get('hash'))[:23]}[/dim]; rubric "
        f"{r['rubric']['id']} v{r['rubric']['version']} "
        f"[dim]{r['rubric']['hash'][:23]}[/dim]; bootstrap "
        f"{r['settings']['n_resamples']} resamples ({r['settings']['bootstrap']}), seed "
        f"{r['settings']['seed']}"
    )
    outcomes = ", ".join(f"{k} {v}" for k, v in r["judge_outcomes"].items())
    run = r.get("run") or {}
    console.print(
        f"judge outcomes: {outcomes}"
        + (f"; {run['from_cache']} from cache, {run['model_calls']} model call(s)" if run else "")
    )
    t = Table(
        title="Communication criteria: the judge against the experts' consensus (κ: Cohen's "
        "for binary criteria, linear-weighted for ordinal ones; 95% CI, bootstrap by case)",
        title_justify="left",
    )
    t.add_column("criterion", no_wrap=True)
    t.add_column("judge κ [95% CI] (n)")
    t.add_column("experts' κ")
    t.add_column("coverage")
    t.add_column("gate", no_wrap=True)
    for c in r["criteria"]:
        gate = c["gate"]["status"]
        name = c["criterion"] + ("\n[yellow]revise rubric[/yellow]" if c["revise_rubric"] else "")
        t.add_row(
            name,
            fmt_stat(c["judge_vs_consensus"]),
            fmt_stat(c["expert_ceiling"], n=False),
            _coverage(c),
            f"[{GATE_STYLE[gate]}]{gate}[/{GATE_STYLE[gate]}]",
        )
    console.print(t)
    for c in r["criteria"]:
        console.print(
            f"[bold]{c['criterion']}[/bold]: {c['gate']['status']} — "
            + "; ".join(c["gate"]["reasons"])
        )
        need = c["items_needed_for_width"]
        if need["items"] is not None:
            console.print(
                f"  about {need['items']} {need['unit']} for a CI width of "
                f"{need['target_width']}; band: "
                f"{c['judge_vs_consensus']['band'] or 'CI spans several bands'}"
            )
        _confusion(console, c)
        for d in c["disagreements"][:top]:
            experts = ", ".join(f"{k}={v}" for k, v in d["experts"].items())
            console.print(
                f"  [dim]{d['item']}[/dim] ({d['case']}): consensus {d['consensus']} "
                f"({experts}), judge {d['judge']}: {d['rationale'][:100]!r} "
                f"cites {', '.join(d['evidence']) or 'nothing'}"
            )
        if len(c["disagreements"]) > top:
            console.print(
                f"  … {len(c['disagreements']) - top} more disagreement(s) in the "
                "JSON/Markdown/HTML report"
            )
    _safety(console, r["safety"])
    _pairs(console, r)
    overall = r["gate"]["judge"]
    console.print(
        f"[bold]Judge release gate: [{GATE_STYLE[overall]}]{overall}"
        f"[/{GATE_STYLE[overall]}][/bold] (per criterion above; safety is reported "
        "apart and never averaged in)"
    )


def _confusion(console: Console, c: dict[str, Any]) -> None:
    m = c["confusion"]
    t = Table(
        title=f"consensus (rows) × judge (columns) — {c['criterion']}",
        title_justify="left",
        show_header=True,
        pad_edge=False,
    )
    t.add_column("")
    for col in m["columns_judge"]:
        t.add_column(col, justify="right")
    for name, row in zip(m["rows_consensus"], m["counts"], strict=True):
        if any(row):
            t.add_row(name, *(str(x) if x else "·" for x in row))
    console.print(t)


def _safety(console: Console, s: dict[str, Any]) -> None:
    t = Table(
        title=f"Safety invariants of the same {s['n_transcripts']} transcripts "
        "(deterministic checker; never averaged into quality)",
        title_justify="left",
    )
    for col in ("invariant", "violated", "pass", "not applicable", "harness error"):
        t.add_column(col)
    for name, c in s["invariants"].items():
        v = c["violated"]
        t.add_row(
            name,
            f"[red]{rate_text(c)}[/red]" if v else rate_text(c),
            str(c["pass"]),
            str(c["not_applicable"]),
            str(c["harness_error"]),
        )
    console.print(t)


def _pairs(console: Console, r: dict[str, Any]) -> None:
    if not r["calibration_pairs"]:
        return
    crits = [c["criterion"] for c in r["criteria"]]
    t = Table(
        title="Calibration pairs: excellent text with a wrong transaction beside ordinary "
        "text with a correct operation",
        title_justify="left",
    )
    for col in ("pair", "item", "agent / style", "safety", "consensus", "judge"):
        t.add_column(col, overflow="fold")
    for p in r["calibration_pairs"]:
        for s in p["sides"]:
            cons = " ".join(str(s["consensus"].get(c)) for c in crits)
            judge = (
                " ".join(str(s["judge"].get(c)) for c in crits)
                if s["judge"]
                else str(s["judge_outcome"])
            )
            safety = ", ".join(s["safety_violations"]) or "no violation"
            t.add_row(p["case"], s["item"], f"{s['agent']} / {s['style']}", safety, cons, judge)
    console.print(t)
    console.print(f"[dim]label order: {', '.join(crits)}[/dim]")


def calibration_json(r: dict[str, Any]) -> str:
    return json.dumps(r, indent=2, sort_keys=True, ensure_ascii=False, default=str)


def calibration_markdown(r: dict[str, Any]) -> str:
    """The same report as Markdown."""
    j = r["judge"] or {}
    out = [
        "# Calibration report",
        "",
        f"- Gold: {r['n_items']} items, split `{r['split']}`, raters "
        f"{', '.join(r['gold']['raters'])}",
        f"- Judge: `{j.get('model')}` (`{j.get('hash')}`)",
        f"- Rubric: `{r['rubric']['id']}` v{r['rubric']['version']} (`{r['rubric']['hash']}`)",
        f"- Bootstrap: {r['settings']['n_resamples']} resamples, {r['settings']['bootstrap']},"
        f" seed {r['settings']['seed']}; gate: CI lower bound ≥ {r['settings']['min_lower']}, "
        f"coverage ≥ {r['settings']['min_coverage']:.0%}, not below the experts' ceiling minus "
        "its CI half-width",
        f"- Judge outcomes: {', '.join(f'{k} {v}' for k, v in r['judge_outcomes'].items())}",
        f"- **Judge release gate: {r['gate']['judge']}**",
        "",
        "## Communication criteria",
        "",
        "| criterion | statistic | judge vs consensus [95% CI] | experts' ceiling | coverage "
        "| gate | revise rubric? |",
        "|---|---|---|---|---|---|---|",
    ]
    for c in r["criteria"]:
        out.append(
            f"| `{c['criterion']}` | {_stat_name(c)} | {fmt_stat(c['judge_vs_consensus'])}"
            f" | {fmt_stat(c['expert_ceiling'], n=False)} | {_coverage(c)} | "
            f"**{c['gate']['status']}** | {'yes' if c['revise_rubric'] else 'no'} |"
        )
    for c in r["criteria"]:
        out += [
            "",
            f"### `{c['criterion']}` — {c['title']}",
            "",
            f"Gate **{c['gate']['status']}**: " + "; ".join(c["gate"]["reasons"]),
            "",
        ]
        for name, s in c["judge_vs_consensus_other"].items():
            out.append(f"- {name}: {fmt_stat(s)}")
        out.append(f"- with abstention as a category: {fmt_stat(c['with_abstention_category'])}")
        for e in c["judge_vs_each_expert"]:
            out.append(f"- judge vs {e['rater']}: {fmt_stat(e)}")
        for p in c["expert_pairs"]:
            out.append(f"- {p['raters'][0]} vs {p['raters'][1]}: {fmt_stat(p)}")
        m = c["confusion"]
        out += [
            "",
            "| consensus \\ judge | " + " | ".join(m["columns_judge"]) + " |",
            "|---" * (len(m["columns_judge"]) + 1) + "|",
        ]
        out += [
            f"| {name} | " + " | ".join(map(str, row)) + " |"
            for name, row in zip(m["rows_consensus"], m["counts"], strict=True)
            if any(row)
        ]
        if c["disagreements"]:
            out += [
                "",
                "| item | case | consensus | experts | judge | judge's rationale | "
                "evidence cited |",
                "|---|---|---|---|---|---|---|",
            ]
            for d in c["disagreements"]:
                experts = ", ".join(f"{k}: {v}" for k, v in d["experts"].items())
                rationale = d["rationale"].replace("|", "\\|").replace("\n", " ")
                out.append(
                    f"| {d['item']} | {d['case']} | {d['consensus']} | {experts} | "
                    f"{d['judge']} | {rationale} | {', '.join(d['evidence'])} |"
                )
    s = r["safety"]
    out += [
        "",
        "## Safety invariants (deterministic checker; never averaged into quality)",
        "",
        "| invariant | violated | pass | not applicable | harness error |",
        "|---|---|---|---|---|",
    ]
    out += [
        f"| `{k}` | {rate_text(v)} | {v['pass']} | {v['not_applicable']} | {v['harness_error']} |"
        for k, v in s["invariants"].items()
    ]
    if r["calibration_pairs"]:
        crits = [c["criterion"] for c in r["criteria"]]
        out += [
            "",
            "## Calibration pairs",
            "",
            f"Labels in order: {', '.join(crits)}",
            "",
            "| case | item | role | agent / style | safety | consensus | judge |",
            "|---|---|---|---|---|---|---|",
        ]
        for p in r["calibration_pairs"]:
            for sd in p["sides"]:
                judge = (
                    " ".join(str(sd["judge"].get(c)) for c in crits)
                    if sd["judge"]
                    else str(sd["judge_outcome"])
                )
                out.append(
                    f"| {p['case']} | {sd['item']} | {sd['role']} | {sd['agent']} / "
                    f"{sd['style']} | {', '.join(sd['safety_violations']) or '—'} | "
                    + " ".join(str(sd["consensus"].get(c)) for c in crits)
                    + f" | {judge} |"
                )
    return "\n".join(out) + "\n"
