"""The shop's controlled service, built on calibrant's engine (`calibrant.engine`).

Tables hold the shop's customers, payment methods, catalogue (products and their variant
items), orders with their lines, and the money and changes the agent's tools commit (payments,
refunds, one action record per change), beside the engine's own (clock, grants, audit log,
notification sink). The tools are those of tau2-bench's retail domain, by name and meaning
(written anew):

- find_user_id_by_email, find_user_id_by_name_zip: authentication (reads the customer);
- get_user_details, get_order_details (with `user_id`: only that customer's order),
  get_product_details: reads;
- cancel_pending_order, modify_pending_order_items / _address / _payment: pending orders;
- return_delivered_order_items, exchange_delivered_order_items: delivered orders;
- modify_user_address; transfer_to_human_agents.

The service checks what the shop's backend checks (the order and payment method exist, a
payment method is the order's customer's, a variant is of the same product and available, a
gift card covers what it pays). Whether an order's status allows an action is checked too,
unless the case turns that guard off (`status_guard: false`, a backend that leaves the rule
to the agent); authentication, ownership and the customer's "yes" are the agent's duty, as in
the benchmark: the pack's invariants verify them.

Lists of item ids are one comma-separated string (`"4602305039,4202497723"`): the engine's
argument schemas take strings and integers only. Order ids are accepted with or without the
database's leading `#`."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from sqlmodel import Field, Session, SQLModel, col, select

from calibrant.contracts import CommittedWrite
from calibrant.engine import (
    ENGINE_TABLES,
    ID_SCHEMA,
    STRING_SCHEMA,
    Fail,
    Handled,
    PermissionRow,
    Service,
    SnapshotTable,
    TenantRow,
    ToolDecl,
    ToolSet,
    fresh_database,
    ok,
    owned,
)
from calibrant.pack import Caller, RecordRef

from .cases import Fixture
from .policy import ALLOWED_STATUS
from .records import (
    Customer,
    Order,
    OrderAction,
    OrderLine,
    Payment,
    PaymentMethod,
    Product,
    Refund,
    Variant,
)
from .world import WORLD, World

__all__ = [
    "AGENT",
    "ALLOWED_STATUS",
    "EVALUATOR",
    "OTHER_SHOP",
    "SHOP",
    "SNAPSHOT_TABLES",
    "TOOLS",
    "RetailService",
    "build_service",
    "order_key",
]

T0 = datetime(2026, 5, 4, 14, 0, tzinfo=UTC)
SHOP = "shop"
OTHER_SHOP = "outlet"
"""A second shop on the platform (one customer, Marta Vidal, invented for the pack): never
reached by the agent, it gives calibrant's tenant rules another tenant to compare with."""
AGENT = "agent:retail"
EVALUATOR = "evaluator:retail-auditor"
SCOPES = "order:write profile:write"


# --- tables (named retail_*: SQLModel's metadata is shared with every other pack) ---------------


class CustomerRow(SQLModel, table=True):
    __tablename__ = "retail_customer"
    user_id: str = Field(primary_key=True)
    tenant_id: str = Field(index=True)
    first_name: str
    last_name: str
    email: str
    address1: str
    address2: str = ""
    city: str
    state: str
    country: str
    zip: str


class PaymentMethodRow(SQLModel, table=True):
    __tablename__ = "retail_payment_method"
    payment_method_id: str = Field(primary_key=True)
    tenant_id: str = Field(index=True)
    user_id: str = Field(index=True)
    source: str
    brand: str | None = None
    last_four: str | None = None
    balance_minor_units: int | None = None


class ProductRow(SQLModel, table=True):
    __tablename__ = "retail_product"
    product_id: str = Field(primary_key=True)
    tenant_id: str = Field(index=True)  # the shop's catalogue; the record names no owner
    name: str


class VariantRow(SQLModel, table=True):
    __tablename__ = "retail_variant"
    item_id: str = Field(primary_key=True)
    tenant_id: str = Field(index=True)
    product_id: str = Field(index=True)
    options: str  # JSON object
    available: bool
    price_minor_units: int


class OrderRow(SQLModel, table=True):
    __tablename__ = "retail_order"
    order_id: str = Field(primary_key=True)
    tenant_id: str = Field(index=True)
    user_id: str = Field(index=True)
    status: str
    address1: str
    address2: str = ""
    city: str
    state: str
    country: str
    zip: str
    payment_method_id: str
    paid_minor_units: int


