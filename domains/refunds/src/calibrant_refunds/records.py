"""The refund shop's records as the independent evaluator sees them (its ledger snapshots).

These mirror the controlled refund service's tables, but they are plain data: a snapshot is what
the evaluator identity read from the service before and after a trial, never what the agent's tools
told the agent. A transcript holds them in memory as calibrant's generic `DomainSnapshot`
(records by kind); the refund shop's files spell them as `LedgerSnapshot` (`form.py`), and
`ledger()` reads a generic snapshot back into this model.
"""

from __future__ import annotations

from typing import Literal

from pydantic import AwareDatetime, Field

from calibrant.contracts import Contract
from calibrant.contracts.common import Id, MinorUnits

__all__ = [
    "RecordKind",
    "TicketState",
    "Customer",
    "Order",
    "Refund",
    "Ticket",
    "AuditEvent",
    "Approval",
    "Permission",
    "PolicyDocument",
    "TenantSnapshot",
    "LedgerSnapshot",
    "RECORD_KINDS",
    "LISTS",
    "ACTIONABLE_TICKET_STATES",
]

RecordKind = Literal[
    "customer", "order", "refund", "ticket", "approval", "policy", "permission", "audit"
]
RECORD_KINDS: tuple[str, ...] = RecordKind.__args__  # type: ignore[attr-defined]
"""The refund shop's record kinds: what a refunds transcript's reads and writes may name."""
TicketState = Literal["open", "pending_review", "resolved", "escalated"]
ACTIONABLE_TICKET_STATES: frozenset[str] = frozenset({"open", "pending_review", "escalated"})
"""Ticket states in which a person can still act on the request."""


class Customer(Contract):
    """A customer of one tenant."""

    customer_id: Id = Field(description="Stable customer id, unique across tenants.")
    tenant_id: Id = Field(description="Tenant that owns this customer.")
    name: str = Field(min_length=1, description="Full name (protected value).")
    email: str = Field(min_length=3, description="Email address (protected value).")


class Order(Contract):
    """An order, with the optimistic-concurrency version every write must name."""

    order_id: Id = Field(description="Stable order id, unique across tenants (protected value).")
    tenant_id: Id = Field(description="Tenant that owns this order.")
    customer_id: Id = Field(description="Customer who placed the order.")
    paid_minor_units: MinorUnits = Field(description="Amount paid, in minor units.")
    currency: str = Field(
        default="EUR", pattern=r"^[A-Z]{3}$", description="ISO 4217 currency code."
    )
    status: str = Field(
        min_length=1,
        description="Fulfilment status, e.g. delivered_damaged, replacement_shipped.",
    )
    version: int = Field(ge=1, strict=True, description="Row version; bumped by every change.")
    customer_note: str | None = Field(
        default=None,
        description="Free text the customer attached to the order. Customer data, never policy.",
    )


class Refund(Contract):
    """A committed refund in the payment ledger."""

    refund_id: Id = Field(description="Ledger-generated refund id.")
    tenant_id: Id = Field(description="Tenant whose ledger holds the refund.")
    operation_id: Id = Field(description="Stable operation id; the ledger is idempotent by it.")
    order_id: Id = Field(description="Order refunded.")
    amount_minor_units: MinorUnits = Field(description="Amount refunded, in minor units.")
    committed_at: AwareDatetime = Field(description="Commit time (UTC).")
    committed_seq: int = Field(ge=0, description="Logical clock of the trial at commit.")
    committed_by: Id = Field(description="Principal whose write committed the refund.")
    call_id: Id | None = Field(
        default=None, description="Tool call that committed it; null for fixture refunds."
    )
    policy_version: Id | None = Field(default=None, description="Policy the refund cited.")


class Ticket(Contract):
    """A support ticket (the customer's request)."""

    ticket_id: Id = Field(description="Stable ticket id.")
    tenant_id: Id = Field(description="Tenant that owns the ticket.")
    customer_id: Id = Field(description="Customer who opened it.")
    order_id: Id | None = Field(default=None, description="Order the ticket is about.")
    state: TicketState = Field(description="open, pending_review, resolved or escalated.")
    assignee: Id | None = Field(default=None, description="Who holds the ticket now.")
    assignee_kind: Literal["person", "agent"] | None = Field(
        default=None, description="Whether the assignee is a person or an agent."
    )
    reconciliation: Literal["none", "uncertain", "reconciled"] = Field(
        default="none",
        description="'uncertain' when a payment outcome could not be established.",
    )
    version: int = Field(ge=1, strict=True, description="Row version.")


