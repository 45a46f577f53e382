"""The engine's own tables, present in every controlled service whatever its domain: the
logical clock (Meta), tenants, grants, the audit log and the notification sink.

A pack adds its record tables beside these (each with a `tenant_id` column). The class names
are the table names in the SQLite file, so they stay as the first pack's service named them."""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, Column, UniqueConstraint
from sqlmodel import Field, SQLModel

__all__ = [
    "Meta",
    "TenantRow",
    "PermissionRow",
    "AuditRow",
    "AttemptRow",
    "AcceptedRow",
    "ENGINE_TABLES",
]


class Meta(SQLModel, table=True):
    """Key/value settings of the trial database: logical clock (`seq`), dataset version."""

    key: str = Field(primary_key=True)
    value: str


class TenantRow(SQLModel, table=True):
    tenant_id: str = Field(primary_key=True)
    name: str


class PermissionRow(SQLModel, table=True):
    """A grant: the scopes a principal holds in one tenant, until it expires or is revoked."""

    permission_id: str = Field(primary_key=True)
    tenant_id: str = Field(index=True)
    principal: str
    scopes: str  # space-separated
    expires_offset_s: int | None = None  # seconds from the service's base time
    revoked_seq: int | None = None  # the logical instant of its revocation


class AuditRow(SQLModel, table=True):
    event_id: str = Field(primary_key=True)
    tenant_id: str = Field(index=True)
    seq: int
    actor: str
    action: str
    record_kind: str
    record_id: str
    operation_id: str | None = None
    call_id: str | None = None
    version_after: int | None = None


class AttemptRow(SQLModel, table=True):
    """One attempt to send a message. `details`: what the pack attaches to a message (the record
    it is about, the amount it states...), as JSON scalars."""

    attempt_id: str = Field(primary_key=True)
    seq: int
    call_id: str | None = None
    tenant_id: str
    idempotency_key: str
    recipient: str
    kind: str
    subject: str = ""
    body: str
    result: str
    details: dict[str, str | int | None] = Field(default_factory=dict, sa_column=Column(JSON))


class AcceptedRow(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("tenant_id", "idempotency_key", name="uq_accepted_key"),)

    message_id: str = Field(primary_key=True)
    attempt_id: str
    tenant_id: str
    idempotency_key: str
    seq: int


ENGINE_TABLES: list[Any] = [Meta, TenantRow, PermissionRow, AuditRow, AttemptRow, AcceptedRow]