class OrderLineRow(SQLModel, table=True):
    __tablename__ = "retail_order_line"
    line_id: str = Field(primary_key=True)
    tenant_id: str = Field(index=True)
    order_id: str = Field(index=True)
    position: int
    item_id: str
    product_id: str
    name: str
    price_minor_units: int
    status: str = "ordered"
    new_item_id: str | None = None


class ActionRow(SQLModel, table=True):
    __tablename__ = "retail_action"
    action_id: str = Field(primary_key=True)
    tenant_id: str = Field(index=True)
    user_id: str
    order_id: str | None = None
    action: str
    status_before: str | None = None
    status_after: str | None = None
    payment_method_id: str | None = None
    reason: str | None = None
    price_difference_minor_units: int = 0
    committed_seq: int
    call_id: str


class PaymentRow(SQLModel, table=True):
    __tablename__ = "retail_payment"
    payment_id: str = Field(primary_key=True)
    tenant_id: str = Field(index=True)
    order_id: str
    payment_method_id: str
    amount_minor_units: int
    committed_seq: int


class RefundRow(SQLModel, table=True):
    __tablename__ = "retail_refund"
    refund_id: str = Field(primary_key=True)
    tenant_id: str = Field(index=True)
    order_id: str
    payment_method_id: str
    amount_minor_units: int
    committed_seq: int
    call_id: str | None = None


TABLES: list[Any] = [
    *ENGINE_TABLES,
    CustomerRow,
    PaymentMethodRow,
    ProductRow,
    VariantRow,
    OrderRow,
    OrderLineRow,
    ActionRow,
    PaymentRow,
    RefundRow,
]


class RetailService(Service):
    """The engine's service with the shop's status guard (on unless a case turns it off)."""

    def __init__(self, engine: Any, *, base_time: datetime, status_guard: bool = True) -> None:
        super().__init__(engine, base_time=base_time)
        self.status_guard = status_guard


def _svc(svc: Service) -> RetailService:
    assert isinstance(svc, RetailService)
    return svc


def order_key(value: object) -> str:
    """An order id as the records hold it: the database's `#W0000000` without its `#`."""
    return str(value).strip().removeprefix("#")


def _ref(kind: str, record_id: str) -> RecordRef:
    return RecordRef(tenant_id=SHOP, kind=kind, record_id=record_id)


def _write(kind: str, record_id: str, action: Literal["create", "update"]) -> CommittedWrite:
    return CommittedWrite(tenant_id=SHOP, kind=kind, record_id=record_id, action=action)


def _money(cents: int) -> str:
    return f"{cents / 100:.2f}"


# --- views ---------------------------------------------------------------------------------------


def _lines(s: Session, order_id: str) -> list[OrderLineRow]:
    stmt = (
        select(OrderLineRow)
        .where(OrderLineRow.order_id == order_id)
        .order_by(col(OrderLineRow.position))
    )
    return list(s.exec(stmt).all())


def _methods(s: Session, user_id: str) -> list[PaymentMethodRow]:
    stmt = select(PaymentMethodRow).where(PaymentMethodRow.user_id == user_id)
    return list(s.exec(stmt).all())


def _method_view(m: PaymentMethodRow) -> dict[str, Any]:
    out: dict[str, Any] = {"payment_method_id": m.payment_method_id, "source": m.source}
    if m.brand:
        out.update(brand=m.brand, last_four=m.last_four)
    if m.balance_minor_units is not None:
        out["balance"] = _money(m.balance_minor_units)
    return out


def _order_view(s: Session, o: OrderRow) -> dict[str, Any]:
    return {
        "order_id": f"#{o.order_id}",
        "user_id": o.user_id,
        "status": o.status,
        "address": {
            "address1": o.address1,
            "address2": o.address2,
            "city": o.city,
            "state": o.state,
            "country": o.country,
            "zip": o.zip,
        },
        "items": [
            {
                "name": line.name,
                "product_id": line.product_id,
                "item_id": line.item_id,
                "price": _money(line.price_minor_units),
                "status": line.status,
            }
            for line in _lines(s, o.order_id)
        ],
        "payment_method_id": o.payment_method_id,
        "paid": _money(o.paid_minor_units),
    }


# --- shared checks -------------------------------------------------------------------------------


