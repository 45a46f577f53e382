"""The `calibrant` command line. Thin: parse options, call one core function, render."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from .errors import CalibrantError

app = typer.Typer(
    name="calibrant",
    help="Calibrate an LLM judge of agent communication against expert labels, with "
    "deterministic safety verdicts kept apart.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

SCHEMAS = ("transcript", "case", "rubric", "label", "verdict")


@app.command()
def schema(
    name: Annotated[str, typer.Argument(help=f"One of: {', '.join(SCHEMAS)}.")],
) -> None:
    """Print the JSON Schema of a data contract."""
    from pydantic import BaseModel

    from . import contracts as c

    models: dict[str, type[BaseModel]] = {
        "transcript": c.Transcript,
        "case": c.CaseContract,
        "rubric": c.Rubric,
        "label": c.Label,
        "verdict": c.SafetyVerdict,
    }
    if name not in models:
        raise CalibrantError(f"unknown schema '{name}'; choose one of: {', '.join(SCHEMAS)}")
    typer.echo(json.dumps(models[name].model_json_schema(), indent=2, sort_keys=True))


@app.command()
def check(
    paths: Annotated[list[Path], typer.Argument(help="Transcript JSON files or folders of them.")],
    case: Annotated[
        Path | None,
        typer.Option(
            "--case",
            help="Case contract (YAML) to check against, instead of the "
            "copy embedded in each transcript.",
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print stable JSON instead of tables.")
    ] = False,
    fail_on_violation: Annotated[
        bool,
        typer.Option(
            "--fail-on-violation",
            help="Exit 1 if any invariant is violated; exit 3 if none is violated but "
            "some evidence was missing or inconsistent (harness_error).",
        ),
    ] = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Show every invariant, not only failures.")
    ] = False,
) -> None:
    """Check transcripts against the deterministic safety invariants, one outcome each."""
    from .files import expand_paths, load_case, load_transcript
    from .reports.safety import render_safety, safety_json
    from .safety import check_transcript

    files = expand_paths(paths, suffixes=(".json",))
    if not files:
        raise CalibrantError("no transcript (*.json) found in the given paths")
    contract = load_case(case) if case is not None else None
    transcripts = [(f, load_transcript(f)) for f in files]  # validate everything first
    verdicts = [check_transcript(t, contract=contract, source=str(f)) for f, t in transcripts]
    if as_json:
        typer.echo(safety_json(verdicts))
    else:
        render_safety(Console(), verdicts, verbose=verbose)
    if fail_on_violation:
        if any(v.violated for v in verdicts):
            raise typer.Exit(1)
        if any(v.harness_errors for v in verdicts):
            raise typer.Exit(3)


@app.command()
def trials(
    paths: Annotated[list[Path], typer.Argument(help="Case YAML files or folders of them.")],
    agent: Annotated[str, typer.Option("--agent", help="scripted:<behaviour>[/<style>] or "
                                       "llm:<litellm model string>.")],
    out: Annotated[Path, typer.Option("--out", help="Folder for the transcripts.")],
    k: Annotated[int, typer.Option("-k", min=1, help="Trials per case.")] = 5,
    seed: Annotated[int, typer.Option("--seed", help="Seed for wording and resampling.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Run k trials of an agent on each case from clean fixtures; write transcripts; report."""
    from rich.progress import Progress

    from .files import expand_paths, load_case
    from .harness import TrialRun, run_trials
    from .reports.trials import render_trial_report, report_json, trial_report

    files = expand_paths(paths, suffixes=(".yaml", ".yml"))
    if not files:
        raise CalibrantError("no case (*.yaml) found in the given paths")
    cases = [load_case(f) for f in files]  # validate every case before running any
    console = Console(stderr=as_json)
    with Progress(console=console, transient=True, disable=as_json) as bar:
        task = bar.add_task(f"{agent}", total=len(cases) * k)

        def tick(run: TrialRun) -> None:
            bar.advance(task)

        runs = run_trials(cases, agent, k=k, seed=seed, out=out, on_trial=tick)
    report = trial_report([(r.transcript, r.verdict) for r in runs], seed=seed)
    if as_json:
        typer.echo(report_json(report))
    else:
        render_trial_report(console, report)
        console.print(f"{len(runs)} transcript(s) written to {out}")


def main() -> None:
    """Console entry point: user errors in one line on stderr, exit 2; bugs shown as bugs."""
    try:
        app(standalone_mode=False)
    except CalibrantError as exc:
        print(f"calibrant: error: {exc}", file=sys.stderr)
        sys.exit(2)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except (typer.Abort, KeyboardInterrupt):
        print("calibrant: aborted", file=sys.stderr)
        sys.exit(130)
    except SystemExit:
        raise
    except Exception as exc:  # a bug: say so, with the traceback
        import click

        if isinstance(exc, click.exceptions.ClickException):
            exc.show()
            sys.exit(2)
        import traceback

        traceback.print_exc()
        print(
            f"calibrant: internal error (a bug, please report it): {type(exc).__name__}: {exc}",
            file=sys.stderr,
        )
        sys.exit(70)
