"""Labeling, the core the API and the workbench share: transcripts uploaded as items, each
expert's queue, and labels saved against the item's rubric.

Blindness is kept here, not in the routes: the functions an annotator's request reaches take
its name and return only its own labels, and an expert names an item only by its alias (an
opaque name from a namespace no transcript id may take): the functions that find an item by
name look up its transcript id too only when told the caller may use it (`by_id=True`: an
admin's request, or code that holds the id)."""

from __future__ import annotations

import json
import re
import secrets
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import yaml
from sqlalchemy import Connection, Engine, Table, func
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from ..contracts import CANT_TELL, Rubric, Transcript
from ..contracts.common import content_hash
from ..domains import same_domain
from ..errors import CalibrantError, ConfigError, InputError
from .queue_lock import queue_transaction
from .service_tables import AdjudicationRow, ItemRow, LabelRow, RubricRow
from .uploads import BODY, MAX_TEXT, text_problem
from .views import seen_at, verdict_seen

__all__ = [
    "BODY",
    "CONSENSUS",
    "MAX_TEXT",
    "text_problem",
    "Conflict",
    "NotFound",
    "StoredLabel",
    "Item",
    "QueueStatus",
    "Place",
    "upload_transcripts",
    "in_queue",
    "is_alias",
    "new_alias",
    "stored_rubric",
    "get_item",
    "resolve",
    "aliases",
    "list_items",
    "queues_of",
    "next_item",
    "place_in_queue",
    "save_labels",
    "labels_of",
    "decode_label",
    "utc",
    "check_value",
    "label_row",
    "upsert_labels",
]


CONSENSUS = "consensus"
"""The rater id of the consensus file: no account may label under it."""


_labels: Table = LabelRow.__table__  # type: ignore[attr-defined]


class NotFound(CalibrantError):
    """The item, rubric or label asked for does not exist (HTTP 404)."""


class Conflict(CalibrantError):
    """The request contradicts what the store holds (HTTP 409)."""


@dataclass(frozen=True)
class StoredLabel:
    item: str
    rater: str
    criterion: str
    label: str | int
    note: str | None
    updated_at: datetime


@dataclass(frozen=True)
class Item:
    id: str  # the transcript id: admins only
    alias: str  # what experts see and address it by
    queue: str
    rubric_hash: str
    transcript_hash: str
    uploaded_by: str
    created_at: datetime
    transcript: Transcript


@dataclass(frozen=True)
class QueueStatus:
    queue: str
    items: int
    done: int
    next_item: str | None


@dataclass(frozen=True)
class Place:
    """An item's place in one rater's queue (items in the aliases' order), by aliases only."""

    position: int  # 1-based: the page's "n of N"
    items: int  # N
    done: int  # items the rater has labeled on every criterion
    finished: bool  # this item is one of them
    back: str | None  # the item before this one (none for the first)
    skip: str | None  # the next item not finished after this one, round the queue; none left
    last_saved: str | None  # the item the rater last saved labels of, in this queue
    saved_at: datetime | None  # when


