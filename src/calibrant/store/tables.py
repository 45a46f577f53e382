"""The store's tables (schema version 2: claims and sources added to version 1)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel

__all__ = ["StoreMeta", "JudgmentRow", "ClaimRow", "SourceRow", "TABLES"]


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


class SourceRow(SQLModel, table=True):
    """A transcript file already read (schema 2): the SHA-256 of its bytes, under the code that
    read and checked it (`reader`: a fingerprint of calibrant's contracts and safety checker),
    gives its content hash and its safety summary without parsing or checking it again."""

    __tablename__ = "calibrant_sources"

    file_sha256: str = Field(primary_key=True)
    reader: str = Field(primary_key=True)
    transcript_hash: str
    transcript_id: str
    safety: str  # the safety summary the judge report shows, as JSON


TABLES = [
    StoreMeta.__table__,  # type: ignore[attr-defined]
    JudgmentRow.__table__,  # type: ignore[attr-defined]
    ClaimRow.__table__,  # type: ignore[attr-defined]
    SourceRow.__table__,  # type: ignore[attr-defined]
]
