"""Disagreements between experts, their adjudication, and the export of every label to the gold
format (one JSONL file per rater, plus `consensus.jsonl`).

A disagreement is shown without rater identity: the labels and notes, never who gave them."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Engine, Table
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session, col, select

from ..contracts import CANT_TELL, Label
from ..errors import InputError
from ..paths import case_clash, portable_problem
from .labeling import (
    BODY,
    CONSENSUS,
    MAX_TEXT,
    Conflict,
    NotFound,
    StoredLabel,
    check_value,
    decode_label,
    get_item,
    labels_of,
    resolve,
    stored_rubric,
    text_problem,
    utc,
)
from .service_tables import AdjudicationRow, ItemRow
from .views import verdict_seen, verdicts_read

__all__ = [
    "Blind",
    "Disagreement",
    "Decision",
    "disagreements",
    "adjudicate",
    "decisions",
    "consensus",
    "export_jsonl",
    "export_zip",
]

_adjudications: Table = AdjudicationRow.__table__  # type: ignore[attr-defined]
MIN_RATERS = 2
"""Labels agree into a consensus only when at least this many raters gave them."""


@dataclass(frozen=True)
class Blind:
    """One label of a disagreement, without its rater."""

    label: str | int
    note: str | None


@dataclass(frozen=True)
class Disagreement:
    item: str
    criterion: str
    labels: list[Blind]


@dataclass(frozen=True)
class Decision:
    item: str
    criterion: str
    label: str | int
    decided_by: str
    reason: str
    decided_at: datetime


def _by_key(labels: list[StoredLabel]) -> dict[tuple[str, str], list[StoredLabel]]:
    out: dict[tuple[str, str], list[StoredLabel]] = {}
    for x in labels:
        out.setdefault((x.item, x.criterion), []).append(x)
    return out


def _disputed(group: list[StoredLabel]) -> bool:
    """Raters gave different labels, or every one of two or more said it could not tell."""
    values = {json.dumps(x.label) for x in group}
    return len(values) > 1 or (len(group) >= MIN_RATERS and values == {json.dumps(CANT_TELL)})


def decisions(engine: Engine, *, item: str | None = None) -> list[Decision]:
    query = select(AdjudicationRow).order_by(
        col(AdjudicationRow.item), col(AdjudicationRow.criterion)
    )
    if item is not None:
        query = query.where(col(AdjudicationRow.item) == item)
    with Session(engine) as session:
        rows = list(session.exec(query))
    return [
        Decision(
            r.item, r.criterion, decode_label(r.label), r.decided_by, r.reason, utc(r.created_at)
        )
        for r in rows
    ]


def disagreements(
    engine: Engine,
    *,
    item: str | None = None,
    include_decided: bool = False,
    for_adjudicator: str | None = None,
    by_id: bool = False,
) -> list[Disagreement]:
    """Items and criteria on which the raters' labels differ and nobody has decided yet (with
    `include_decided`, decided ones too). Labels come sorted by value, not by rater. With
    `for_adjudicator`, the disagreements that account took part in, and those on items whose
    judge's verdict it has read, are left out: nobody settles a dispute over its own label, nor
    one the judge's verdict would sway. `item`: an alias (`by_id`: or an id)."""
    if item is not None:
        try:
            item = resolve(engine, item, by_id=by_id)
        except NotFound:
            return []  # no such item: no disagreement
    decided = {(d.item, d.criterion) for d in decisions(engine, item=item)}
    swayed = set() if for_adjudicator is None else verdicts_read(engine, for_adjudicator)
    out = []
    labels = labels_of(engine, item=item, by_id=True)
    for (item_id, criterion), group in sorted(_by_key(labels).items()):
        if not _disputed(group) or ((item_id, criterion) in decided and not include_decided):
            continue
        if for_adjudicator is not None and any(x.rater == for_adjudicator for x in group):
            continue
        if item_id in swayed:
            continue
        blind = sorted(
            (Blind(x.label, x.note) for x in group),
            key=lambda b: (json.dumps(b.label), b.note or ""),
        )
        out.append(Disagreement(item_id, criterion, blind))
    return out


def adjudicate(
    engine: Engine,
    *,
    item: str,
    criterion: str,
    label: object,
    reason: str,
    by: str,
    by_id: bool = False,
) -> Decision:
    """Record the consensus label of a disagreement, who decided it and why. Its author may
    decide again (replacing its decision); another adjudicator gets Conflict, so the record
    of who saw the labels (and may no longer label the item) is never erased. An adjudicator
    who has read the judge's verdict on the item gets Conflict: its decision would not be
    blind to the judge. `item`: an alias (`by_id`: or an id)."""
    if not reason.strip() or text_problem(reason, "a reason"):
        why = f"give the reason for the decision (at most {MAX_TEXT} characters, no NUL)"
        raise InputError(BODY, why, field="reason")
    found = get_item(engine, item, by_id=by_id)  # messages name it as the caller did
    key, item = item, found.id
    judged = verdict_seen(engine, by, item)
    if judged is not None:
        where, when = judged
        raise Conflict(
            f"you read the judge's verdict on item '{key}' ({where}, {utc(when):%Y-%m-%d %H:%M} "
            "UTC): a decision from you would not be blind to the judge; another adjudicator "
            "decides"
        )
    _, rubric = stored_rubric(engine, found.rubric_hash)
    value = check_value(rubric, criterion, label, "")
    if value == CANT_TELL:
        raise InputError(
            BODY,
            f"a decision is a label of the scale, not '{CANT_TELL}'",
            field="label",
        )
    group = [x for x in labels_of(engine, item=item, by_id=True) if x.criterion == criterion]
    if not _disputed(group):
        raise Conflict(f"item '{key}' has no disagreement on '{criterion}' to adjudicate")
    if any(x.rater == by for x in group):
        raise Conflict(
            f"you labeled item '{key}' on '{criterion}' yourself: another adjudicator decides"
        )
    now = datetime.now(UTC)
    insert = pg_insert if engine.dialect.name == "postgresql" else sqlite_insert
    row = {
        "item": item,
        "criterion": criterion,
        "label": json.dumps(value),
        "decided_by": by,
        "reason": reason.strip(),
        "created_at": now,
    }
    statement = insert(_adjudications).values([row])
    statement = statement.on_conflict_do_update(
        index_elements=["item", "criterion"],
        set_={k: statement.excluded[k] for k in ("label", "reason", "created_at")},
        where=_adjudications.c.decided_by == by,
    )
    with engine.begin() as conn:
        if conn.execute(statement).rowcount == 0:
            raise Conflict(
                f"item '{key}' on '{criterion}' was decided by another adjudicator already"
            )
    return Decision(item, criterion, value, by, reason.strip(), now)


