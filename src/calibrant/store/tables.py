"""The store's tables (schema version 2)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel

__all__ = ["StoreMeta", "JudgmentRow", "ClaimRow", "TABLES"]


class StoreMeta(SQLModel, table=True):
    __tablename__ = "calibrant_meta"

    key: str = Field(primary_key=True)
    value: str


class JudgmentRow(SQLModel, table=True):
    __tablename__ = "calibrant_judgments"
    __table_args__ = (
        UniqueConstraint(
            "transcript_hash", "judge_hash", "sample_index", name="uq_judgment_identity"
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    transcript_hash: str = Field(index=True)
    judge_hash: str = Field(index=True)
    sample_index: int
    transcript_id: str
    outcome: str
    created_at: datetime
    payload: str  # the Judgment, as JSON


class ClaimRow(SQLModel, table=True):
    """An item a process is asking the model about right now (schema 2). A claim is a lease:
    its owner renews it while working; once `expires_at` (Unix seconds) has passed, or its owner
    is a process of this host that no longer exists, another process may take it."""

    __tablename__ = "calibrant_claims"

    transcript_hash: str = Field(primary_key=True)
    judge_hash: str = Field(primary_key=True)
    sample_index: int = Field(primary_key=True)
    owner: str = Field(index=True)  # host:pid:random
    expires_at: float


TABLES = [StoreMeta.__table__, JudgmentRow.__table__, ClaimRow.__table__]  # type: ignore[attr-defined]
