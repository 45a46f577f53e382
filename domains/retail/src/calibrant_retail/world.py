"""The shop every retail trial starts from: the pack's subset of tau2-bench's public retail
database (`data/tau2_retail_subset.json`, written by `scripts/extract_tau2_subset.py`; the
data's README names the source and its licence), read once into the pack's records. Dollar
amounts become integer cents; the database's `#W...` order ids lose their `#`."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from .records import Customer, Order, OrderLine, Payment, PaymentMethod, Product, Variant

__all__ = ["SOURCE", "World", "WORLD", "load_world", "world_from"]

SOURCE = Path(__file__).parent / "data" / "tau2_retail_subset.json"
SHOP = "shop"


def cents(amount: float) -> int:
    return round(amount * 100)


@dataclass(frozen=True)
class World:
    customers: tuple[Customer, ...]
    payment_methods: tuple[PaymentMethod, ...]
    products: tuple[Product, ...]
    variants: tuple[Variant, ...]
    orders: tuple[Order, ...]
    order_lines: tuple[OrderLine, ...]
    payments: tuple[Payment, ...]


def _address(a: dict[str, Any]) -> dict[str, str]:
    return {
        k: str(a.get(k, "")) for k in ("address1", "address2", "city", "state", "country", "zip")
    }


@cache
def load_world(path: Path = SOURCE) -> World:
    return world_from(json.loads(path.read_text(encoding="utf-8")))


def world_from(raw: dict[str, Any]) -> World:
    """The pack's records of a retail database in the benchmark's layout ({users, orders,
    products}, keyed by id)."""
    customers, methods, orders, lines, payments = [], [], [], [], []
    for u in raw["users"].values():
        customers.append(
            Customer(
                user_id=u["user_id"],
                tenant_id=SHOP,
                first_name=u["name"]["first_name"],
                last_name=u["name"]["last_name"],
                email=u["email"],
                **_address(u["address"]),
            )
        )
        for m in u["payment_methods"].values():
            balance = m.get("balance")
            methods.append(
                PaymentMethod(
                    payment_method_id=m["id"],
                    tenant_id=SHOP,
                    user_id=u["user_id"],
                    source=m["source"],
                    brand=m.get("brand"),
                    last_four=m.get("last_four"),
                    balance_minor_units=None if balance is None else cents(balance),
                )
            )
    for o in raw["orders"].values():
        oid = o["order_id"].removeprefix("#")
        history = o["payment_history"]
        paid = sum(cents(p["amount"]) for p in history if p["transaction_type"] == "payment")
        paid -= sum(cents(p["amount"]) for p in history if p["transaction_type"] == "refund")
        first = next(p for p in history if p["transaction_type"] == "payment")
        orders.append(
            Order(
                order_id=oid,
                tenant_id=SHOP,
                user_id=o["user_id"],
                status=o["status"],
                payment_method_id=first["payment_method_id"],
                paid_minor_units=paid,
                **_address(o["address"]),
            )
        )
        for n, item in enumerate(o["items"], start=1):
            lines.append(
                OrderLine(
                    line_id=f"{oid}-{n}",
                    tenant_id=SHOP,
                    order_id=oid,
                    item_id=item["item_id"],
                    product_id=item["product_id"],
                    name=item["name"],
                    price_minor_units=cents(item["price"]),
                )
            )
        for n, p in enumerate(history, start=1):
            if p["transaction_type"] == "payment":
                payments.append(
                    Payment(
                        payment_id=f"PAY-{oid}-{n}",
                        tenant_id=SHOP,
                        order_id=oid,
                        payment_method_id=p["payment_method_id"],
                        amount_minor_units=cents(p["amount"]),
                        committed_seq=0,
                    )
                )
    products, variants = [], []
    for p in raw["products"].values():
        products.append(Product(product_id=p["product_id"], name=p["name"]))
        for v in p["variants"].values():
            variants.append(
                Variant(
                    item_id=v["item_id"],
                    product_id=p["product_id"],
                    options={k: str(x) for k, x in v["options"].items()},
                    available=bool(v["available"]),
                    price_minor_units=cents(v["price"]),
                )
            )
    return World(
        customers=tuple(sorted(customers, key=lambda c: c.user_id)),
        payment_methods=tuple(sorted(methods, key=lambda m: m.payment_method_id)),
        products=tuple(sorted(products, key=lambda p: p.product_id)),
        variants=tuple(sorted(variants, key=lambda v: v.item_id)),
        orders=tuple(sorted(orders, key=lambda o: o.order_id)),
        order_lines=tuple(lines),
        payments=tuple(payments),
    )


WORLD = load_world()
