"""Labeling, the core the API and the workbench share: transcripts uploaded as items, each
expert's queue, and labels saved against the item's rubric.

Blindness is kept here, not in the routes: the functions an annotator's request reaches take
its name and return only its own labels, and an expert names an item only by its alias (an
opaque name from a namespace no transcript id may take): the functions that find an item by
name look up its transcript id too only when told the caller may use it (`by_id=True`: an
admin's request, or code that holds the id).

The records it hands back and the stored rubric are in `label_records`, items and queues in
`queues`; this module uploads transcripts and saves and reads labels, and exports all of them."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, NamedTuple

from sqlalchemy import Connection, Engine, func
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from ..contracts import CANT_TELL, Rubric, Transcript
from ..contracts.common import content_hash
from ..domains import same_domain
from ..errors import ConfigError, InputError
from .label_records import (
    CONSENSUS,
    Conflict,
    Item,
    NotFound,
    Place,
    QueueStatus,
    StoredLabel,
    _labels,
    decode_label,
    stored_rubric,
    utc,
)
from .queue_lock import queue_transaction
from .queues import (
    _missing,
    _row,
    aliases,
    get_item,
    in_queue,
    is_alias,
    list_items,
    new_alias,
    next_item,
    place_in_queue,
    queues_of,
    resolve,
)
from .service_tables import AdjudicationRow, ItemRow, LabelRow
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
    "LabelValues",
    "label_row",
    "upsert_labels",
]


# ---- transcripts -------------------------------------------------------------------------


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


class LabelValues(NamedTuple):
    """One row of the labels table as written: the label as its JSON text."""

    item: str
    rater: str
    criterion: str
    label: str
    note: str | None
    created_at: datetime


def label_row(
    item: str, rater: str, criterion: str, value: str | int, note: str | None, now: datetime
) -> LabelValues:
    return LabelValues(item, rater, criterion, json.dumps(value), note, now)


def upsert_labels(conn: Connection, rows: list[LabelValues]) -> None:
    """Insert labels, replacing a rater's earlier label of the same item and criterion."""
    insert = pg_insert if conn.dialect.name == "postgresql" else sqlite_insert
    for start in range(0, len(rows), 1000):
        chunk = [r._asdict() for r in rows[start : start + 1000]]
        statement = insert(_labels).values(chunk)
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
