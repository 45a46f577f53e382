"""Items and queues: an item named by its alias (or, for an admin, its transcript id), the
items of a queue, each expert's queues with what is left in them, and an item's place in one."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, func
from sqlmodel import Session, col, select

from ..contracts import Transcript
from .label_records import Item, NotFound, Place, QueueStatus, stored_rubric, utc
from .service_tables import ItemRow, LabelRow


def in_queue(queue: str) -> Any:
    """The ids of the items of `queue` (a query; `.first()` tells whether it holds any)."""
    return select(ItemRow.id).where(col(ItemRow.queue) == queue).limit(1)


_ALIAS = re.compile(r"item-[0-9a-f]{12}", re.IGNORECASE)


def new_alias() -> str:
    """An item's opaque name for experts: random, so it tells nothing of the transcript."""
    return "item-" + secrets.token_hex(6)


def is_alias(name: str) -> bool:
    """`name` is in the aliases' namespace ('item-' and 12 hex digits, in any case): no
    transcript id may take it, so an alias never names two items."""
    return _ALIAS.fullmatch(name) is not None


def _row(session: Session, key: str, by_id: bool) -> ItemRow | None:
    """The item an expert names by its alias; with `by_id` (an admin's request, or code that
    holds the transcript id) its transcript id names it as well."""
    row = session.get(ItemRow, key) if by_id else None
    if row is None:
        row = session.exec(select(ItemRow).where(col(ItemRow.alias) == key)).first()
    return row


def _missing(key: str, by_id: bool) -> NotFound:
    """Not found. An expert's answer does not depend on the name it gave: a transcript id it
    guessed right is answered as a wrong guess is."""
    if by_id:
        return NotFound(f"no item '{key}' (neither a transcript id nor an alias)")
    return NotFound("no such item: an item is named by its alias (item-...), as listed")


def get_item(engine: Engine, item_id: str, *, by_id: bool = False) -> Item:
    """The item named by its alias (what experts use) or, `by_id`, its id (what admins use)."""
    with Session(engine) as session:
        row = _row(session, item_id, by_id)
    if row is None:
        raise _missing(item_id, by_id)
    return Item(
        row.id,
        row.alias or row.id,
        row.queue,
        row.rubric_hash,
        row.transcript_hash,
        row.uploaded_by,
        utc(row.created_at),
        Transcript.model_validate_json(row.payload),
    )


def resolve(engine: Engine, key: str, *, by_id: bool = False) -> str:
    """The item id behind an alias (or, `by_id`, an id); NotFound otherwise."""
    with Session(engine) as session:
        row = _row(session, key, by_id)
    if row is None:
        raise _missing(key, by_id)
    return row.id


def aliases(engine: Engine, ids: Iterable[str] | None = None) -> dict[str, str]:
    """Item id -> alias, for `ids` (default: every item)."""
    query = select(ItemRow.id, ItemRow.alias)
    wanted = None if ids is None else list(set(ids))
    if wanted is not None:
        if not wanted:
            return {}
        query = query.where(col(ItemRow.id).in_(wanted))
    with Session(engine) as session:
        return {i: a or i for i, a in session.exec(query).all()}


def list_items(engine: Engine, *, queue: str | None = None) -> list[ItemRow]:
    query = select(ItemRow).order_by(col(ItemRow.queue), col(ItemRow.id))
    if queue is not None:
        query = query.where(col(ItemRow.queue) == queue)
    with Session(engine) as session:
        return list(session.exec(query))


def _criteria_counts(engine: Engine, rubric_hashes: set[str]) -> dict[str, int]:
    return {h: len(stored_rubric(engine, h)[1].criteria) for h in rubric_hashes}


def _queues(engine: Engine, rater: str) -> dict[str, list[tuple[str, bool, datetime | None]]]:
    """Each queue's items in the aliases' (random) order: (alias, labeled by `rater` on every
    criterion, when `rater` last saved a label of it)."""
    with Session(engine) as session:
        rows = session.exec(select(ItemRow.id, ItemRow.alias, ItemRow.queue, ItemRow.rubric_hash))
        alias = {}
        items = []
        for item_id, item_alias, queue, rubric_hash in rows:
            alias[item_id] = item_alias or item_id
            items.append((item_id, queue, rubric_hash))
        mine = {
            item: (int(n), utc(last))
            for item, n, last in session.exec(
                select(LabelRow.item, func.count(), func.max(LabelRow.created_at))
                .where(col(LabelRow.rater) == rater)
                .group_by(col(LabelRow.item))
            ).all()
        }
    needed = _criteria_counts(engine, {h for _, _, h in items})
    by_queue: dict[str, list[tuple[str, bool, datetime | None]]] = {}
    for item_id, queue, rubric_hash in sorted(items, key=lambda x: alias[x[0]]):
        n, last = mine.get(item_id, (0, None))
        by_queue.setdefault(queue, []).append((alias[item_id], n >= needed[rubric_hash], last))
    return by_queue


def queues_of(engine: Engine, rater: str) -> list[QueueStatus]:
    """Each queue: how many items, how many `rater` has labeled on every criterion, and the
    first item it has not finished (by alias: items come in the aliases' random order, not
    grouped by case or agent)."""
    return [
        QueueStatus(
            queue,
            len(entries),
            sum(done for _, done, _ in entries),
            next((i for i, done, _ in entries if not done), None),
        )
        for queue, entries in sorted(_queues(engine, rater).items())
    ]


def place_in_queue(engine: Engine, rater: str, queue: str, alias: str) -> Place:
    """Where the item named `alias` stands in `rater`'s view of `queue` (the aliases' order):
    what the labeling page shows as "n of N", and where skip, back and save-and-next lead."""
    entries = _queues(engine, rater).get(queue, [])
    names = [a for a, _, _ in entries]
    k = names.index(alias)
    after = entries[k + 1 :] + entries[:k]  # from the next one on, round to the one before
    saved = max(((last, a) for a, _, last in entries if last is not None), default=None)
    return Place(
        position=k + 1,
        items=len(entries),
        done=sum(done for _, done, _ in entries),
        finished=entries[k][1],
        back=names[k - 1] if k > 0 else None,
        skip=next((a for a, done, _ in after if not done), None),
        last_saved=None if saved is None else saved[1],
        saved_at=None if saved is None else saved[0],
    )


def next_item(engine: Engine, rater: str, queue: str) -> str | None:
    for status in queues_of(engine, rater):
        if status.queue == queue:
            return status.next_item
    return None
