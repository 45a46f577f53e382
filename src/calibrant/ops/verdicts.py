"""What every operation that reads a judge's recorded verdicts checks first: the format asked
for, and the rubric the rows are checked on (`calibrate --verdicts`, `compare FILE`,
`propose`, `audit`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ConfigError

if TYPE_CHECKING:
    from ..contracts import Rubric

__all__ = ["check_format", "load_rubric_for_verdicts"]


def check_format(fmt: str) -> None:
    from ..calibration.recorded import FORMATS

    if fmt not in FORMATS:
        raise ConfigError(f"--verdicts-format {fmt}: unknown; the formats are {', '.join(FORMATS)}")


def load_rubric_for_verdicts(rubric: Path | None, domain: str | None = None) -> Rubric:
    """The rubric recorded verdicts are checked on: `rubric` (the user's path), else the
    installed pack's of `domain` (default: `default_domain()`'s)."""
    from ..domains import default_rubric
    from ..files import load_rubric

    return load_rubric(rubric or default_rubric(domain))
