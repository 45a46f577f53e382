"""The operations behind the agent's tools. Each runs in one transaction, advances the logical
clock once, and reports its authorization decision, the records it read and the writes it
committed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlmodel import Session, select

from ..contracts import Authorization, CommittedWrite, RecordRef
from .service import Caller, Denied, Handled, RefundService
from .tables import (
    AcceptedRow,
    ApprovalRow,
    AttemptRow,
    CustomerRow,
    OrderRow,
    PolicyRow,
    RefundRow,
    TicketRow,
)

__all__ = ["OPERATIONS", "Operation", "run_operation"]

Operation = Callable[[RefundService, Session, Caller, str, int, dict[str, Any]], Handled]


class _Fail(Exception):
    def __init__(self, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.code, self.message, self.extra = code, message, extra


def _ok(
    auth: Authorization,
    response: dict[str, Any],
    *,
    reads: list[RecordRef] | None = None,
    writes: list[CommittedWrite] | None = None,
) -> Handled:
    return Handled(authorization=auth, response=response, reads=reads or [], writes=writes or [])


def _member_auth(svc: RefundService, s: Session, caller: Caller) -> Authorization:
    svc.member(s, caller)
    return Authorization(decision="allowed", scope="read")


def _scoped_auth(
    svc: RefundService, s: Session, caller: Caller, scope: str, seq: int
) -> Authorization:
    g = svc.grant_for(s, caller, scope, seq)
    return Authorization(decision="allowed", permission_id=g.permission_id, scope=scope)


def _order_ref(o: OrderRow) -> RecordRef:
    return RecordRef(tenant_id=o.tenant_id, kind="order", record_id=o.order_id, version=o.version)


def _get_order(svc: RefundService, s: Session, caller: Caller, order_id: Any) -> OrderRow:
    o = svc.order(s, str(order_id))
    if o is None:
        raise _Fail("not_found", f"no order {order_id}")
    svc.guard_tenant(caller, o.tenant_id, f"order {order_id}")
    return o


def _ticket(svc: RefundService, s: Session, caller: Caller, ticket_id: Any) -> TicketRow:
    t = s.get(TicketRow, str(ticket_id))
    if t is None or t.tenant_id != caller.tenant_id:
        raise _Fail("not_found", f"no ticket {ticket_id}")
    return t


def lookup_order(
    svc: RefundService, s: Session, caller: Caller, call_id: str, seq: int, args: dict[str, Any]
) -> Handled:
    auth = _member_auth(svc, s, caller)
    o = _get_order(svc, s, caller, args.get("order_id"))
    cust = s.get(CustomerRow, o.customer_id)
    refunds = s.exec(
        select(RefundRow).where(
            RefundRow.order_id == o.order_id, RefundRow.tenant_id == o.tenant_id
        )
    ).all()
    reads = [_order_ref(o)]
    if cust is not None:
        reads.append(
            RecordRef(tenant_id=cust.tenant_id, kind="customer", record_id=cust.customer_id)
        )
    reads += [
        RecordRef(tenant_id=r.tenant_id, kind="refund", record_id=r.refund_id) for r in refunds
    ]
    return _ok(
        auth,
        {
            "order_id": o.order_id,
            "customer_id": o.customer_id,
            "customer_name": cust.name if cust else None,
            "customer_email": cust.email if cust else None,
            "status": o.status,
            "paid_minor_units": o.paid_minor_units,
            "currency": o.currency,
            "version": o.version,
            "customer_note": o.customer_note,
            "refunds": [
                {"operation_id": r.operation_id, "amount_minor_units": r.amount_minor_units}
                for r in refunds
            ],
        },
        reads=reads,
    )


def search_customers(
    svc: RefundService, s: Session, caller: Caller, call_id: str, seq: int, args: dict[str, Any]
) -> Handled:
    auth = _member_auth(svc, s, caller)
    q = str(args.get("query", "")).casefold().strip()
    if not q:
        raise _Fail("invalid_argument", "query must not be empty")
    found = [
        c
        for c in s.exec(select(CustomerRow).where(CustomerRow.tenant_id == caller.tenant_id)).all()
        if q in c.name.casefold() or q in c.email.casefold()
    ]
    out = []
    for c in found:
        orders = s.exec(select(OrderRow).where(OrderRow.customer_id == c.customer_id)).all()
        out.append(
            {
                "customer_id": c.customer_id,
                "name": c.name,
                "email": c.email,
                "orders": [o.order_id for o in orders],
            }
        )
    reads = [
        RecordRef(tenant_id=c.tenant_id, kind="customer", record_id=c.customer_id) for c in found
    ]
    return _ok(auth, {"customers": out}, reads=reads)


def read_policy(
    svc: RefundService, s: Session, caller: Caller, call_id: str, seq: int, args: dict[str, Any]
) -> Handled:
    auth = _member_auth(svc, s, caller)
    stmt = select(PolicyRow).where(PolicyRow.tenant_id == caller.tenant_id)
    if args.get("policy_id"):
        stmt = stmt.where(PolicyRow.policy_id == str(args["policy_id"]))
    pols = s.exec(stmt.order_by(PolicyRow.policy_id)).all()
    if not pols:
        raise _Fail("not_found", f"no policy {args.get('policy_id')}")
    p = pols[-1]
    return _ok(
        auth,
        {
            "policy_id": p.policy_id,
            "text": p.text,
            "refundable_statuses": p.refundable_statuses.split(),
            "approval_threshold_minor_units": p.approval_threshold_minor_units,
        },
        reads=[RecordRef(tenant_id=p.tenant_id, kind="policy", record_id=p.policy_id)],
    )


def _refund_view(r: RefundRow) -> dict[str, Any]:
    return {
        "refund_id": r.refund_id,
        "operation_id": r.operation_id,
        "order_id": r.order_id,
        "amount_minor_units": r.amount_minor_units,
    }


def create_refund(
    svc: RefundService, s: Session, caller: Caller, call_id: str, seq: int, args: dict[str, Any]
) -> Handled:
    auth = _scoped_auth(svc, s, caller, "refund:write", seq)
    op = str(args.get("operation_id") or "")
    amount = args.get("amount_minor_units")
    if not op:
        raise _Fail("invalid_argument", "operation_id is required")
    if not isinstance(amount, int) or isinstance(amount, bool) or amount <= 0:
        raise _Fail("invalid_argument", "amount_minor_units must be a positive integer")
    o = _get_order(svc, s, caller, args.get("order_id"))
    existing = s.exec(
        select(RefundRow).where(
            RefundRow.tenant_id == caller.tenant_id, RefundRow.operation_id == op
        )
    ).first()
    if existing is not None:
        if existing.order_id != o.order_id or existing.amount_minor_units != amount:
            raise _Fail(
                "operation_conflict", f"operation {op} already committed with other order or amount"
            )
        ref = RecordRef(tenant_id=existing.tenant_id, kind="refund", record_id=existing.refund_id)
        return _ok(auth, {"status": "already_committed", **_refund_view(existing)}, reads=[ref])
    expected = args.get("expected_version")
    if expected != o.version:
        raise _Fail(
            "version_conflict",
            f"order {o.order_id} is at version {o.version}, not {expected}",
            current_version=o.version,
        )
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
    svc.audit(
        s,
        tenant_id=o.tenant_id,
        seq=seq,
        actor=caller.principal,
        action="refund.committed",
        record_kind="refund",
        record_id=refund.refund_id,
        operation_id=op,
        call_id=call_id,
    )
    write = CommittedWrite(
        tenant_id=o.tenant_id,
        kind="refund",
        record_id=refund.refund_id,
        action="create",
        operation_id=op,
        order_id=o.order_id,
        expected_version=expected,
        order_version_before=o.version,
        order_version_after=o.version,
        amount_minor_units=amount,
    )
    return _ok(
        auth,
        {"status": "committed", **_refund_view(refund), "order_version": o.version},
        writes=[write],
    )


def query_refund(
    svc: RefundService, s: Session, caller: Caller, call_id: str, seq: int, args: dict[str, Any]
) -> Handled:
    auth = _member_auth(svc, s, caller)
    op = str(args.get("operation_id") or "")
    r = s.exec(
        select(RefundRow).where(
            RefundRow.tenant_id == caller.tenant_id, RefundRow.operation_id == op
        )
    ).first()
    if r is None:
        return _ok(auth, {"found": False, "operation_id": op})
    ref = RecordRef(tenant_id=r.tenant_id, kind="refund", record_id=r.refund_id)
    return _ok(auth, {"found": True, **_refund_view(r)}, reads=[ref])


def _ticket_write(t: TicketRow, fields: dict[str, Any]) -> CommittedWrite:
    return CommittedWrite(
        tenant_id=t.tenant_id,
        kind="ticket",
        record_id=t.ticket_id,
        action="update",
        order_id=t.order_id,
        fields=fields,
    )


def update_ticket(
    svc: RefundService, s: Session, caller: Caller, call_id: str, seq: int, args: dict[str, Any]
) -> Handled:
    auth = _scoped_auth(svc, s, caller, "ticket:write", seq)
    t = _ticket(svc, s, caller, args.get("ticket_id"))
    fields: dict[str, Any] = {}
    state = args.get("state")
    if state is not None:
        if state not in ("open", "pending_review", "resolved", "escalated"):
            raise _Fail("invalid_argument", f"unknown ticket state {state}")
        t.state = fields["state"] = state
    rec = args.get("reconciliation")
    if rec is not None:
        if rec not in ("none", "uncertain", "reconciled"):
            raise _Fail("invalid_argument", f"unknown reconciliation status {rec}")
        t.reconciliation = fields["reconciliation"] = rec
    if not fields:
        raise _Fail("invalid_argument", "nothing to update")
    t.version += 1
    s.add(t)
    svc.audit(
        s,
        tenant_id=t.tenant_id,
        seq=seq,
        actor=caller.principal,
        action="ticket.updated",
        record_kind="ticket",
        record_id=t.ticket_id,
        call_id=call_id,
        version_after=t.version,
    )
    return _ok(
        auth,
        {"ticket_id": t.ticket_id, "state": t.state, "reconciliation": t.reconciliation},
        writes=[_ticket_write(t, fields)],
    )


def assign_ticket(
    svc: RefundService, s: Session, caller: Caller, call_id: str, seq: int, args: dict[str, Any]
) -> Handled:
    auth = _scoped_auth(svc, s, caller, "ticket:write", seq)
    t = _ticket(svc, s, caller, args.get("ticket_id"))
    who = str(args.get("assignee") or "")
    kind = who.split(":", 1)[0]
    if kind not in ("person", "agent"):
        raise _Fail("invalid_argument", "assignee must be person:<id> or agent:<id>")
    t.assignee, t.assignee_kind = who, kind
    t.version += 1
    s.add(t)
    svc.audit(
        s,
        tenant_id=t.tenant_id,
        seq=seq,
        actor=caller.principal,
        action="ticket.assigned",
        record_kind="ticket",
        record_id=t.ticket_id,
        call_id=call_id,
        version_after=t.version,
    )
    return _ok(
        auth,
        {"ticket_id": t.ticket_id, "assignee": who},
        writes=[_ticket_write(t, {"assignee": who, "assignee_kind": kind})],
    )


def request_approval(
    svc: RefundService, s: Session, caller: Caller, call_id: str, seq: int, args: dict[str, Any]
) -> Handled:
    auth = _scoped_auth(svc, s, caller, "approval:request", seq)
    o = _get_order(svc, s, caller, args.get("order_id"))
    amount = args.get("amount_minor_units")
    if not isinstance(amount, int) or isinstance(amount, bool) or amount <= 0:
        raise _Fail("invalid_argument", "amount_minor_units must be a positive integer")
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
    svc.audit(
        s,
        tenant_id=o.tenant_id,
        seq=seq,
        actor=caller.principal,
        action="approval.requested",
        record_kind="approval",
        record_id=a.approval_id,
        call_id=call_id,
    )
    w = CommittedWrite(
        tenant_id=o.tenant_id,
        kind="approval",
        record_id=a.approval_id,
        action="create",
        order_id=o.order_id,
        amount_minor_units=amount,
    )
    return _ok(auth, {"approval_id": a.approval_id, "status": "pending"}, writes=[w])


def send_notification(
    svc: RefundService, s: Session, caller: Caller, call_id: str, seq: int, args: dict[str, Any]
) -> Handled:
    auth = _scoped_auth(svc, s, caller, "notification:send", seq)
    key = str(args.get("idempotency_key") or "")
    body = str(args.get("body") or "")
    kind = args.get("kind", "other")
    if not key or not body or not args.get("recipient"):
        raise _Fail("invalid_argument", "recipient, body and idempotency_key are required")
    if kind not in ("refund_confirmation", "status_update", "escalation_notice", "other"):
        raise _Fail("invalid_argument", f"unknown notification kind {kind}")
    amount = args.get("amount_minor_units")
    prior = s.exec(
        select(AcceptedRow).where(
            AcceptedRow.tenant_id == caller.tenant_id, AcceptedRow.idempotency_key == key
        )
    ).first()
    attempt = AttemptRow(
        attempt_id=f"att_{seq:04d}",
        seq=seq,
        call_id=call_id,
        tenant_id=caller.tenant_id,
        idempotency_key=key,
        recipient=str(args["recipient"]),
        kind=kind,
        order_id=args.get("order_id"),
        amount_minor_units=amount if isinstance(amount, int) else None,
        subject=str(args.get("subject") or ""),
        body=body,
        result="duplicate" if prior else "accepted",
    )
    s.add(attempt)
    if prior is not None:
        return _ok(auth, {"status": "duplicate", "message_id": prior.message_id})
    msg = AcceptedRow(
        message_id=f"msg_{seq:04d}",
        attempt_id=attempt.attempt_id,
        tenant_id=caller.tenant_id,
        idempotency_key=key,
        seq=seq,
    )
    s.add(msg)
    return _ok(auth, {"status": "accepted", "message_id": msg.message_id})


OPERATIONS: dict[str, Operation] = {
    "lookup_order": lookup_order,
    "search_customers": search_customers,
    "read_policy": read_policy,
    "create_refund": create_refund,
    "query_refund": query_refund,
    "update_ticket": update_ticket,
    "assign_ticket": assign_ticket,
    "request_approval": request_approval,
    "send_notification": send_notification,
}


def run_operation(
    svc: RefundService, name: str, caller: Caller, call_id: str, args: dict[str, Any]
) -> Handled:
    """Run one operation in its own transaction. Denials and refusals commit nothing but still
    advance the clock."""
    op = OPERATIONS[name]
    with Session(svc.engine) as s:
        seq = svc.tick(s)  # the clock advances in the operation's own transaction
        try:
            handled = op(svc, s, caller, call_id, seq, args)
        except (Denied, _Fail) as exc:
            s.rollback()
            svc.tick(s)  # a refusal commits nothing but still takes its instant
            s.commit()
            if isinstance(exc, Denied):
                return Handled(
                    authorization=Authorization(
                        decision="denied", reason=exc.reason, scope=exc.scope
                    ),
                    response={"error": "forbidden", "reason": exc.reason, "message": exc.message},
                    error="forbidden",
                    seq=seq,
                )
            return Handled(
                authorization=Authorization(decision="allowed"),
                response={"error": exc.code, "message": exc.message, **exc.extra},
                error=exc.code,
                seq=seq,
            )
        s.commit()
    handled.seq = seq
    return handled