class AuditEvent(Contract):
    """One entry of the service's audit log."""

    event_id: Id = Field(description="Audit event id.")
    tenant_id: Id = Field(description="Tenant the event belongs to.")
    seq: int = Field(ge=0, description="Logical clock of the trial when the event happened.")
    at: AwareDatetime = Field(description="Time (UTC).")
    actor: Id = Field(description="Principal that caused the event (agent, staff, system).")
    action: str = Field(min_length=1, description="What happened, e.g. refund.committed.")
    record_kind: RecordKind = Field(description="Kind of record touched.")
    record_id: Id = Field(description="Record touched.")
    operation_id: Id | None = Field(default=None, description="Operation id, for payments.")
    call_id: Id | None = Field(default=None, description="Tool call behind it, if any.")
    version_after: int | None = Field(default=None, description="Record version afterwards.")


class Approval(Contract):
    """A review request and, once a person decides, its decision."""

    approval_id: Id = Field(description="Approval id.")
    tenant_id: Id = Field(description="Tenant.")
    order_id: Id = Field(description="Order the refund is for.")
    ticket_id: Id | None = Field(default=None, description="Ticket the request came from.")
    amount_minor_units: MinorUnits = Field(description="Refund amount put up for review.")
    requested_by: Id = Field(description="Principal that asked for review.")
    requested_seq: int = Field(ge=0, description="Logical clock at the request.")
    status: Literal["pending", "approved", "rejected"] = Field(description="Decision state.")
    decided_by: Id | None = Field(default=None, description="Person who decided.")
    decided_seq: int | None = Field(default=None, description="Logical clock at the decision.")


class Permission(Contract):
    """A grant of scopes to a principal within one tenant."""

    permission_id: Id = Field(description="Grant id.")
    tenant_id: Id = Field(description="Tenant the grant is valid in.")
    principal: Id = Field(description="Who holds it.")
    scopes: list[str] = Field(description="Scopes, e.g. refund:write, ticket:write, order:read.")
    expires_at: AwareDatetime | None = Field(default=None, description="Expiry (UTC), if any.")
    revoked_seq: int | None = Field(
        default=None, description="Logical clock at revocation, if revoked."
    )


class PolicyDocument(Contract):
    """A versioned refund policy document."""

    policy_id: Id = Field(description="Policy version id, e.g. refund_v3.")
    tenant_id: Id = Field(description="Tenant the policy governs.")
    title: str = Field(description="Title.")
    text: str = Field(description="Full policy text.")
    refundable_statuses: list[str] = Field(
        description="Order statuses for which a refund is allowed."
    )
    approval_threshold_minor_units: MinorUnits | None = Field(
        default=None,
        description="Refunds strictly above this amount need a person's approval; null: never.",
    )


class TenantSnapshot(Contract):
    """Every record of one tenant at one moment."""

    tenant_id: Id = Field(description="Tenant id.")
    name: str = Field(description="Display name.")
    customers: list[Customer] = Field(default_factory=list, description="Customers.")
    orders: list[Order] = Field(default_factory=list, description="Orders.")
    refunds: list[Refund] = Field(default_factory=list, description="Committed refunds.")
    tickets: list[Ticket] = Field(default_factory=list, description="Tickets.")
    approvals: list[Approval] = Field(default_factory=list, description="Approvals.")
    permissions: list[Permission] = Field(default_factory=list, description="Permissions.")
    policies: list[PolicyDocument] = Field(default_factory=list, description="Policies.")
    audit_log: list[AuditEvent] = Field(default_factory=list, description="Audit log.")


class LedgerSnapshot(Contract):
    """The service's state for all tenants, read by an independent evaluator identity."""

    taken_by: Id = Field(
        description="Evaluator principal that read the snapshot; never the agent's identity."
    )
    seq: int = Field(ge=0, description="Logical clock of the trial when it was taken.")
    taken_at: AwareDatetime = Field(description="Time (UTC).")
    tenants: list[TenantSnapshot] = Field(description="One entry per tenant, both tenants.")

    def tenant(self, tenant_id: str) -> TenantSnapshot | None:
        """The snapshot of one tenant, or None."""
        for t in self.tenants:
            if t.tenant_id == tenant_id:
                return t
        return None


LISTS: tuple[tuple[str, str], ...] = (
    ("customers", "customer"),
    ("orders", "order"),
    ("refunds", "refund"),
    ("tickets", "ticket"),
    ("approvals", "approval"),
    ("permissions", "permission"),
    ("policies", "policy"),
    ("audit_log", "audit"),
)
"""(TenantSnapshot's list, the record kind it holds), in the model's field order."""
