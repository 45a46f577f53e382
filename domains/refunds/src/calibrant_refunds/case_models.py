"""The refund shop's case models: its fixture (`Fixture`, with the refunds already committed),
its acceptable outcomes (`ExpectedOutcome`, `ExpectedRefund`, checked against a trial's end by
`mismatches`) and its fault points.

A refunds case file spells its `fixture` and `expected` in these models (the seed's YAML schema,
as it always did); the core's `CaseContract` holds them as the pack's form declares
(`form.FORM.case_fixture`, `case_outcome`), and `refunds_fixture` reads one back typed."""

from __future__ import annotations

from collections import Counter
from typing import Literal

from pydantic import Field

from calibrant.contracts import CaseContract, Contract
from calibrant.contracts.common import Id, MinorUnits
from calibrant.domains import CaseFocus, TrialEnd
from calibrant.domains.records import Entry

from .records import TicketState

__all__ = [
    "FAULT_POINTS",
    "FaultPoint",
    "TicketState",
    "PriorRefund",
    "Fixture",
    "ExpectedRefund",
    "ExpectedOutcome",
    "mismatches",
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


def mismatches(want: ExpectedOutcome, end: TrialEnd) -> list[str]:
    """What keeps a trial's end from one acceptable outcome (`FileForm.outcome_mismatches`),
    one line each (empty: it matches), read by the pack's roles: the refunds are its first
    effect, the ticket its work item."""
    pack, effects, item = end.pack, end.effects, end.item
    spec, wi = pack.effects[0], pack.work_item
    assert wi is not None
    kind = spec.kind
    out: list[str] = []
    if want.refund_count is not None and len(effects) != want.refund_count:
        out.append(f"{len(effects)} {kind}(s) committed, contract wants {want.refund_count}")
    total = sum(_int(e, spec.amount) for e in effects)
    if want.refund_total_minor_units is not None and total != want.refund_total_minor_units:
        out.append(f"{kind} total {total}, contract wants {want.refund_total_minor_units}")
    if want.refunds is not None:
        got = Counter((str(e.value(spec.subject)), _int(e, spec.amount)) for e in effects)
        exp = Counter((x.order, x.amount_minor_units) for x in want.refunds)
        if got != exp:
            out.append(f"{kind}s {sorted(got.elements())} differ from {sorted(exp.elements())}")
        pinned = {x.operation_id for x in want.refunds if x.operation_id}
        ops = {op for e in effects for op in e.operation_ids}
        if pinned and not pinned <= ops:
            out.append(f"operation id(s) {sorted(pinned - ops)} not in the records")
    state = _str(item, wi.state)
    states = want.ticket_states()
    if states is not None and state not in states:
        out.append(f"{item.kind} {item.id} is {state}, contract wants {'/'.join(states)}")
    if want.ticket_assignee is not None:
        got_kind = _str(item, wi.assignee_kind) if _str(item, wi.assignee) else "unassigned"
        if got_kind != want.ticket_assignee:
            out.append(f"{item.kind} held by {got_kind}, contract wants {want.ticket_assignee}")
    reconciliation = _str(item, wi.reconciliation)
    if want.reconciliation is not None and reconciliation != want.reconciliation:
        out.append(
            f"{item.kind} reconciliation is {reconciliation}, contract wants {want.reconciliation}"
        )
    if want.approval_requested is not None and end.requested != want.approval_requested:
        out.append("a review request " + ("is missing" if want.approval_requested else "exists"))
    return out


def _int(e: Entry, name: str | None) -> int:
    value = e.value(name) if name is not None else None
    return value if isinstance(value, int) else 0


def _str(e: Entry, name: str | None) -> str | None:
    value = e.value(name) if name is not None else None
    return None if value is None else str(value)


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
