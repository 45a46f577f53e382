"""What the labeling store hands back: an item (its alias for experts, its transcript id for
admins), a stored label, a rater's queue status and place in it, the errors a request can meet,
and the rubric an item is labeled against, read from the store."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime

import yaml
from sqlalchemy import Engine, Table
from sqlmodel import Session, col, select

from ..contracts import Rubric, Transcript
from ..errors import CalibrantError, ConfigError
from .service_tables import LabelRow, RubricRow

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