def utc(moment: datetime) -> datetime:
    """A time read back from the store, as UTC (SQLite and a plain TIMESTAMP drop the zone;
    the service only ever writes UTC)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def decode_label(text: str) -> str | int:
    value = json.loads(text)
    assert isinstance(value, str | int)
    return value


# ---- transcripts -------------------------------------------------------------------------


def stored_rubric(engine: Engine, rubric_hash: str | None = None) -> tuple[str, Rubric]:
    """The rubric with this content hash from the store (default: the one stored last)."""
    with Session(engine) as session:
        if rubric_hash is None:
            query = select(RubricRow).order_by(col(RubricRow.created_at).desc())
            row = session.exec(query).first()
            if row is None:
                raise ConfigError(
                    "the store holds no rubric yet: an admin uploads one first (POST /api/rubrics)"
                )
        else:
            row = session.get(RubricRow, rubric_hash)
            if row is None:
                raise NotFound(f"no rubric {rubric_hash} in the store")
    return row.content_hash, _parse_rubric(row.body)


_RUBRICS: dict[str, Rubric] = {}


def _parse_rubric(body: str) -> Rubric:
    rubric = _RUBRICS.get(body)
    if rubric is None:
        rubric = Rubric.model_validate(yaml.safe_load(body))
        if len(_RUBRICS) > 64:
            _RUBRICS.clear()
        _RUBRICS[body] = rubric
    return rubric


def upload_transcripts(
    engine: Engine,
    parsed: list[tuple[int, Transcript]],
    *,
    queue: str,
    rubric_hash: str | None,
    by: str,
    held: Conflict | None = None,
    then: Callable[[Session], None] | None = None,
) -> tuple[str, list[str], list[str]]:
    """Store transcripts as items of `queue`, all or nothing. An item already stored with the
    same content is left as it is; one with different content is refused, and so is a
    transcript id in the aliases' namespace (`is_alias`). Returns the rubric hash, the ids
    added and the ids already present. `held`: raised, and nothing stored, when the queue
    holds items already (a new queue only). `then`: more writes, made in the same transaction
    after the items (an error in them stores nothing)."""
    rubric_hash, rubric = stored_rubric(engine, rubric_hash)
    seen: dict[str, int] = {}
    for line, t in parsed:
        if is_alias(t.transcript_id):
            raise InputError(
                BODY,
                f"transcript id '{t.transcript_id}' has the form of the workbench's item "
                "aliases ('item-' and 12 hex digits), which only the workbench gives: rename "
                "the transcript",
                line=line,
                field="transcript_id",
            )
        same_domain(  # one domain per queue: the rubric's
            BODY,
            t.domain,
            expected=rubric.domain,
            expected_from=f"rubric '{rubric.rubric_id}'",
            line=line,
        )
        if t.transcript_id in seen:
            raise InputError(
                BODY,
                f"transcript '{t.transcript_id}' appears twice "
                f"(first on line {seen[t.transcript_id]})",
                line=line,
                field="transcript_id",
            )
        seen[t.transcript_id] = line
    hashes = {t.transcript_id: content_hash(t) for _, t in parsed}
    with Session(engine) as session:
        query = select(ItemRow).where(col(ItemRow.id).in_(list(hashes)))
        existing = {row.id: row for row in session.exec(query)}
    for line, t in parsed:
        old = existing.get(t.transcript_id)
        if old is not None and (old.transcript_hash, old.queue) != (
            hashes[t.transcript_id],
            queue,
        ):
            raise Conflict(
                f"{BODY}:{line}: item '{t.transcript_id}' is already stored with other content "
                f"or in queue '{old.queue}' (a transcript id names one transcript)"
            )
    now = datetime.now(UTC)
    added = [t for _, t in parsed if t.transcript_id not in existing]
    rows = [
        ItemRow(
            id=t.transcript_id,
            transcript_hash=hashes[t.transcript_id],
            payload=t.model_dump_json(),
            alias=new_alias(),
            queue=queue,
            rubric_hash=rubric_hash,
            uploaded_by=by,
            created_at=now,
        )
        for t in added
    ]
    with queue_transaction(engine, queue) as conn, Session(bind=conn) as session:
        if held is not None and session.exec(in_queue(queue)).first() is not None:
            raise held  # checked under the queue's lock: two audits cannot both fill it
        session.add_all(rows)
        try:
            session.flush()
        except IntegrityError:
            raise Conflict("another upload stored some of these items at the same time") from None
        if then is not None:
            then(session)
            session.flush()
    return rubric_hash, [t.transcript_id for t in added], sorted(existing)


# ---- items and queues --------------------------------------------------------------------


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


# ---- labels ------------------------------------------------------------------------------


def check_value(
    rubric: Rubric, criterion: str, value: Any, where: str, line: int | None = None
) -> str | int:
    known = {c.id: c for c in rubric.criteria}
    c = known.get(criterion)
    if c is None:
        raise InputError(
            BODY,
            f"criterion '{criterion}' is not in rubric {rubric.rubric_id} "
            f"(criteria: {', '.join(known)})",
            line=line,
            field=f"{where}criterion",
        )
    allowed = [*c.allowed_labels(), CANT_TELL]
    for v in allowed:  # a form sends "3" for the level 3
        if value == v or (isinstance(v, int) and isinstance(value, str) and value == str(v)):
            return v
    raise InputError(
        BODY,
        f"label {value!r} is not on the scale of '{c.id}' "
        f"(allowed: {', '.join(repr(v) for v in allowed)})",
        line=line,
        field=f"{where}label",
    )


def save_labels(
    engine: Engine,
    rater: str,
    item_id: str,
    labels: list[tuple[str, Any, str | None]],
    *,
    by_id: bool = False,
) -> list[StoredLabel]:
    """Save `rater`'s labels (criterion, value, note) of one item, checked against the item's
    rubric, in one transaction. A label given again replaces the rater's own earlier one.
    Refused (Conflict) once the rater has seen other experts' labels of the item or the
    judge's verdict on it."""
    if rater == CONSENSUS:
        raise ConfigError(f"'{CONSENSUS}' is reserved for the consensus labels")
    with Session(engine) as session:  # the rubric hash only: no need to parse the transcript
        row = _row(session, item_id, by_id)
        if row is None:
            raise _missing(item_id, by_id)
        key, item_id, rubric_hash = item_id, row.id, row.rubric_hash  # key: as the caller named it
        decided = session.exec(
            select(AdjudicationRow.criterion).where(
                col(AdjudicationRow.item) == item_id, col(AdjudicationRow.decided_by) == rater
            )
        ).first()
    _, rubric = stored_rubric(engine, rubric_hash)
    judged = verdict_seen(engine, rater, item_id)
    if judged is not None:
        where, when = judged
        raise Conflict(
            f"you read the judge's verdict on item '{key}' ({where}, {utc(when):%Y-%m-%d %H:%M} "
            "UTC): a label from you would not be blind to the judge"
        )
    seen = seen_at(engine, rater, item_id)
    if seen is not None and decided is None:
        raise Conflict(
            f"you saw other experts' labels of item '{key}' on {seen:%Y-%m-%d %H:%M} UTC: "
            "a label from you would not be blind"
        )
    if decided is not None:
        raise Conflict(
            f"you adjudicated item '{key}' after seeing the experts' labels: a label from "
            "you would not be blind"
        )
    checked: dict[str, tuple[str | int, str | None]] = {}
    for index, (criterion, value, note) in enumerate(labels):
        where = f"labels.{index}."
        if criterion in checked:
            raise InputError(
                BODY, f"criterion '{criterion}' given twice", field=f"{where}criterion"
            )
        problem = None if note is None else text_problem(note, "a note")
        if problem:
            raise InputError(BODY, problem, field=f"{where}note")
        checked[criterion] = (check_value(rubric, criterion, value, where), note or None)
    now = datetime.now(UTC)
    rows = [
        label_row(item_id, rater, criterion, value, note, now)
        for criterion, (value, note) in checked.items()
    ]
    # the upsert is the transaction's first statement: on SQLite it takes the write lock at
    # once (waiting its turn) instead of upgrading a read lock another writer has overtaken
    with engine.begin() as conn:
        upsert_labels(conn, rows)
    return [StoredLabel(item_id, rater, c, v, n, now) for c, (v, n) in checked.items()]


