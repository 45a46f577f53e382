"""SQLModel tables of the controlled refund service (one fresh SQLite file per trial): the
refund shop's records, beside the engine's own tables (clock, tenants, grants, audit log,
notification sink), which are re-exported here."""

from __future__ import annotations

from typing import Any

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel

from calibrant.engine.tables import (
    AcceptedRow,
    AttemptRow,
    AuditRow,
    Meta,
    PermissionRow,
    TenantRow,
)

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


class PolicyRow(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("tenant_id", "policy_id", name="uq_policy"),)

    row_id: int | None = Field(default=None, primary_key=True)
    policy_id: str
    tenant_id: str = Field(index=True)
    title: str
    text: str
    refundable_statuses: str  # space-separated
    approval_threshold_minor_units: int | None = None


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
