"""Write operations: each runs once the engine has checked its scope (see tools.py), commits,
and reports the writes it made."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from calibrant.contracts import CommittedWrite, RecordRef
from calibrant.engine import check_version, prior_effect, send

from .oplib import Fail, get_order, get_ticket, ok, positive_amount, record_created
from .reads import refund_view
from .service import Caller, Handled, RefundService
from .tables import ApprovalRow, RefundRow, TicketRow

__all__ = [
    "create_refund",
    "update_ticket",
    "assign_ticket",
    "request_approval",
    "send_notification",
]


def create_refund(
    svc: RefundService, s: Session, caller: Caller, call_id: str, seq: int, args: dict[str, Any]
) -> Handled:
    op = str(args["operation_id"])  # present: the engine checks a writing tool's operation id
    amount = positive_amount(args)
    o = get_order(svc, s, caller, args.get("order_id"))
    existing = prior_effect(s, RefundRow, caller.tenant_id, op)
    if existing is not None:
        if existing.order_id != o.order_id or existing.amount_minor_units != amount:
            raise Fail(
                "operation_conflict", f"operation {op} already committed with other order or amount"
            )
        ref = RecordRef(tenant_id=existing.tenant_id, kind="refund", record_id=existing.refund_id)
        return ok({"status": "already_committed", **refund_view(existing)}, reads=[ref])
    expected = args.get("expected_version")
    check_version("order", o.order_id, o.version, expected)
    refund = RefundRow(
        refund_id=f"ref_{seq:04d}",
        tenant_id=caller.tenant_id,
        operation_id=op,
        order_id=o.order_id,
        amount_minor_units=amount,
        committed_seq=seq,
        committed_by=caller.principal,
        call_id=call_id,
        policy_version=str(args["policy_version"]) if args.get("policy_version") else None,
    )
    # a refund is a ledger entry: it does not change the order row, so not its version
    s.add(refund)
    write = record_created(
        svc,
        s,
        caller=caller,
        call_id=call_id,
        seq=seq,
        order=o,
        kind="refund",
        record_id=refund.refund_id,
        action="refund.committed",
        operation_id=op,
        expected_version=expected,
        version_before=o.version,
        version_after=o.version,
        amount_minor_units=amount,
    )
    return ok(
        {"status": "committed", **refund_view(refund), "order_version": o.version},
        writes=[write],
    )


def _ticket_write(t: TicketRow, fields: dict[str, Any]) -> CommittedWrite:
    return CommittedWrite(
        tenant_id=t.tenant_id,
        kind="ticket",
        record_id=t.ticket_id,
        action="update",
        target_id=t.order_id,
        fields=fields,
    )


def _ticket_changed(
    svc: RefundService,
    s: Session,
    t: TicketRow,
    caller: Caller,
    call_id: str,
    seq: int,
    action: str,
    fields: dict[str, Any],
) -> CommittedWrite:
    """Bump the ticket's version, audit the change, and describe it as a committed write."""
    t.version += 1
    s.add(t)
    svc.audit(
        s,
        tenant_id=t.tenant_id,
        seq=seq,
        actor=caller.principal,
        action=action,
        record_kind="ticket",
        record_id=t.ticket_id,
        call_id=call_id,
        version_after=t.version,
    )
    return _ticket_write(t, fields)


def update_ticket(
    svc: RefundService, s: Session, caller: Caller, call_id: str, seq: int, args: dict[str, Any]
) -> Handled:
    t = get_ticket(svc, s, caller, args.get("ticket_id"))
    fields: dict[str, Any] = {}
    state = args.get("state")
    if state is not None:
        if state not in ("open", "pending_review", "resolved", "escalated"):
            raise Fail("invalid_argument", f"unknown ticket state {state}")
        t.state = fields["state"] = state
    rec = args.get("reconciliation")
    if rec is not None:
        if rec not in ("none", "uncertain", "reconciled"):
            raise Fail("invalid_argument", f"unknown reconciliation status {rec}")
        t.reconciliation = fields["reconciliation"] = rec
    if not fields:
        raise Fail("invalid_argument", "nothing to update")
    write = _ticket_changed(svc, s, t, caller, call_id, seq, "ticket.updated", fields)
    return ok(
        {"ticket_id": t.ticket_id, "state": t.state, "reconciliation": t.reconciliation},
        writes=[write],
    )


def assign_ticket(
    svc: RefundService, s: Session, caller: Caller, call_id: str, seq: int, args: dict[str, Any]
) -> Handled:
    t = get_ticket(svc, s, caller, args.get("ticket_id"))
    who = str(args.get("assignee") or "")
    kind = who.split(":", 1)[0]
    if kind not in ("person", "agent"):
        raise Fail("invalid_argument", "assignee must be person:<id> or agent:<id>")
    t.assignee, t.assignee_kind = who, kind
    fields = {"assignee": who, "assignee_kind": kind}
    write = _ticket_changed(svc, s, t, caller, call_id, seq, "ticket.assigned", fields)
    return ok({"ticket_id": t.ticket_id, "assignee": who}, writes=[write])


def request_approval(
    svc: RefundService, s: Session, caller: Caller, call_id: str, seq: int, args: dict[str, Any]
) -> Handled:
    o = get_order(svc, s, caller, args.get("order_id"))
    amount = positive_amount(args)
    a = ApprovalRow(
        approval_id=f"apr_{seq:04d}",
        tenant_id=o.tenant_id,
        order_id=o.order_id,
        ticket_id=args.get("ticket_id"),
        amount_minor_units=amount,
        requested_by=caller.principal,
        requested_seq=seq,
    )
    s.add(a)
    w = record_created(
        svc,
        s,
        caller=caller,
        call_id=call_id,
        seq=seq,
        order=o,
        kind="approval",
        record_id=a.approval_id,
        action="approval.requested",
        amount_minor_units=amount,
    )
    return ok({"approval_id": a.approval_id, "status": "pending"}, writes=[w])


def send_notification(
    svc: RefundService, s: Session, caller: Caller, call_id: str, seq: int, args: dict[str, Any]
) -> Handled:
    key = str(args.get("idempotency_key") or "")
    body = str(args.get("body") or "")
    kind = args.get("kind", "other")
    if not key or not body or not args.get("recipient"):
        raise Fail("invalid_argument", "recipient, body and idempotency_key are required")
    if kind not in ("refund_confirmation", "status_update", "escalation_notice", "other"):
        raise Fail("invalid_argument", f"unknown notification kind {kind}")
    amount = args.get("amount_minor_units")
    details: dict[str, str | int | None] = {
        "order_id": args.get("order_id"),
        "amount_minor_units": amount if isinstance(amount, int) else None,
    }
    sent = send(
        s,
        caller,
        call_id,
        seq,
        key=key,
        recipient=str(args["recipient"]),
        kind=kind,
        subject=str(args.get("subject") or ""),
        body=body,
        details=details,
    )
    if sent.status == "duplicate":
        return ok({"status": "duplicate", "message_id": sent.message_id})
    return ok({"status": "accepted", "message_id": sent.message_id}, accepted=sent.message_id)