def label_row(
    item: str, rater: str, criterion: str, value: str | int, note: str | None, now: datetime
) -> dict[str, Any]:
    return {
        "item": item,
        "rater": rater,
        "criterion": criterion,
        "label": json.dumps(value),
        "note": note,
        "created_at": now,
    }


def upsert_labels(conn: Connection, rows: list[dict[str, Any]]) -> None:
    """Insert labels, replacing a rater's earlier label of the same item and criterion."""
    insert = pg_insert if conn.dialect.name == "postgresql" else sqlite_insert
    for start in range(0, len(rows), 1000):
        statement = insert(_labels).values(rows[start : start + 1000])
        statement = statement.on_conflict_do_update(
            index_elements=["item", "rater", "criterion"],
            set_={
                "label": statement.excluded.label,
                "note": statement.excluded.note,
                "created_at": statement.excluded.created_at,
            },
        )
        conn.execute(statement)


def labels_of(
    engine: Engine, *, rater: str | None = None, item: str | None = None, by_id: bool = False
) -> list[StoredLabel]:
    """Stored labels, by rater and/or item (its alias, or `by_id` its id: a name that is
    neither finds no label). An annotator's request always passes its own name."""
    query = select(LabelRow).order_by(
        col(LabelRow.item), col(LabelRow.rater), col(LabelRow.criterion)
    )
    if rater is not None:
        query = query.where(col(LabelRow.rater) == rater)
    with Session(engine) as session:
        if item is not None:
            found = _row(session, item, by_id)
            if found is None:
                return []
            query = query.where(col(LabelRow.item) == found.id)
        rows = list(session.exec(query))
    return [
        StoredLabel(r.item, r.rater, r.criterion, decode_label(r.label), r.note, utc(r.created_at))
        for r in rows
    ]


def rater_counts(engine: Engine) -> Counter[str]:
    """How many labels each rater has given (for the admin's overview)."""
    with Session(engine) as session:
        rows = session.exec(select(LabelRow.rater, func.count()).group_by(col(LabelRow.rater)))
        return Counter(dict(rows.all()))
