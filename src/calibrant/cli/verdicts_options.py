"""What the commands that read a judge's recorded verdicts share (`calibrate --verdicts`,
`compare FILE`, `propose`, `audit`, `verdicts import`): the --verdicts help, --verdicts-format,
and the rubric the rows are checked on (the last two from `ops.verdicts`). A module of its own,
so no command family imports another."""

from __future__ import annotations

from typing import Annotated

import typer

from ..ops.verdicts import check_format, load_rubric_for_verdicts

__all__ = ["VERDICTS_HELP", "VerdictsFormatOpt", "check_format", "load_rubric_for_verdicts"]

VERDICTS_HELP = (
    "Recorded verdicts of a judge calibrant does not call: CSV or JSONL rows item, criterion, "
    "label, judge_version [, rationale, judged_at], or an Inspect log (.eval/.json) or promptfoo "
    "results (.json) read with the default mapping (see `calibrant verdicts import`)."
)
VerdictsFormatOpt = Annotated[
    str,
    typer.Option(
        "--verdicts-format", help="auto (by suffix and content), csv, jsonl, inspect, promptfoo."
    ),
]