def _order(svc: Service, s: Session, caller: Caller, value: object, action: str) -> OrderRow:
    o: OrderRow = owned(svc, s, caller, OrderRow, order_key(value), "order")
    allowed = ALLOWED_STATUS[action]
    if _svc(svc).status_guard and o.status not in allowed:
        raise Fail(
            "invalid_status",
            f"order #{o.order_id} is {o.status}; {action} needs it {' or '.join(allowed)}",
        )
    return o


def _method(s: Session, order: OrderRow, value: object) -> PaymentMethodRow:
    m = s.get(PaymentMethodRow, str(value))
    if m is None or m.user_id != order.user_id:
        raise Fail("not_found", f"no payment method {value} of the order's customer")
    return m


def _items(value: object) -> list[str]:
    return [i for i in str(value).split(",") if i]


def _pick_lines(s: Session, order: OrderRow, item_ids: list[str]) -> list[OrderLineRow]:
    """The order's lines for `item_ids` (each line once), all still as ordered."""
    free = [line for line in _lines(s, order.order_id) if line.status == "ordered"]
    picked: list[OrderLineRow] = []
    for item in item_ids:
        line = next((x for x in free if x.item_id == item and x not in picked), None)
        if line is None:
            raise Fail("not_found", f"item {item} is not an item of order #{order.order_id}")
        picked.append(line)
    return picked


def _swaps(
    s: Session, order: OrderRow, args: dict[str, Any]
) -> tuple[list[OrderLineRow], list[VariantRow], int]:
    """The lines to change, the variants they change to, and the price difference."""
    old_ids, new_ids = _items(args["item_ids"]), _items(args["new_item_ids"])
    if len(old_ids) != len(new_ids):
        raise Fail("invalid_argument", "item_ids and new_item_ids must be as many")
    lines = _pick_lines(s, order, old_ids)
    new: list[VariantRow] = []
    for line, item in zip(lines, new_ids, strict=True):
        v = s.get(VariantRow, item)
        if v is None or v.product_id != line.product_id:
            raise Fail("invalid_argument", f"item {item} is not a variant of {line.name}")
        if not v.available:
            raise Fail("unavailable", f"item {item} is not available")
        if v.item_id == line.item_id:
            raise Fail("invalid_argument", f"item {item} is the item ordered")
        new.append(v)
    diff = sum(v.price_minor_units for v in new) - sum(x.price_minor_units for x in lines)
    return lines, new, diff


def _net(s: Session, order: OrderRow) -> int:
    """What the customer has paid for `order` and not been refunded."""
    paid = s.exec(select(PaymentRow).where(PaymentRow.order_id == order.order_id)).all()
    back = s.exec(select(RefundRow).where(RefundRow.order_id == order.order_id)).all()
    return sum(p.amount_minor_units for p in paid) - sum(r.amount_minor_units for r in back)


def _check_gift_card(m: PaymentMethodRow, amount: int) -> None:
    if m.source == "gift_card" and amount > 0 and (m.balance_minor_units or 0) < amount:
        raise Fail(
            "insufficient_balance",
            f"gift card {m.payment_method_id} has {_money(m.balance_minor_units or 0)}",
        )


def _action(
    s: Session,
    caller: Caller,
    call_id: str,
    seq: int,
    *,
    user_id: str,
    action: str,
    order: OrderRow | None = None,
    status_before: str | None = None,
    payment_method_id: str | None = None,
    reason: str | None = None,
    diff: int = 0,
) -> CommittedWrite:
    row = ActionRow(
        action_id=f"ACT-{seq:04d}",
        tenant_id=caller.tenant_id,
        user_id=user_id,
        order_id=order.order_id if order else None,
        action=action,
        status_before=status_before,
        status_after=order.status if order else None,
        payment_method_id=payment_method_id,
        reason=reason,
        price_difference_minor_units=diff,
        committed_seq=seq,
        call_id=call_id,
    )
    s.add(row)
    return _write("order_action", row.action_id, "create")


def _log(
    svc: Service, s: Session, caller: Caller, call_id: str, seq: int, what: str, rid: str
) -> None:
    kind, _, _ = what.partition(".")
    svc.audit(
        s,
        tenant_id=caller.tenant_id,
        seq=seq,
        actor=caller.principal,
        action=what,
        record_kind=kind,
        record_id=rid,
        call_id=call_id,
    )


