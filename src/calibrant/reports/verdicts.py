"""What `calibrant verdicts import` says of the rows it wrote."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..calibration.recorded import RecordedVerdict

__all__ = ["imported_lines"]


def imported_lines(
    source: Path, out: Path, rows: list[RecordedVerdict], *, checked: bool
) -> list[str]:
    """The file written, its verdicts, items and judge version (and whether they were checked
    against a rubric); a note when some rows have no time (`monitor --verdicts` needs one)."""
    items = len({r.item for r in rows})
    timed = sum(r.judged_at is not None for r in rows)
    lines = [
        f"wrote {out}: {len(rows)} verdicts on {items} items, judge version "
        f"'{rows[0].judge_version}'" + ("" if checked else " (not checked: give --rubric)")
    ]
    if timed < len(rows):
        lines.append(
            f"note: {len(rows) - timed} of {len(rows)} verdicts have no judged_at ({source.name} "
            "holds no time for them): left empty; `monitor --verdicts` needs one on every row"
        )
    return lines
