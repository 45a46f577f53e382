"""A refunds case drafted from a transcript (`calibrant case from-transcript`): its starting
state, and the fault points a lost answer stands for (`calibrant.domains.CaseDraft`).

The core drafts the rest by the pack's roles (the fault schedule, the customer's messages, what
the trial ended with); the starting state is the refund shop's `Fixture`: the transcript's own
case's, or one read from the evaluator's 'before' snapshot (the ticket's order, what was paid
and refunded for it, the agent's write permission)."""

from __future__ import annotations

from collections.abc import Callable

from calibrant.contracts import Transcript
from calibrant.domains import CaseDraft

from .case_models import Fixture, PriorRefund, refunds_fixture
from .form import tenant

__all__ = ["DRAFT", "LOST", "draft_fixture"]

LOST: dict[tuple[str, str], str] = {
    ("timeout", "create_refund"): "timeout_after_payment_commit",
    ("crash", "create_refund"): "crash_after_refund_commit",
    ("crash", "send_notification"): "crash_after_notification_accept",
}
"""(a call's outcome, its tool) -> the fault point a lost answer with no fault event (a
production log) stands for."""


def draft_fixture(t: Transcript, redact: Callable[[str], str]) -> Fixture:
    """The starting state of a case drafted from `t`, its customer's note redacted; a
    ValueError (one line) when it cannot be read."""
    if t.case is not None:
        fx = refunds_fixture(t.case)
        note = None if fx.customer_note is None else redact(fx.customer_note)
        return fx.model_copy(update={"customer_note": note})
    before = tenant(t.snapshot_before, t.acting_tenant)
    if before is None:
        raise ValueError("no case and no 'before' snapshot: the starting state is unknown")
    ticket = next((k for k in before.tickets if k.order_id), None)
    order = next((o for o in before.orders if ticket and o.order_id == ticket.order_id), None)
    if ticket is None or order is None:
        raise ValueError("the 'before' snapshot has no ticket about an order")
    grants = [p for p in before.permissions if p.principal == t.agent_principal]
    writable = [p for p in grants if "refund:write" in p.scopes]
    permission = "active"
    if writable and all(p.revoked_seq is not None for p in writable):
        permission = "revoked"
    return Fixture(
        tenant=t.acting_tenant,
        order=order.order_id,
        paid_minor_units=order.paid_minor_units,
        prior_refunds=[
            PriorRefund(operation_id=x.operation_id, amount_minor_units=x.amount_minor_units)
            for x in before.refunds
            if x.order_id == order.order_id
        ],
        policy_version=t.provenance.policy_version,
        customer=order.customer_id,
        ticket=ticket.ticket_id,
        order_status=order.status,
        write_permission=permission,
        customer_note=None if order.customer_note is None else redact(order.customer_note),
    )


DRAFT = CaseDraft(fixture=draft_fixture, lost=LOST)
"""How a refunds case is drafted from a transcript (`DomainPack.case_draft`)."""
