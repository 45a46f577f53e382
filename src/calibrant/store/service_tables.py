"""The service's tables (store schema 6): accounts and their workbench sessions, transcripts
uploaded for labeling, expert labels, who has seen other experts' labels or the judge's
verdict on an item, adjudications, rubrics and judge versions kept in the store, and
background jobs.

They live in the same store as judgments and runs, so the CLI and the service see one history."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel

__all__ = [
    "UserRow",
    "SessionRow",
    "ItemRow",
    "LabelRow",
    "LabelViewRow",
    "VerdictViewRow",
    "AdjudicationRow",
    "RubricRow",
    "JudgeRow",
    "JobRow",
    "SERVICE_TABLES",
]


class UserRow(SQLModel, table=True):
    """An expert or an API client. Only the SHA-256 of its token is kept: a stolen store does
    not hand out working tokens."""

    __tablename__ = "calibrant_users"

    name: str = Field(primary_key=True)
    role: str  # annotator, adjudicator, admin
    token_hash: str = Field(index=True, unique=True)
    created_at: datetime
    disabled: bool = False


class SessionRow(SQLModel, table=True):
    """A workbench session (schema 5): made at login, ended at logout or expiry. Only the
    SHA-256 of the cookie's value is kept; the CSRF token is the session's own."""

    __tablename__ = "calibrant_sessions"

    id_hash: str = Field(primary_key=True)
    user_name: str = Field(index=True)
    csrf: str
    created_at: datetime
    expires_at: datetime


class ItemRow(SQLModel, table=True):
    """A transcript uploaded for labeling: its id is the transcript id (admins only); experts
    see its opaque `alias` (schema 5), which names no agent, case or run."""

    __tablename__ = "calibrant_items"

    id: str = Field(primary_key=True)
    alias: str | None = Field(default=None, index=True, unique=True)
    transcript_hash: str = Field(index=True)
    payload: str  # the Transcript, as JSON
    queue: str = Field(default="calibration", index=True)  # the labeling sample it belongs to
    rubric_hash: str  # the rubric (a calibrant_rubrics row) its criteria come from
    uploaded_by: str
    created_at: datetime


class LabelRow(SQLModel, table=True):
    """One expert's label of one item on one criterion; a rater may revise its own label."""

    __tablename__ = "calibrant_labels"
    __table_args__ = (UniqueConstraint("item", "rater", "criterion", name="uq_label_identity"),)

    id: int | None = Field(default=None, primary_key=True)
    item: str = Field(index=True)
    rater: str = Field(index=True)
    criterion: str
    label: str  # JSON: a level (string or integer), "not_applicable" or "cant_tell"
    note: str | None = None
    created_at: datetime


class LabelViewRow(SQLModel, table=True):
    """An expert saw other experts' labels of an item (by any page or route that shows them):
    from then on its own label of that item would not be blind, and is refused."""

    __tablename__ = "calibrant_label_views"

    item: str = Field(primary_key=True)
    viewer: str = Field(primary_key=True)
    first_seen_at: datetime


class VerdictViewRow(SQLModel, table=True):
    """An account read the judge's verdict on an item (schema 6): a run's report, or the
    agreement over time, that names it. From then on its label or its decision on that item
    would not be blind to the judge, and is refused."""

    __tablename__ = "calibrant_verdict_views"

    item: str = Field(primary_key=True)
    viewer: str = Field(primary_key=True)
    source: str  # what it read first: "run <id>" or "the agreement over time"
    first_seen_at: datetime


class AdjudicationRow(SQLModel, table=True):
    """The consensus label of a disagreement: who decided, and why."""

    __tablename__ = "calibrant_adjudications"

    item: str = Field(primary_key=True)
    criterion: str = Field(primary_key=True)
    label: str  # JSON, as in LabelRow
    decided_by: str
    reason: str
    created_at: datetime


class RubricRow(SQLModel, table=True):
    """A rubric version kept in the store (content-addressed: the hash of its canonical JSON)."""

    __tablename__ = "calibrant_rubrics"

    content_hash: str = Field(primary_key=True)
    rubric_id: str = Field(index=True)
    version: str
    body: str  # the rubric, as YAML text
    created_by: str
    created_at: datetime


class JudgeRow(SQLModel, table=True):
    """A judge version kept in the store: a name and its configuration (content-addressed)."""

    __tablename__ = "calibrant_judges"

    hash: str = Field(primary_key=True)
    name: str = Field(index=True)
    body: str  # the saved judge configuration, as YAML text
    created_by: str
    created_at: datetime


class JobRow(SQLModel, table=True):
    """A background job started through the service (judge run, calibration, scoring batch,
    comparison): what was asked, by whom, its state, and the run it produced."""

    __tablename__ = "calibrant_jobs"

    id: str = Field(primary_key=True)
    kind: str = Field(index=True)
    status: str = Field(index=True)  # queued, running, finished, failed, cancelled
    params: str  # JSON
    created_by: str
    created_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None
    run_id: str | None = None
    error: str | None = None


SERVICE_TABLES = [
    UserRow.__table__,  # type: ignore[attr-defined]
    SessionRow.__table__,  # type: ignore[attr-defined]
    ItemRow.__table__,  # type: ignore[attr-defined]
    LabelRow.__table__,  # type: ignore[attr-defined]
    LabelViewRow.__table__,  # type: ignore[attr-defined]
    VerdictViewRow.__table__,  # type: ignore[attr-defined]
    AdjudicationRow.__table__,  # type: ignore[attr-defined]
    RubricRow.__table__,  # type: ignore[attr-defined]
    JudgeRow.__table__,  # type: ignore[attr-defined]
    JobRow.__table__,  # type: ignore[attr-defined]
]