def _items_of(engine: Engine, queue: str | None) -> set[str] | None:
    if queue is None:
        return None
    with Session(engine) as session:
        return set(session.exec(select(ItemRow.id).where(col(ItemRow.queue) == queue)))


def consensus(engine: Engine, *, queue: str | None = None) -> list[Label]:
    """The consensus labels: the adjudicated ones (noting who decided and why), and those on
    which two or more raters agree (a unanimous "can't tell" is not a label)."""
    keep = _items_of(engine, queue)
    decided = {(d.item, d.criterion): d for d in decisions(engine)}
    out = []
    for (item_id, criterion), group in sorted(_by_key(labels_of(engine)).items()):
        if keep is not None and item_id not in keep:
            continue
        d = decided.get((item_id, criterion))
        if d is not None and _disputed(group):
            note = f"adjudicated by {d.decided_by}: {d.reason}"
            out.append(
                Label(item=item_id, rater=CONSENSUS, criterion=criterion, label=d.label, note=note)
            )
        elif len(group) >= MIN_RATERS and not _disputed(group):
            out.append(
                Label(item=item_id, rater=CONSENSUS, criterion=criterion, label=group[0].label)
            )
    return out


def _rater_labels(engine: Engine, rater: str, queue: str | None) -> list[Label]:
    keep = _items_of(engine, queue)
    return [
        Label(item=x.item, rater=x.rater, criterion=x.criterion, label=x.label, note=x.note)
        for x in labels_of(engine, rater=rater)
        if keep is None or x.item in keep
    ]


def _jsonl(labels: list[Label], names: Mapping[str, str] | None) -> str:
    if names is not None:  # each item by the name the reader knows it by, in that order
        labels = sorted(
            (x.model_copy(update={"item": names.get(x.item, x.item)}) for x in labels),
            key=lambda x: (x.item, x.criterion),
        )
    return "".join(x.model_dump_json(exclude_none=True) + "\n" for x in labels)


def export_jsonl(
    engine: Engine,
    rater: str,
    *,
    queue: str | None = None,
    names: Mapping[str, str] | None = None,
) -> str:
    """One rater's labels (or the consensus, for rater 'consensus') as gold-format JSONL.
    `names`: item id -> the name to give it (an expert's export names items by alias)."""
    labels = (
        consensus(engine, queue=queue)
        if rater == CONSENSUS
        else _rater_labels(engine, rater, queue)
    )
    return _jsonl(labels, names)


def export_zip(
    engine: Engine, *, queue: str | None = None, names: Mapping[str, str] | None = None
) -> bytes:
    """A zip of the gold `labels/` folder: `<rater>.jsonl` per rater and `consensus.jsonl`.
    A rater whose file would be no file, or the same file as another's, on some system the zip
    is unpacked on (a reserved or unportable name, or one equal to another but for case:
    `Consensus` beside `consensus`) is Conflict, naming the rater: nothing is exported."""
    files: dict[str, tuple[str, str]] = {}
    for rater in sorted({x.rater for x in labels_of(engine)}):
        text = export_jsonl(engine, rater, queue=queue, names=names)
        if text:
            files[f"{rater}.jsonl"] = (rater, text)
    _check_names([rater for rater, _ in files.values()])
    consensus_text = export_jsonl(engine, CONSENSUS, queue=queue, names=names)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, (_, text) in files.items():
            archive.writestr(f"labels/{name}", text)
        archive.writestr(f"labels/{CONSENSUS}.jsonl", consensus_text)
    return buffer.getvalue()


def _check_names(raters: list[str]) -> None:
    """Refuse a rater whose `labels/<rater>.jsonl` is not one file of its own everywhere."""
    alone = "export that rater's labels alone (GET /api/export/labels/{})"
    for rater in raters:
        if rater == CONSENSUS:
            raise Conflict(
                f"rater '{rater}' cannot be a file of the labels zip: labels/{CONSENSUS}.jsonl "
                f"is the consensus; {alone.format(rater)}"
            )
        problem = portable_problem(f"{rater}.jsonl")
        if problem is not None:
            raise Conflict(
                f"rater '{rater}' cannot be a file of the labels zip: '{rater}.jsonl' {problem}; "
                + alone.format(rater)
            )
    clash = case_clash([f"{CONSENSUS}.jsonl", *(f"{r}.jsonl" for r in raters)])
    if clash is not None:
        first, second = (name.removesuffix(".jsonl") for name in clash)
        who = (
            f"rater '{second}' cannot be a file"
            if first == CONSENSUS
            else f"raters '{first}' and '{second}' cannot both be files"
        )
        raise Conflict(
            f"{who} of the labels zip: labels/{second}.jsonl and labels/{first}.jsonl are one "
            f"file where case is not told apart (Windows, macOS); {alone.format(second)}"
        )
