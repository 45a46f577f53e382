"""One recorded verdict row and where it was read: what every reader of a verdicts file
(CSV, JSONL in `recorded`; Inspect logs in `inspect_log`; promptfoo results in
`promptfoo_results`) builds, and the helpers they share to say where a bad field is. Below the
readers: it imports none of them."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ..contracts.reports.base import Strict
from ..errors import InputError
from ..files import line_of

__all__ = [
    "ImportMapping",
    "Loc",
    "RecordedVerdict",
    "VerdictRow",
    "Where",
    "dotted",
    "parse_json",
    "source_moment",
]

Loc = tuple[int | str, ...]


def dotted(loc: Sequence[int | str]) -> str:
    """A JSON path as a field name: samples[3].scores.tone.value."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


@dataclass(frozen=True)
class Where:
    """Where a row was read, for errors: the file (or zip member), the line when known, and per
    row field the place in the source it came from (a JSON path; the line of a JSON document's
    field is looked up only when an error names it)."""

    path: str
    line: int | None = None
    fields: Mapping[str, Loc] = field(default_factory=dict)
    text: Callable[[], str] | None = None

    def error(self, message: str, *, field: str) -> InputError:
        loc = self.fields.get(field)
        if loc is None:
            return InputError(self.path, message, line=self.line, field=field)
        line = self.line
        if line is None and self.text is not None:
            line = line_of(self.text(), loc)
        return InputError(self.path, message, line=line, field=dotted(loc))


@dataclass(frozen=True)
class RecordedVerdict:
    """One recorded answer of a judge: its label for one item on one criterion."""

    item: str
    criterion: str
    label: str | int
    judge_version: str
    rationale: str = ""
    where: Where = field(default_factory=lambda: Where("-"))
    judged_at: datetime | None = None  # when the judge answered (UTC); the monitor's window

    def row(self) -> VerdictRow:
        """The row as a verdicts file writes it (rationale and judged_at only when known)."""
        row = VerdictRow(
            item=self.item,
            criterion=self.criterion,
            label=self.label,
            judge_version=self.judge_version,
        )
        if self.rationale:
            row.rationale = self.rationale
        if self.judged_at is not None:
            row.judged_at = self.judged_at.isoformat()
        return row


class VerdictRow(Strict):
    """One row of a verdicts file (JSONL or CSV), in its columns' order."""

    item: str
    criterion: str
    label: str | int
    judge_version: str
    rationale: str | None = None
    judged_at: str | None = None


@dataclass(frozen=True)
class ImportMapping:
    """How a foreign file's fields become rows (each None: the format's default)."""

    item_from: str | None = None
    criterion_from: str | None = None
    label_from: str | None = None
    judge_version: str | None = None
    labels: Mapping[str, str | int] = field(default_factory=dict)
    epoch: int = 1


def parse_json(name: str, text: str) -> Any:
    """A JSON document read from `name` (a file, or a member of an archive); malformed JSON is
    one InputError naming it and the line."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(name, f"malformed JSON: {exc.msg}", line=exc.lineno) from None
    except RecursionError:
        raise InputError(name, "malformed JSON: nested too deep") from None


def source_moment(where: Where, value: Any) -> datetime:
    """`judged_at` (or the source field `where` names as judged_at): an ISO 8601 date or date
    and time, in UTC (naive: taken as UTC)."""
    try:
        if not isinstance(value, str):
            raise ValueError
        moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise where.error(
            f"not an ISO 8601 date or time (got {json.dumps(value)}; e.g. 2026-11-30 or "
            "2026-11-30T14:05:00Z)",
            field="judged_at",
        ) from None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).astimezone(UTC)
