"""`score`'s options, each named once here so the command's signature is one line per option."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

__all__ = [
    "CalibrationOpt",
    "ChunkOpt",
    "CsvOutOpt",
    "FailOnViolationOpt",
    "QueueOpt",
    "RowsOutOpt",
    "ScoreJsonOpt",
    "ScorePathsArg",
    "ScoreVerboseOpt",
    "SubmitOpt",
    "WaitOpt",
]

ScorePathsArg = Annotated[
    list[Path] | None,
    typer.Argument(help="Transcript JSON files, folders, JSON Lines files or quoted globs."),
]
CalibrationOpt = Annotated[
    str | None,
    typer.Option(
        "--calibration",
        help="Correct pass rates by this judge version's measured errors: a calibration "
        "report file (`calibrate --json`), a calibrate run id from the store, or `latest` "
        "(its latest calibration in the store). Without it pass rates are as judged.",
    ),
]
RowsOutOpt = Annotated[
    Path | None, typer.Option("--out", help="Write one JSON line per transcript here.")
]
CsvOutOpt = Annotated[
    Path | None, typer.Option("--csv", help="Write one CSV row per transcript here.")
]
ScoreJsonOpt = Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")]
FailOnViolationOpt = Annotated[
    bool,
    typer.Option("--fail-on-violation", help="Exit 1 when any transcript breaks an invariant."),
]
QueueOpt = Annotated[
    bool,
    typer.Option(
        "--queue",
        help="Queue the batch for `calibrant worker` processes (PostgreSQL store), print "
        "the run id and exit.",
    ),
]
ChunkOpt = Annotated[int, typer.Option("--chunk", min=1, help="Transcripts per queued job.")]
WaitOpt = Annotated[
    str | None,
    typer.Option("--wait", help="Follow a queued run until done, then print its summary."),
]
SubmitOpt = Annotated[
    bool,
    typer.Option(
        "--submit",
        help="Judge through the provider's batch API (`batch submit`), then score from the "
        "store: no live model call; a rerun resumes the same provider batch.",
    ),
]
ScoreVerboseOpt = Annotated[
    bool,
    typer.Option(
        "--verbose",
        "-v",
        help="Print the whole summary: each invariant on its line, the label counts and "
        "every figure's note in the table.",
    ),
]
