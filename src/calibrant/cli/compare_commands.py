"""Comparing two agent runs: the `compare-trials` command (its operation is
`calibrant.ops.compare_trials`, its terminal rendering `calibrant.reports.trials_compare`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from ..reports.folder import print_run
from ..reports.trials_compare import render_trials_comparison
from .app import app


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
    if as_json:
        typer.echo(json.dumps(result.data, indent=2, sort_keys=True))
    else:
        render_trials_comparison(Console(), result.typed(), str(run_a), str(run_b))
    print_run(result.run_id, as_json=as_json)
    if (fail_on_regression and result.report.regressed_cases) or (
        fail_if_worse and result.report.b_worse_on
    ):
        raise typer.Exit(1)
