"""Who has seen what about an item, and so may no longer label it blind.

Blindness is a promise about what an expert saw before labeling:

- other experts' labels: an adjudicator (or admin) who opened a disagreement, a label list or
  an export has seen the labels of the items in it;
- the judge's verdict: anyone who read a run's report (GET /api/runs/ID, /reports/ID, the
  answer of POST /api/audits) or the agreement over time that names an item has seen what the
  judge said of it.

Its own label of those items, new or revised, would no longer be blind, and a decision it
made on them (adjudication) would not be blind to the judge. Every route and page that shows
them records what it showed; saving a label or a decision checks it."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session, col, select

from .service_tables import ItemRow, LabelViewRow, VerdictViewRow

__all__ = [
    "record_views",
    "seen_at",
    "record_verdict_views",
    "record_report_read",
    "verdict_seen",
    "verdicts_read",
    "items_named",
]

_table = LabelViewRow.__table__  # type: ignore[attr-defined]
_verdicts = VerdictViewRow.__table__  # type: ignore[attr-defined]
_CHUNK = 500


def _insert(engine: Engine) -> Any:
    return pg_insert if engine.dialect.name == "postgresql" else sqlite_insert


def record_views(engine: Engine, viewer: str, items: Iterable[str]) -> None:
    """`viewer` has just been shown other experts' labels of `items` (the first time counts)."""
    now = datetime.now(UTC)
    rows = [{"item": i, "viewer": viewer, "first_seen_at": now} for i in sorted(set(items))]
    if not rows:
        return
    with engine.begin() as conn:
        conn.execute(_insert(engine)(_table).values(rows).on_conflict_do_nothing())


def seen_at(engine: Engine, viewer: str, item: str) -> datetime | None:
    """When `viewer` first saw other experts' labels of `item`, or None."""
    with Session(engine) as session:
        found = session.exec(
            select(LabelViewRow.first_seen_at).where(
                col(LabelViewRow.item) == item, col(LabelViewRow.viewer) == viewer
            )
        ).first()
    return found


def record_verdict_views(engine: Engine, viewer: str, items: Iterable[str], source: str) -> None:
    """`viewer` has just read the judge's verdict on `items` in `source` ("run ID", "the
    agreement over time"); the first read of each item counts."""
    now = datetime.now(UTC)
    rows = [
        {"item": i, "viewer": viewer, "source": source, "first_seen_at": now}
        for i in sorted(set(items))
    ]
    if not rows:
        return
    with engine.begin() as conn:
        for start in range(0, len(rows), _CHUNK):
            statement = _insert(engine)(_verdicts).values(rows[start : start + _CHUNK])
            conn.execute(statement.on_conflict_do_nothing())


def verdict_seen(engine: Engine, viewer: str, item: str) -> tuple[str, datetime] | None:
    """(where, when) `viewer` first read the judge's verdict on `item`, or None."""
    with Session(engine) as session:
        found = session.exec(
            select(VerdictViewRow.source, VerdictViewRow.first_seen_at).where(
                col(VerdictViewRow.item) == item, col(VerdictViewRow.viewer) == viewer
            )
        ).first()
    return None if found is None else (found[0], found[1])


def verdicts_read(engine: Engine, viewer: str) -> set[str]:
    """The items whose judge's verdict `viewer` has read."""
    with Session(engine) as session:
        query = select(VerdictViewRow.item).where(col(VerdictViewRow.viewer) == viewer)
        return set(session.exec(query).all())


def _strings(data: Any, out: set[str]) -> None:
    if isinstance(data, str):
        out.add(data)
    elif isinstance(data, dict):
        for key, value in data.items():
            _strings(key, out)
            _strings(value, out)
    elif isinstance(data, list | tuple):
        for value in data:
            _strings(value, out)


def items_named(engine: Engine, data: Any) -> set[str]:
    """The labeling items (their transcript ids) a report's JSON data names anywhere: as an
    audited item, a calibration's disagreement, a key of a table by item..."""
    found: set[str] = set()
    _strings(data, found)
    candidates = sorted(s for s in found if 0 < len(s) <= 1000 and "\x00" not in s)
    named: set[str] = set()
    with Session(engine) as session:
        for start in range(0, len(candidates), _CHUNK):
            part = candidates[start : start + _CHUNK]
            named.update(session.exec(select(ItemRow.id).where(col(ItemRow.id).in_(part))).all())
    return named


def record_report_read(engine: Engine, viewer: str, data: Any, source: str) -> None:
    """`viewer` has just read `data` (a report, as JSON data) in `source`: the judge's verdict
    on every labeling item it names counts as seen."""
    record_verdict_views(engine, viewer, items_named(engine, data), source)
