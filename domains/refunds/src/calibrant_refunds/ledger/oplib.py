"""Shared pieces of the refund operations: record lookups and views, the engine's failures,
answers and tenant-owned lookups re-exported."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from calibrant.contracts import CommittedWrite, RecordRef
from calibrant.engine import Fail, ok, owned

from .service import Caller, RefundService
from .tables import (
    OrderRow,
    TicketRow,
)

__all__ = [
    "Fail",
    "ok",
    "order_ref",
    "get_order",
    "get_ticket",
    "positive_amount",
    "record_created",
]


def order_ref(o: OrderRow) -> RecordRef:
    return RecordRef(tenant_id=o.tenant_id, kind="order", record_id=o.order_id, version=o.version)


def get_order(svc: RefundService, s: Session, caller: Caller, order_id: Any) -> OrderRow:
    o: OrderRow = owned(svc, s, caller, OrderRow, order_id, "order")
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
        target_id=order.order_id,
        **write,
    )
