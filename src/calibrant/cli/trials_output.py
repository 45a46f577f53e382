"""What `trials` and `sandbox` share on the terminal: the progress of a run of trials (resumed
trials counted as kept), the interrupted message, and the trial report."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from ..errors import CalibrantError

if TYPE_CHECKING:
    from ..contracts import CaseContract
    from ..contracts.reports import TrialRunReport
    from ..harness import TrialRun

    Runner = Callable[[Callable[[TrialRun], None], Callable[[int, int], None]], list[TrialRun]]

__all__ = [
    "CasePathsArg",
    "OutFolderOpt",
    "TrialsKOpt",
    "RestartOpt",
    "JsonOpt",
    "MarkdownOpt",
    "load_trial_cases",
    "run_with_progress",
    "print_trial_report",
]

CasePathsArg = Annotated[list[Path], typer.Argument(help="Case YAML files or folders of them.")]
OutFolderOpt = Annotated[
    Path,
    typer.Option(
        "--out",
        help="Folder for the transcripts. A killed run leaves TRIALS_INCOMPLETE there; the "
        "same command resumes it.",
    ),
]
TrialsKOpt = Annotated[int, typer.Option("-k", min=1, help="Trials per case.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the report as JSON.")]
MarkdownOpt = Annotated[
    Path | None, typer.Option("--markdown", help="Also write the trial report as Markdown here.")
]
RestartOpt = Annotated[
    bool,
    typer.Option(
        "--restart",
        help="Discard the transcripts an earlier run left in --out and run every trial again.",
    ),
]


def load_trial_cases(
    paths: list[Path], out: Path, markdown: Path | None = None
) -> list[CaseContract]:
    """Check `out` (and `markdown`), then read every case and check it against the dataset,
    before any trial."""
    from ..files import expand_paths
    from ..harness import check_out_folder, load_runnable_cases
    from ..paths import check_output_path

    check_out_folder(out)
    if markdown is not None:
        check_output_path(markdown, option="--markdown")
    files = expand_paths(paths, suffixes=(".yaml", ".yml"))
    if not files:
        raise CalibrantError("no case (*.yaml) found in the given paths")
    return load_runnable_cases(files)


def run_with_progress(what: str, total: int, out: Path, run: Runner) -> list[TrialRun]:
    """Call `run(on_trial, on_resume)` under a progress bar; Ctrl-C (or SIGTERM, or a server
    stopped early) says how many trials are in `out` and how to resume, exit 130."""
    from ..harness import MARKER
    from .progress import track

    err = Console(stderr=True, highlight=False, soft_wrap=True)
    state = {"done": 0}
    with track(what, total=total) as bar:

        def resumed(finished: int, of: int) -> None:
            state["done"] = finished
            for _ in range(finished):
                bar.advance(cached=True)  # kept, not rerun: no time spent, no ETA skew
            err.print(f"resuming {out}: {finished} of {of} trials already finished, kept")

        def tick(run: TrialRun) -> None:
            state["done"] += 1
            bar.advance()

        try:
            return run(tick, resumed)
        except KeyboardInterrupt:
            err.print(
                f"calibrant: interrupted; {state['done']} of {total} trials are in {out} "
                f"(marked {MARKER}): rerun the same command to resume"
            )
            raise typer.Exit(130) from None


def print_trial_report(
    runs: list[TrialRun],
    *,
    seed: int,
    as_json: bool,
    out: Path,
    console: Console,
    to_stderr: bool = False,
    markdown: Path | None = None,
    report: TrialRunReport | dict[str, Any] | None = None,
) -> TrialRunReport:
    """The trial report (`report`: already made from `runs`, its model or its JSON data): JSON
    on stdout (`to_stderr`: on stderr), or tables and where the transcripts are; also as
    Markdown in `markdown`. Returns the report."""
    from ..paths import write_atomic
    from ..reports.trials import (
        as_trial_report,
        render_trial_report,
        report_json,
        trial_markdown,
        trial_report,
    )

    if report is None:
        report = trial_report([(r.transcript, r.verdict) for r in runs], seed=seed)
    report = as_trial_report(report)
    if markdown is not None:
        write_atomic(markdown, trial_markdown(report))
    if as_json:
        typer.echo(report_json(report), err=to_stderr)
    else:
        render_trial_report(console, report)
        console.print(f"{len(runs)} transcript(s) in {out}")
    return report