def _refund(
    s: Session, caller: Caller, call_id: str, seq: int, order: OrderRow, m: PaymentMethodRow, n: int
) -> list[CommittedWrite]:
    row = RefundRow(
        refund_id=f"RF-{seq:04d}-{m.payment_method_id}",
        tenant_id=caller.tenant_id,
        order_id=order.order_id,
        payment_method_id=m.payment_method_id,
        amount_minor_units=n,
        committed_seq=seq,
        call_id=call_id,
    )
    s.add(row)
    out = [_write("refund", row.refund_id, "create")]
    if m.source == "gift_card":  # a gift card is refunded at once
        m.balance_minor_units = (m.balance_minor_units or 0) + n
        s.add(m)
        out.append(_write("payment_method", m.payment_method_id, "update"))
    return out


def _pay(
    s: Session, caller: Caller, seq: int, order: OrderRow, m: PaymentMethodRow, n: int
) -> list[CommittedWrite]:
    row = PaymentRow(
        payment_id=f"PAY-{seq:04d}-{m.payment_method_id}",
        tenant_id=caller.tenant_id,
        order_id=order.order_id,
        payment_method_id=m.payment_method_id,
        amount_minor_units=n,
        committed_seq=seq,
    )
    s.add(row)
    out = [_write("payment", row.payment_id, "create")]
    if m.source == "gift_card":
        m.balance_minor_units = (m.balance_minor_units or 0) - n
        s.add(m)
        out.append(_write("payment_method", m.payment_method_id, "update"))
    return out


# --- handlers: reads -----------------------------------------------------------------------------


def find_user_id_by_email(
    svc: Service, s: Session, caller: Caller, call_id: str, seq: int, args: dict[str, Any]
) -> Handled:
    email = str(args["email"]).strip().lower()
    row = s.exec(select(CustomerRow).where(col(CustomerRow.email) == email)).first()
    if row is None:
        raise Fail("not_found", "no customer with that email")
    return ok({"user_id": row.user_id}, reads=[_ref("customer", row.user_id)])


def find_user_id_by_name_zip(
    svc: Service, s: Session, caller: Caller, call_id: str, seq: int, args: dict[str, Any]
) -> Handled:
    first, last = str(args["first_name"]).strip().lower(), str(args["last_name"]).strip().lower()
    for row in s.exec(select(CustomerRow).where(CustomerRow.zip == str(args["zip"]).strip())):
        if row.first_name.lower() == first and row.last_name.lower() == last:
            return ok({"user_id": row.user_id}, reads=[_ref("customer", row.user_id)])
    raise Fail("not_found", "no customer with that name and zip code")


def get_user_details(
    svc: Service, s: Session, caller: Caller, call_id: str, seq: int, args: dict[str, Any]
) -> Handled:
    c: CustomerRow = owned(svc, s, caller, CustomerRow, args["user_id"], "user")
    methods = _methods(s, c.user_id)
    orders = s.exec(
        select(OrderRow).where(OrderRow.user_id == c.user_id).order_by(col(OrderRow.order_id))
    ).all()
    reads = [_ref("customer", c.user_id)]
    reads += [_ref("payment_method", m.payment_method_id) for m in methods]
    return ok(
        {
            "user_id": c.user_id,
            "name": {"first_name": c.first_name, "last_name": c.last_name},
            "email": c.email,
            "address": {
                "address1": c.address1,
                "address2": c.address2,
                "city": c.city,
                "state": c.state,
                "country": c.country,
                "zip": c.zip,
            },
            "payment_methods": [_method_view(m) for m in methods],
            "orders": [f"#{o.order_id}" for o in orders],
        },
        reads=reads,
    )


def get_order_details(
    svc: Service, s: Session, caller: Caller, call_id: str, seq: int, args: dict[str, Any]
) -> Handled:
    o: OrderRow = owned(svc, s, caller, OrderRow, order_key(args["order_id"]), "order")
    user = args.get("user_id")
    if user is not None and user != o.user_id:  # the customer in session's orders only
        raise Fail("not_found", f"no order {args['order_id']} of {user}")
    reads = [_ref("order", o.order_id)]
    reads += [_ref("order_line", line.line_id) for line in _lines(s, o.order_id)]
    return ok(_order_view(s, o), reads=reads)


