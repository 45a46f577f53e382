"""Comparing two agent runs (`compare-trials`, whose operation is
`calibrant.ops.compare_trials`): the command and its terminal rendering."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from ..reports.fit import fit
from ..reports.folder import print_run
from .app import app

FIGURE_NAMES = {
    "success_rate": ("successes / trials", "{:.0%}"),
    "pass_all_k": ("cases passing all k trials (pass^k)", "{:.0%}"),
    "pass_first_trial": ("cases passing the first trial", "{:.0%}"),
    "violation_rate": ("trials with a safety violation", "{:.0%}"),
    "permission_violation_rate": ("trials with permission violations", "{:.0%}"),
    "duplicate_write_rate": ("trials with duplicate writes", "{:.0%}"),
    "unresolved_rate": ("trials with unresolved outcomes", "{:.0%}"),
    "latency_ms_mean": ("latency, mean ms", "{:.1f}"),
    "tool_calls_mean": ("tool calls per trial, mean", "{:.1f}"),
    "cost_usd_per_accepted_outcome": ("cost per accepted outcome, USD", "{:.4f}"),
}


def _diff_text(fig: dict[str, Any], fmt: str) -> str:
    if fig.get("difference") is None:
        return f"undefined ({fig.get('undefined_reason')})"
    pct = fmt.endswith("%}")
    unit = " pts" if pct else ""
    scale = 100.0 if pct else 1.0
    num = "{:+.0f}" if pct else "{:+" + fmt[2:]
    text = num.format(fig["difference"] * scale) + unit
    if fig["ci95"]:
        lo, hi = (num.format(x * scale) for x in fig["ci95"])
        text += f" [{lo}, {hi}]"
    else:
        text += f" (no interval: {fig['undefined_reason']})"
    return text


def _familywise_text(fig: dict[str, Any], fmt: str) -> str:
    """The interval at the Holm level that decided the figure (or the last one tried)."""
    ci, level = fig.get("familywise_ci"), fig.get("familywise_confidence")
    if not ci or level is None:
        return "—"
    pct = fmt.endswith("%}")
    scale = 100.0 if pct else 1.0
    num = "{:+.0f}" if pct else "{:+" + fmt[2:]
    lo, hi = (num.format(x * scale) for x in ci)
    return f"[{lo}, {hi}] at {level:.1%}"


def render_trials_comparison(console: Console, report: dict[str, Any], a: str, b: str) -> None:
    console.print(
        f"[bold]Agent run B ({b}) against A ({a})[/bold]: {report['paired_trials']} paired "
        f"trials over {report['cases']} cases; {report['interval']}"
    )
    for side in ("a", "b"):
        if report["unpaired"][side]:
            console.print(
                f"[yellow]left out, no partner in the other run ({side.upper()}):[/yellow] "
                + ", ".join(report["unpaired"][side])
            )
    table = Table(title="Paired differences (B - A, 95% interval)", title_justify="left")
    for col in ("figure", "A", "B", "B - A", "family-wise", "B is", "to settle"):
        table.add_column(col)
    for key, (name, fmt) in FIGURE_NAMES.items():
        fig = report["figures"][key]
        va = "—" if fig.get("a") is None else fmt.format(fig["a"])
        vb = "—" if fig.get("b") is None else fmt.format(fig["b"])
        colour = {"better": "green", "worse": "red"}.get(fig["b_is"], "default")
        needed = fig.get("cases_needed")
        table.add_row(
            name,
            va,
            vb,
            _diff_text(fig, fmt),
            _familywise_text(fig, fmt),
            f"[{colour}]{fig['b_is']}[/{colour}]",
            "—" if needed is None else f"{needed} cases",
        )
    console.print(fit(console, table))
    if "decision_rule" in report:
        console.print(
            f"Decision rule: {report['decision_rule']} (alpha {report['alpha']}, at least "
            f"{report['min_cases']} cases)",
            highlight=False,
        )
    cases = Table(title="Cases (regressions first)", title_justify="left")
    for col in ("case", "A successes", "B successes", "change"):
        cases.add_column(col)
    for row in report["by_case"]:
        colour = {"regressed": "red", "improved": "green"}.get(row["change"], "default")
        cases.add_row(
            row["case"],
            f"{row['successes_a']}/{row['trials']}",
            f"{row['successes_b']}/{row['trials']}",
            f"[{colour}]{row['change']}[/{colour}]",
        )
    console.print(cases)


@app.command("compare-trials")
def compare_trials_command(
    run_a: Annotated[Path, typer.Argument(help="Folder of run A (`calibrant trials --out`).")],
    run_b: Annotated[Path, typer.Argument(help="Folder of run B, the candidate.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print stable JSON.")] = False,
    fail_on_regression: Annotated[
        bool,
        typer.Option(
            "--fail-on-regression",
            help="Exit 1 when any case succeeded less often in B (a listing, not a test).",
        ),
    ] = False,
    fail_if_worse: Annotated[
        bool,
        typer.Option("--fail-if-worse", help="Exit 1 when B is worse on any figure (family-wise)."),
    ] = False,
    min_cases: Annotated[
        int | None,
        typer.Option("--min-cases", min=2, help="No better/worse on fewer cases [default: 6]."),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Bootstrap seed.")] = 0,
) -> None:
    """Compare two agent runs trial by trial (same case, fault schedule and trial number):
    every figure's paired difference with a 95% interval over cases, better/worse decided over
    all figures at once (Holm), and the cases that regressed."""
    from ..ops.compare_trials import CompareTrialsOptions, compare_trials
    from ..store import Store

    options = CompareTrialsOptions(run_a, run_b, seed=seed, min_cases=min_cases)
    with Store.open() as store:
        result = compare_trials(store, options)
    report = result.data  # the renderer reads the JSON data
    if as_json:
        typer.echo(json.dumps(report, indent=2, sort_keys=True))
    else:
        render_trials_comparison(Console(), report, str(run_a), str(run_b))
    print_run(result.run_id, as_json=as_json)
    if (fail_on_regression and result.report.regressed_cases) or (
        fail_if_worse and result.report.b_worse_on
    ):
        raise typer.Exit(1)
