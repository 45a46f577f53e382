"""The refund shop's case models: its fixture (`Fixture`, with the refunds already committed),
its acceptable outcomes (`ExpectedOutcome`, `ExpectedRefund`) and its fault points.

A refunds case file spells its `fixture` and `expected` in these models (the seed's YAML schema,
as it always did); the core's `CaseContract` holds them as the pack's form declares
(`form.FORM.case_fixture`, `case_outcome`), and `refunds_fixture` reads one back typed."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from calibrant.contracts import CaseContract, Contract
from calibrant.contracts.common import Id, MinorUnits
from calibrant.domains import CaseFocus

from .records import TicketState

__all__ = [
    "FAULT_POINTS",
    "FaultPoint",
    "TicketState",
    "PriorRefund",
    "Fixture",
    "ExpectedRefund",
    "ExpectedOutcome",
    "refunds_fixture",
    "outcomes",
    "case_focus",
]

FaultPoint = Literal[
    "timeout_after_payment_commit",
    "crash_after_refund_commit",
    "crash_after_notification_accept",
    "order_version_change",
    "permission_revoked",
    "reconciliation_unavailable",
    "broken_tenant_guard",
]
FAULT_POINTS: tuple[str, ...] = FaultPoint.__args__  # type: ignore[attr-defined]


class PriorRefund(Contract):
    """A refund already in the ledger when the trial starts."""

    operation_id: Id = Field(description="Its operation id.")
    amount_minor_units: MinorUnits = Field(description="Amount, in minor units.")


class Fixture(Contract):
    """The starting data the trial is seeded with (on top of the versioned two-tenant dataset)."""

    tenant: Id = Field(description="Tenant the agent acts for, e.g. tenant_a.")
    order: Id = Field(description="Order the customer asks about, e.g. order_17.")
    paid_minor_units: MinorUnits = Field(description="Amount paid for the order, minor units.")
    prior_refunds: list[PriorRefund] = Field(
        default_factory=list, description="Refunds already committed for the order."
    )
    policy_version: Id = Field(description="Refund policy in force, e.g. refund_v3.")
    dataset: Id = Field(
        default="two_tenants_v1", description="Versioned base dataset both tenants come from."
    )
    customer: Id | None = Field(default=None, description="Customer; default: the order's owner.")
    ticket: Id | None = Field(default=None, description="Ticket id; default: generated.")
    order_status: str = Field(default="delivered_damaged", description="Order status at the start.")
    approval_required: bool = Field(
        default=False, description="A person must approve the refund before it is paid."
    )
    write_permission: Literal["active", "expired", "revoked"] = Field(
        default="active", description="State of the agent's write permission at the start."
    )
    customer_note: str | None = Field(
        default=None, description="Customer note on the order (customer data, never policy)."
    )


class ExpectedRefund(Contract):
    """One refund an acceptable outcome requires."""

    order: Id = Field(description="Order refunded.")
    amount_minor_units: MinorUnits = Field(description="Amount, minor units.")
    operation_id: Id | None = Field(
        default=None, description="Required operation id; null: any stable id."
    )


class ExpectedOutcome(Contract):
    """One acceptable end state. Unset fields are not compared."""

    name: str | None = Field(default=None, description="Short name, e.g. refunded, escalated.")
    refund_count: int | None = Field(
        default=None, ge=0, description="Refunds committed during the trial."
    )
    refund_total_minor_units: MinorUnits | None = Field(
        default=None, description="Sum of refunds committed during the trial."
    )
    refunds: list[ExpectedRefund] | None = Field(
        default=None, description="Exact refunds committed during the trial (order, amount, op)."
    )
    ticket_state: TicketState | list[TicketState] | None = Field(
        default=None, description="Required ticket state, or a list of acceptable states."
    )
    ticket_assignee: Literal["person", "agent", "unassigned"] | None = Field(
        default=None, description="Who must hold the ticket at the end."
    )
    reconciliation: Literal["none", "uncertain", "reconciled"] | None = Field(
        default=None, description="Required reconciliation status of the ticket."
    )
    approval_requested: bool | None = Field(
        default=None, description="Whether a review request must exist."
    )

    def ticket_states(self) -> list[str] | None:
        """The acceptable ticket states as a list, or None when not constrained."""
        if self.ticket_state is None:
            return None
        if isinstance(self.ticket_state, list):
            return list(self.ticket_state)
        return [self.ticket_state]


def refunds_fixture(case: CaseContract) -> Fixture:
    """The refund shop's fixture of a case (what its harness and invariants read); a case of
    another domain has none (ValueError)."""
    if not isinstance(case.fixture, Fixture):
        raise ValueError(
            f"case '{case.case}' is domain '{case.domain}': it has no refund shop fixture"
        )
    return case.fixture


def outcomes(case: CaseContract) -> list[ExpectedOutcome]:
    """The refund shop's acceptable end states of a case, always as a list (empty while
    `expected` is unconfirmed, and for a case of another domain)."""
    return [e for e in case.acceptable_outcomes() if isinstance(e, ExpectedOutcome)]


def case_focus(case: CaseContract) -> CaseFocus:
    """What a refunds case says about the order its trial is about (`DomainPack.case_focus`):
    the order, whether a person must approve first, the policy, the ticket and the refund
    totals its outcomes allow."""
    fx = refunds_fixture(case)
    return CaseFocus(
        fx.order, fx.approval_required, fx.policy_version, fx.ticket, _allowed_totals(case)
    )


def _allowed_totals(case: CaseContract) -> frozenset[int] | None:
    """The refund totals a case's acceptable outcomes allow (None: no confirmed outcome, or one
    that leaves the amount open)."""
    if case.expected is None:
        return None
    totals: set[int] = set()
    for want in outcomes(case):
        if want.refund_total_minor_units is not None:
            totals.add(want.refund_total_minor_units)
        elif want.refunds is not None:
            totals.add(sum(e.amount_minor_units for e in want.refunds))
        else:
            return None
    return frozenset(totals)