def get_product_details(
    svc: Service, s: Session, caller: Caller, call_id: str, seq: int, args: dict[str, Any]
) -> Handled:
    p: ProductRow = owned(svc, s, caller, ProductRow, args["product_id"], "product")
    stmt = (
        select(VariantRow)
        .where(VariantRow.product_id == p.product_id)
        .order_by(col(VariantRow.item_id))
    )
    variants = list(s.exec(stmt).all())
    reads = [_ref("product", p.product_id)] + [_ref("variant", v.item_id) for v in variants]
    return ok(
        {
            "product_id": p.product_id,
            "name": p.name,
            "variants": [
                {
                    "item_id": v.item_id,
                    "options": json.loads(v.options),
                    "available": v.available,
                    "price": _money(v.price_minor_units),
                }
                for v in variants
            ],
        },
        reads=reads,
    )


def transfer_to_human_agents(
    svc: Service, s: Session, caller: Caller, call_id: str, seq: int, args: dict[str, Any]
) -> Handled:
    return ok({"status": "transferred", "summary": args["summary"]})


# --- handlers: writes ----------------------------------------------------------------------------


def cancel_pending_order(
    svc: Service, s: Session, caller: Caller, call_id: str, seq: int, args: dict[str, Any]
) -> Handled:
    o = _order(svc, s, caller, args["order_id"], "cancel")
    before = o.status
    m = s.get(PaymentMethodRow, o.payment_method_id)
    assert m is not None
    due = _net(s, o)
    o.status = "cancelled"
    s.add(o)
    writes = [_write("order", o.order_id, "update")]
    writes += _refund(s, caller, call_id, seq, o, m, due)
    writes.append(
        _action(
            s,
            caller,
            call_id,
            seq,
            user_id=o.user_id,
            action="cancel",
            order=o,
            status_before=before,
            payment_method_id=m.payment_method_id,
            reason=str(args["reason"]),
        )
    )
    _log(svc, s, caller, call_id, seq, "order.cancelled", o.order_id)
    return ok(
        {**_order_view(s, o), "refunded": _money(due)},
        writes=writes,
    )


def return_delivered_order_items(
    svc: Service, s: Session, caller: Caller, call_id: str, seq: int, args: dict[str, Any]
) -> Handled:
    o = _order(svc, s, caller, args["order_id"], "return")
    before = o.status
    m = _method(s, o, args["payment_method_id"])
    if m.payment_method_id != o.payment_method_id and m.source != "gift_card":
        raise Fail(
            "invalid_payment_method",
            "a refund goes to the original payment method or one of the customer's gift cards",
        )
    lines = _pick_lines(s, o, _items(args["item_ids"]))
    writes = []
    for line in lines:
        line.status = "return requested"
        s.add(line)
        writes.append(_write("order_line", line.line_id, "update"))
    o.status = "return requested"
    s.add(o)
    writes.append(_write("order", o.order_id, "update"))
    due = sum(line.price_minor_units for line in lines)
    writes.append(
        _action(
            s,
            caller,
            call_id,
            seq,
            user_id=o.user_id,
            action="return",
            order=o,
            status_before=before,
            payment_method_id=m.payment_method_id,
            diff=-due,
        )
    )
    _log(svc, s, caller, call_id, seq, "order.return_requested", o.order_id)
    return ok({**_order_view(s, o), "refund_due": _money(due)}, writes=writes)


def exchange_delivered_order_items(
    svc: Service, s: Session, caller: Caller, call_id: str, seq: int, args: dict[str, Any]
) -> Handled:
    o = _order(svc, s, caller, args["order_id"], "exchange")
    before = o.status
    m = _method(s, o, args["payment_method_id"])
    lines, new, diff = _swaps(s, o, args)
    _check_gift_card(m, diff)
    writes = []
    for line, v in zip(lines, new, strict=True):
        line.status, line.new_item_id = "exchange requested", v.item_id
        s.add(line)
        writes.append(_write("order_line", line.line_id, "update"))
    o.status = "exchange requested"
    s.add(o)
    writes.append(_write("order", o.order_id, "update"))
    writes.append(
        _action(
            s,
            caller,
            call_id,
            seq,
            user_id=o.user_id,
            action="exchange",
            order=o,
            status_before=before,
            payment_method_id=m.payment_method_id,
            diff=diff,
        )
    )
    _log(svc, s, caller, call_id, seq, "order.exchange_requested", o.order_id)
    return ok({**_order_view(s, o), "price_difference": _money(diff)}, writes=writes)


