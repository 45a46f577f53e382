"""Who has seen other experts' labels of which item. Blindness is a promise about what an
expert saw before labeling: an adjudicator (or admin) who opened a disagreement, a label list
or an export has seen the labels of the items in it, and its own label of those items, new or
revised, would no longer be blind. Every route and page that shows other experts' labels
records what it showed; saving a label checks it."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from sqlalchemy import Engine
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session, col, select

from .tables import LabelViewRow

__all__ = ["record_views", "seen_at"]

_table = LabelViewRow.__table__  # type: ignore[attr-defined]


def record_views(engine: Engine, viewer: str, items: Iterable[str]) -> None:
    """`viewer` has just been shown other experts' labels of `items` (the first time counts)."""
    now = datetime.now(UTC)
    rows = [{"item": i, "viewer": viewer, "first_seen_at": now} for i in sorted(set(items))]
    if not rows:
        return
    insert = pg_insert if engine.dialect.name == "postgresql" else sqlite_insert
    with engine.begin() as conn:
        conn.execute(insert(_table).values(rows).on_conflict_do_nothing())


def seen_at(engine: Engine, viewer: str, item: str) -> datetime | None:
    """When `viewer` first saw other experts' labels of `item`, or None."""
    with Session(engine) as session:
        found = session.exec(
            select(LabelViewRow.first_seen_at).where(
                col(LabelViewRow.item) == item, col(LabelViewRow.viewer) == viewer
            )
        ).first()
    return found
