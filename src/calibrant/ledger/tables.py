"""SQLModel tables of the controlled refund service (one fresh SQLite file per trial)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel

__all__ = [
    "Meta",
    "TenantRow",
    "CustomerRow",
    "OrderRow",
    "RefundRow",
    "TicketRow",
    "AuditRow",
    "ApprovalRow",
    "PermissionRow",
    "PolicyRow",
    "AttemptRow",
    "AcceptedRow",
    "LEDGER_TABLES",
]


class Meta(SQLModel, table=True):
    """Key/value settings of the trial database: logical clock, dataset version, base time."""

    key: str = Field(primary_key=True)
    value: str


class TenantRow(SQLModel, table=True):
    tenant_id: str = Field(primary_key=True)
    name: str


class CustomerRow(SQLModel, table=True):
    customer_id: str = Field(primary_key=True)
    tenant_id: str = Field(index=True)
    name: str
    email: str


class OrderRow(SQLModel, table=True):
    order_id: str = Field(primary_key=True)
    tenant_id: str = Field(index=True)
    customer_id: str
    paid_minor_units: int
    currency: str = "EUR"
    status: str
    version: int = 1
    customer_note: str | None = None


class RefundRow(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("tenant_id", "operation_id", name="uq_refund_operation"),)

    refund_id: str = Field(primary_key=True)
    tenant_id: str = Field(index=True)
    operation_id: str
    order_id: str
    amount_minor_units: int
    committed_seq: int
    committed_by: str
    call_id: str | None = None
    policy_version: str | None = None


class TicketRow(SQLModel, table=True):
    ticket_id: str = Field(primary_key=True)
    tenant_id: str = Field(index=True)
    customer_id: str
    order_id: str | None = None
    state: str = "open"
    assignee: str | None = None
    assignee_kind: str | None = None
    reconciliation: str = "none"
    version: int = 1


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


class ApprovalRow(SQLModel, table=True):
    approval_id: str = Field(primary_key=True)
    tenant_id: str = Field(index=True)
    order_id: str
    ticket_id: str | None = None
    amount_minor_units: int
    requested_by: str
    requested_seq: int
    status: str = "pending"
    decided_by: str | None = None
    decided_seq: int | None = None


class PermissionRow(SQLModel, table=True):
    permission_id: str = Field(primary_key=True)
    tenant_id: str = Field(index=True)
    principal: str
    scopes: str  # space-separated
    expires_offset_s: int | None = None  # seconds from the trial's base time
    revoked_seq: int | None = None


class PolicyRow(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("tenant_id", "policy_id", name="uq_policy"),)

    row_id: int | None = Field(default=None, primary_key=True)
    policy_id: str
    tenant_id: str = Field(index=True)
    title: str
    text: str
    refundable_statuses: str  # space-separated
    approval_threshold_minor_units: int | None = None


class AttemptRow(SQLModel, table=True):
    attempt_id: str = Field(primary_key=True)
    seq: int
    call_id: str | None = None
    tenant_id: str
    idempotency_key: str
    recipient: str
    kind: str
    order_id: str | None = None
    amount_minor_units: int | None = None
    subject: str = ""
    body: str
    result: str


class AcceptedRow(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("tenant_id", "idempotency_key", name="uq_accepted_key"),)

    message_id: str = Field(primary_key=True)
    attempt_id: str
    tenant_id: str
    idempotency_key: str
    seq: int


LEDGER_TABLES: list[Any] = [
    Meta,
    TenantRow,
    CustomerRow,
    OrderRow,
    RefundRow,
    TicketRow,
    AuditRow,
    ApprovalRow,
    PermissionRow,
    PolicyRow,
    AttemptRow,
    AcceptedRow,
]