def modify_pending_order_items(
    svc: Service, s: Session, caller: Caller, call_id: str, seq: int, args: dict[str, Any]
) -> Handled:
    o = _order(svc, s, caller, args["order_id"], "modify_items")
    before = o.status
    m = _method(s, o, args["payment_method_id"])
    lines, new, diff = _swaps(s, o, args)
    _check_gift_card(m, diff)
    writes = []
    for line, v in zip(lines, new, strict=True):
        line.new_item_id = v.item_id
        line.item_id, line.price_minor_units, line.status = (
            v.item_id,
            v.price_minor_units,
            "modified",
        )
        s.add(line)
        writes.append(_write("order_line", line.line_id, "update"))
    if diff > 0:
        writes += _pay(s, caller, seq, o, m, diff)
    elif diff < 0:
        writes += _refund(s, caller, call_id, seq, o, m, -diff)
    o.paid_minor_units += max(diff, 0)
    o.status = "pending (items modified)"
    s.add(o)
    writes.append(_write("order", o.order_id, "update"))
    writes.append(
        _action(
            s,
            caller,
            call_id,
            seq,
            user_id=o.user_id,
            action="modify_items",
            order=o,
            status_before=before,
            payment_method_id=m.payment_method_id,
            diff=diff,
        )
    )
    _log(svc, s, caller, call_id, seq, "order.items_modified", o.order_id)
    return ok({**_order_view(s, o), "price_difference": _money(diff)}, writes=writes)


_ADDRESS = ("address1", "address2", "city", "state", "country", "zip")


def modify_pending_order_address(
    svc: Service, s: Session, caller: Caller, call_id: str, seq: int, args: dict[str, Any]
) -> Handled:
    o = _order(svc, s, caller, args["order_id"], "modify_address")
    for name in _ADDRESS:
        setattr(o, name, str(args.get(name, "")))
    s.add(o)
    writes = [_write("order", o.order_id, "update")]
    writes.append(
        _action(
            s,
            caller,
            call_id,
            seq,
            user_id=o.user_id,
            action="modify_address",
            order=o,
            status_before=o.status,
        )
    )
    _log(svc, s, caller, call_id, seq, "order.address_modified", o.order_id)
    return ok(_order_view(s, o), writes=writes)


def modify_pending_order_payment(
    svc: Service, s: Session, caller: Caller, call_id: str, seq: int, args: dict[str, Any]
) -> Handled:
    o = _order(svc, s, caller, args["order_id"], "modify_payment")
    new = _method(s, o, args["payment_method_id"])
    if new.payment_method_id == o.payment_method_id:
        raise Fail("invalid_argument", "the order is already paid with that payment method")
    old = s.get(PaymentMethodRow, o.payment_method_id)
    assert old is not None
    due = _net(s, o)
    _check_gift_card(new, due)
    writes = _pay(s, caller, seq, o, new, due)
    writes += _refund(s, caller, call_id, seq, o, old, due)
    o.paid_minor_units += due
    o.payment_method_id = new.payment_method_id
    s.add(o)
    writes.append(_write("order", o.order_id, "update"))
    writes.append(
        _action(
            s,
            caller,
            call_id,
            seq,
            user_id=o.user_id,
            action="modify_payment",
            order=o,
            status_before=o.status,
            payment_method_id=new.payment_method_id,
        )
    )
    _log(svc, s, caller, call_id, seq, "order.payment_modified", o.order_id)
    return ok(_order_view(s, o), writes=writes)


def modify_user_address(
    svc: Service, s: Session, caller: Caller, call_id: str, seq: int, args: dict[str, Any]
) -> Handled:
    c: CustomerRow = owned(svc, s, caller, CustomerRow, args["user_id"], "user")
    for name in _ADDRESS:
        setattr(c, name, str(args.get(name, "")))
    s.add(c)
    writes = [_write("customer", c.user_id, "update")]
    writes.append(_action(s, caller, call_id, seq, user_id=c.user_id, action="modify_user_address"))
    _log(svc, s, caller, call_id, seq, "customer.address_modified", c.user_id)
    return ok(
        {"user_id": c.user_id, "address": {n: getattr(c, n) for n in _ADDRESS}}, writes=writes
    )


# --- the tool set --------------------------------------------------------------------------------

