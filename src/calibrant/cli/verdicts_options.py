"""What the commands that read a judge's recorded verdicts share (`calibrate --verdicts`,
`compare FILE`, `propose`, `audit`, `verdicts import`): the --verdicts help, --verdicts-format,
and the rubric the rows are checked on. A module of its own, so no command family imports
another."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..errors import ConfigError

if TYPE_CHECKING:
    from ..contracts import Rubric

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


def check_format(fmt: str) -> None:
    from ..calibration.recorded import FORMATS

    if fmt not in FORMATS:
        raise ConfigError(f"--verdicts-format {fmt}: unknown; the formats are {', '.join(FORMATS)}")


def load_rubric_for_verdicts(rubric: Path | None, domain: str | None = None) -> Rubric:
    """The rubric recorded verdicts are checked on: `rubric` (the user's path), else the
    installed pack's of `domain` (default: that of files naming no domain)."""
    from ..domains import default_rubric
    from ..files import load_rubric

    return load_rubric(rubric or default_rubric(domain))
