"""One rule, in one place: calibrant never mixes domains in one run. A transcript is checked
against its own domain's case, and judged, scored or calibrated only with its domain's rubric."""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError

__all__ = ["same_domain"]


def same_domain(
    path: str | Path, found: str, *, expected: str, expected_from: str, line: int | None = None
) -> None:
    """Refuse the file at `path` (its `line`, for JSON Lines; domain `found`) when it is not of
    domain `expected`, which `expected_from` has (e.g. "rubric 'travel_communication'"): one
    line naming the file and both domains, the field `domain`."""
    if found != expected:
        raise InputError(
            path,
            f"domain '{found}', but {expected_from} is domain '{expected}'; "
            "calibrant does not mix domains in one run",
            line=line,
            field="domain",
        )