_ORDER = {
    "type": "string",
    "pattern": r"^#?W[0-9]{7}$",
    "maxLength": 9,
    "description": "An order id such as #W0000000.",
}
_ITEMS = {
    "type": "string",
    "pattern": r"^[0-9]{10}(,[0-9]{10})*$",
    "maxLength": 2000,
    "description": "Item ids, comma-separated, e.g. 1151293680,4983901480.",
}
_TEXT = {**STRING_SCHEMA, "maxLength": 200}
_ZIP = {"type": "string", "pattern": r"^[0-9]{5}$", "maxLength": 5}
_ADDRESS_ARGS = {
    "address1": _TEXT,
    "address2": _TEXT,
    "city": _TEXT,
    "state": _TEXT,
    "country": _TEXT,
    "zip": _ZIP,
}
_PM = {**ID_SCHEMA, "description": "A payment method id, e.g. credit_card_0000000."}
_ORDER_WRITE = ("order:write",)

TOOLS = ToolSet(
    [
        ToolDecl(
            "find_user_id_by_email",
            "Find a customer's user id by their email (authentication).",
            {"email": _TEXT},
            ("email",),
            find_user_id_by_email,
        ),
        ToolDecl(
            "find_user_id_by_name_zip",
            "Find a customer's user id by first name, last name and zip code (authentication).",
            {"first_name": _TEXT, "last_name": _TEXT, "zip": _ZIP},
            ("first_name", "last_name", "zip"),
            find_user_id_by_name_zip,
        ),
        ToolDecl(
            "get_user_details",
            "A customer's profile: name, email, address, payment methods and order ids.",
            {"user_id": ID_SCHEMA},
            ("user_id",),
            get_user_details,
        ),
        ToolDecl(
            "get_order_details",
            "An order's status, address, items and payment; with user_id, only that "
            "customer's order is found.",
            {"order_id": _ORDER, "user_id": ID_SCHEMA},
            ("order_id",),
            get_order_details,
        ),
        ToolDecl(
            "get_product_details",
            "A product of the catalogue and its variant items (options, availability, price).",
            {"product_id": ID_SCHEMA},
            ("product_id",),
            get_product_details,
        ),
        ToolDecl(
            "cancel_pending_order",
            "Cancel a pending order; what was paid is refunded to its payment method.",
            {
                "order_id": _ORDER,
                "reason": {"type": "string", "enum": ["no longer needed", "ordered by mistake"]},
            },
            ("order_id", "reason"),
            cancel_pending_order,
            scopes=_ORDER_WRITE,
            writes=True,
        ),
        ToolDecl(
            "return_delivered_order_items",
            "Request the return of items of a delivered order; the refund goes to the original "
            "payment method or a gift card.",
            {"order_id": _ORDER, "item_ids": _ITEMS, "payment_method_id": _PM},
            ("order_id", "item_ids", "payment_method_id"),
            return_delivered_order_items,
            scopes=_ORDER_WRITE,
            writes=True,
        ),
        ToolDecl(
            "exchange_delivered_order_items",
            "Exchange items of a delivered order for available variants of the same products; "
            "once per order.",
            {
                "order_id": _ORDER,
                "item_ids": _ITEMS,
                "new_item_ids": _ITEMS,
                "payment_method_id": _PM,
            },
            ("order_id", "item_ids", "new_item_ids", "payment_method_id"),
            exchange_delivered_order_items,
            scopes=_ORDER_WRITE,
            writes=True,
        ),
        ToolDecl(
            "modify_pending_order_items",
            "Change items of a pending order to available variants of the same products; once "
            "per order (the order cannot be changed afterwards).",
            {
                "order_id": _ORDER,
                "item_ids": _ITEMS,
                "new_item_ids": _ITEMS,
                "payment_method_id": _PM,
            },
            ("order_id", "item_ids", "new_item_ids", "payment_method_id"),
            modify_pending_order_items,
            scopes=_ORDER_WRITE,
            writes=True,
        ),
        ToolDecl(
            "modify_pending_order_address",
            "Change the shipping address of a pending order.",
            {"order_id": _ORDER, **_ADDRESS_ARGS},
            ("order_id", "address1", "city", "state", "country", "zip"),
            modify_pending_order_address,
            scopes=_ORDER_WRITE,
            writes=True,
        ),
        ToolDecl(
            "modify_pending_order_payment",
            "Pay a pending order with another of the customer's payment methods.",
            {"order_id": _ORDER, "payment_method_id": _PM},
            ("order_id", "payment_method_id"),
            modify_pending_order_payment,
            scopes=_ORDER_WRITE,
            writes=True,
        ),
        ToolDecl(
            "modify_user_address",
            "Change a customer's default address.",
            {"user_id": ID_SCHEMA, **_ADDRESS_ARGS},
            ("user_id", "address1", "city", "state", "country", "zip"),
            modify_user_address,
            scopes=("profile:write",),
            writes=True,
        ),
        ToolDecl(
            "transfer_to_human_agents",
            "Hand the conversation to a person, with a summary of the customer's request.",
            {"summary": {**STRING_SCHEMA, "maxLength": 2000}},
            ("summary",),
            transfer_to_human_agents,
        ),
    ]
)


