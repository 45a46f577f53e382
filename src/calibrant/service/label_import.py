"""Labels made elsewhere, imported in the gold format (JSONL, or CSV with the same columns):
checked line by line against the items and their rubrics, then stored all or nothing."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from ..files import labels_from_text
from ..labels import unique_labels
from ..store.labeling import (
    CONSENSUS,
    check_value,
    label_row,
    stored_rubric,
    text_problem,
    upsert_labels,
)
from ..store.service_tables import ItemRow
from ..store.uploads import BODY, body_text
from ..store.users import NAME_RULE, valid_name

__all__ = ["import_labels"]


def import_labels(engine: Engine, body: bytes, *, csv_format: bool) -> dict[str, int]:
    """Store every label of the body (each rater's as given; a label already stored for the
    same item, rater and criterion is replaced). Returns counts of labels, raters and items."""
    located = labels_from_text(Path(BODY), body_text(body), csv_format=csv_format)
    unique_labels(located)
    items = {x.label.item for x in located}
    with Session(engine) as session:
        rows = session.exec(select(ItemRow).where(col(ItemRow.id).in_(sorted(items))))
        rubric_of = {row.id: row.rubric_hash for row in rows}
    rubrics = {h: stored_rubric(engine, h)[1] for h in set(rubric_of.values())}
    now = datetime.now(UTC)
    out = []
    for x in located:
        if x.label.rater == CONSENSUS:
            raise x.error(
                f"'{CONSENSUS}' labels come from adjudication in the service: import the "
                "raters' files, then adjudicate their disagreements",
                field="rater",
            )
        if not valid_name(x.label.rater):
            raise x.error(f"rater {x.label.rater!r}: use {NAME_RULE}", field="rater")
        if x.label.item not in rubric_of:
            raise x.error(
                f"item '{x.label.item}' is not uploaded (POST /api/transcripts)", field="item"
            )
        problem = None if x.label.note is None else text_problem(x.label.note, "a note")
        if problem:
            raise x.error(problem, field="note")
        rubric = rubrics[rubric_of[x.label.item]]
        value = check_value(rubric, x.label.criterion, x.label.label, "", line=x.line)
        out.append(
            label_row(x.label.item, x.label.rater, x.label.criterion, value, x.label.note, now)
        )
    with engine.begin() as conn:
        upsert_labels(conn, out)
    return {
        "labels": len(out),
        "raters": len({x.label.rater for x in located}),
        "items": len(items),
    }
