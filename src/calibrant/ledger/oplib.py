"""Shared pieces of the service operations: failures, authorization, record lookups."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from ..contracts import Authorization, CommittedWrite, RecordRef
from .service import Caller, Handled, RefundService
from .tables import (
    OrderRow,
    TicketRow,
)

__all__ = [
    "Fail",
    "ok",
    "member_auth",
    "scoped_auth",
    "order_ref",
    "get_order",
    "get_ticket",
    "positive_amount",
    "record_created",
]


class Fail(Exception):
    def __init__(self, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.code, self.message, self.extra = code, message, extra


def ok(
    auth: Authorization,
    response: dict[str, Any],
    *,
    reads: list[RecordRef] | None = None,
    writes: list[CommittedWrite] | None = None,
) -> Handled:
    return Handled(authorization=auth, response=response, reads=reads or [], writes=writes or [])


def member_auth(svc: RefundService, s: Session, caller: Caller) -> Authorization:
    svc.member(s, caller)
    return Authorization(decision="allowed", scope="read")


def scoped_auth(
    svc: RefundService, s: Session, caller: Caller, scope: str, seq: int
) -> Authorization:
    g = svc.grant_for(s, caller, scope, seq)
    return Authorization(decision="allowed", permission_id=g.permission_id, scope=scope)


def order_ref(o: OrderRow) -> RecordRef:
    return RecordRef(tenant_id=o.tenant_id, kind="order", record_id=o.order_id, version=o.version)


def get_order(svc: RefundService, s: Session, caller: Caller, order_id: Any) -> OrderRow:
    o = svc.order(s, str(order_id))
    if o is None:
        raise Fail("not_found", f"no order {order_id}")
    svc.guard_tenant(caller, o.tenant_id, f"order {order_id}")
    return o


def get_ticket(svc: RefundService, s: Session, caller: Caller, ticket_id: Any) -> TicketRow:
    t = s.get(TicketRow, str(ticket_id))
    if t is None or t.tenant_id != caller.tenant_id:
        raise Fail("not_found", f"no ticket {ticket_id}")
    return t


def positive_amount(args: dict[str, Any]) -> int:
    """The call's `amount_minor_units`, which must be a positive integer."""
    amount = args.get("amount_minor_units")
    if not isinstance(amount, int) or isinstance(amount, bool) or amount <= 0:
        raise Fail("invalid_argument", "amount_minor_units must be a positive integer")
    return amount


def record_created(
    svc: RefundService,
    s: Session,
    *,
    caller: Caller,
    call_id: str,
    seq: int,
    order: OrderRow,
    kind: Any,
    record_id: str,
    action: str,
    **write: Any,
) -> CommittedWrite:
    """Audit a record the call created and describe it as a committed write."""
    svc.audit(
        s,
        tenant_id=order.tenant_id,
        seq=seq,
        actor=caller.principal,
        action=action,
        record_kind=kind,
        record_id=record_id,
        operation_id=write.get("operation_id"),
        call_id=call_id,
    )
    return CommittedWrite(
        tenant_id=order.tenant_id,
        kind=kind,
        record_id=record_id,
        action="create",
        order_id=order.order_id,
        **write,
    )