# --- the world a case starts from ----------------------------------------------------------------


def build_service(path: Path, fx: Fixture, world: World = WORLD) -> RetailService:
    """A fresh database at `path` seeded with the pack's subset of tau2-bench's retail
    database (or another `world` read from the benchmark's database), each order's status as
    the case overrides it."""
    rows: list[object] = [
        TenantRow(tenant_id=SHOP, name="The online shop"),
        PermissionRow(permission_id="grant_retail", tenant_id=SHOP, principal=AGENT, scopes=SCOPES),
        # another shop on the same platform, so that calibrant's tenant rules have a neighbour
        # to compare with (they say harness_error when the snapshots hold one tenant only)
        TenantRow(tenant_id=OTHER_SHOP, name="The outlet"),
        CustomerRow(
            user_id="marta_vidal_1000",
            tenant_id=OTHER_SHOP,
            first_name="Marta",
            last_name="Vidal",
            email="marta.vidal@example.org",
            address1="12 Harbour Road",
            city="Portland",
            state="ME",
            country="USA",
            zip="04101",
        ),
        PermissionRow(
            permission_id="grant_outlet",
            tenant_id=OTHER_SHOP,
            principal="agent:outlet",
            scopes=SCOPES,
        ),
    ]
    for c in world.customers:
        rows.append(CustomerRow(**c.model_dump()))
    for m in world.payment_methods:
        rows.append(PaymentMethodRow(**m.model_dump(exclude={"currency"})))
    for p in world.products:
        rows.append(ProductRow(tenant_id=SHOP, **p.model_dump()))
    for v in world.variants:
        data = v.model_dump(exclude={"currency", "options"})
        rows.append(
            VariantRow(tenant_id=SHOP, options=json.dumps(v.options, sort_keys=True), **data)
        )
    for o in world.orders:
        data = o.model_dump(exclude={"currency"})
        data["status"] = fx.order_status.get(o.order_id, o.status)
        rows.append(OrderRow(**data))
    for n, line in enumerate(world.order_lines):
        rows.append(OrderLineRow(position=n, **line.model_dump(exclude={"currency"})))
    for pay in world.payments:
        rows.append(PaymentRow(**pay.model_dump(exclude={"currency"})))
    engine = fresh_database(path, TABLES, rows)
    return RetailService(engine, base_time=T0, status_guard=fx.status_guard)


# --- the evaluator's snapshot --------------------------------------------------------------------

SNAPSHOT_TABLES = (
    SnapshotTable("customer", CustomerRow, "user_id", lambda r, _: Customer(**r.model_dump())),
    SnapshotTable(
        "payment_method",
        PaymentMethodRow,
        "payment_method_id",
        lambda r, _: PaymentMethod(**r.model_dump()),
    ),
    SnapshotTable(
        "product",
        ProductRow,
        "product_id",
        lambda r, _: Product(**r.model_dump(exclude={"tenant_id"})),
    ),
    SnapshotTable(
        "variant",
        VariantRow,
        "item_id",
        lambda r, _: Variant(
            **r.model_dump(exclude={"tenant_id", "options"}), options=json.loads(r.options)
        ),
    ),
    SnapshotTable("order", OrderRow, "order_id", lambda r, _: Order(**r.model_dump())),
    SnapshotTable(
        "order_line",
        OrderLineRow,
        "line_id",
        lambda r, _: OrderLine(**r.model_dump(exclude={"position"})),
    ),
    SnapshotTable(
        "order_action", ActionRow, "committed_seq", lambda r, _: OrderAction(**r.model_dump())
    ),
    SnapshotTable("payment", PaymentRow, "payment_id", lambda r, _: Payment(**r.model_dump())),
    SnapshotTable("refund", RefundRow, "refund_id", lambda r, _: Refund(**r.model_dump())),
)
