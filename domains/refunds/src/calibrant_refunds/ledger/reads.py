"""Read operations: what the agent may look up in its own tenant (no scope needed beyond
membership of the tenant, which the engine checks before the handler runs)."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, select

from calibrant.contracts import RecordRef

from .oplib import Fail, get_order, ok, order_ref
from .service import Caller, Handled, RefundService
from .tables import (
    CustomerRow,
    OrderRow,
    PolicyRow,
    RefundRow,
)

__all__ = ["lookup_order", "search_customers", "read_policy", "query_refund", "refund_view"]


def lookup_order(
    svc: RefundService, s: Session, caller: Caller, call_id: str, seq: int, args: dict[str, Any]
) -> Handled:
    o = get_order(svc, s, caller, args.get("order_id"))
    cust = s.get(CustomerRow, o.customer_id)
    refunds = s.exec(
        select(RefundRow).where(
            RefundRow.order_id == o.order_id, RefundRow.tenant_id == o.tenant_id
        )
    ).all()
    reads = [order_ref(o)]
    if cust is not None:
        reads.append(
            RecordRef(tenant_id=cust.tenant_id, kind="customer", record_id=cust.customer_id)
        )
    reads += [
        RecordRef(tenant_id=r.tenant_id, kind="refund", record_id=r.refund_id) for r in refunds
    ]
    return ok(
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
    q = str(args.get("query", "")).casefold().strip()
    if not q:
        raise Fail("invalid_argument", "query must not be empty")
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
    return ok({"customers": out}, reads=reads)


def read_policy(
    svc: RefundService, s: Session, caller: Caller, call_id: str, seq: int, args: dict[str, Any]
) -> Handled:
    stmt = select(PolicyRow).where(PolicyRow.tenant_id == caller.tenant_id)
    if args.get("policy_id"):
        stmt = stmt.where(PolicyRow.policy_id == str(args["policy_id"]))
    pols = s.exec(stmt.order_by(PolicyRow.policy_id)).all()
    if not pols:
        raise Fail("not_found", f"no policy {args.get('policy_id')}")
    p = pols[-1]
    return ok(
        {
            "policy_id": p.policy_id,
            "text": p.text,
            "refundable_statuses": p.refundable_statuses.split(),
            "approval_threshold_minor_units": p.approval_threshold_minor_units,
        },
        reads=[RecordRef(tenant_id=p.tenant_id, kind="policy", record_id=p.policy_id)],
    )


def refund_view(r: RefundRow) -> dict[str, Any]:
    return {
        "refund_id": r.refund_id,
        "operation_id": r.operation_id,
        "order_id": r.order_id,
        "amount_minor_units": r.amount_minor_units,
    }


def query_refund(
    svc: RefundService, s: Session, caller: Caller, call_id: str, seq: int, args: dict[str, Any]
) -> Handled:
    op = str(args.get("operation_id") or "")
    r = s.exec(
        select(RefundRow).where(
            RefundRow.tenant_id == caller.tenant_id, RefundRow.operation_id == op
        )
    ).first()
    if r is None:
        return ok({"found": False, "operation_id": op})
    ref = RecordRef(tenant_id=r.tenant_id, kind="refund", record_id=r.refund_id)
    return ok({"found": True, **refund_view(r)}, reads=[ref])
