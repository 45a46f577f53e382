"""Retail customer service, a calibrant domain pack, after tau2-bench's public retail domain.

A shop's agent helps one customer per conversation with their own orders: it authenticates the
customer (email, or name and zip code), then cancels or modifies pending orders (items,
shipping address, payment method), returns or exchanges items of delivered orders, or changes
the customer's default address, each write only after the customer's explicit "yes". The
shop is the pack's one tenant; each customer owns their profile, payment methods and orders
(a role the pack's invariants read); the catalogue is shared reference data no customer owns.
Found by calibrant through the entry point `retail = "calibrant_retail:pack"` (group
`calibrant.domains`); calibrant's core never imports it."""

from __future__ import annotations

from pathlib import Path

from calibrant.pack import (
    Bound,
    Confirmation,
    DomainPack,
    EffectSpec,
    EvidenceItem,
    JudgePhrasing,
    MoneyField,
    PackRuntime,
    RecordSpec,
    SnapshotSpec,
    Transcript,
)

from .cases import Fixture
from .records import (
    Customer,
    Order,
    OrderAction,
    OrderLine,
    Payment,
    PaymentMethod,
    Product,
    Refund,
    RetailSnapshot,
    Variant,
)

__all__ = ["pack", "CONFIRMATIONS", "DATA", "EFFECTS", "JUDGE", "OWNED_KINDS", "RECORDS"]

DATA = Path(__file__).parent / "data"
_ADDRESS = ("address1", "address2", "city", "state", "country", "zip")

RECORDS = (
    RecordSpec(
        kind="customer",
        model=Customer,
        id_field="user_id",
        tenant_field="tenant_id",
        protected_fields=("first_name", "last_name", "email", "address1"),
        name_fields=("last_name",),
        address_fields=("email",),
        state_fields=_ADDRESS,
    ),
    RecordSpec(
        kind="payment_method",
        model=PaymentMethod,
        id_field="payment_method_id",
        tenant_field="tenant_id",
        protected_fields=("last_four",),
        state_fields=("user_id", "source", "balance_minor_units"),
    ),
    # the catalogue: shared reference data, owned by no customer and by no tenant
    RecordSpec(kind="product", model=Product, id_field="product_id", state_fields=("name",)),
    RecordSpec(
        kind="variant",
        model=Variant,
        id_field="item_id",
        money_fields=(MoneyField("price_minor_units", "currency"),),
        state_fields=("product_id", "available"),
    ),
    RecordSpec(
        kind="order",
        model=Order,
        id_field="order_id",
        tenant_field="tenant_id",
        money_fields=(MoneyField("paid_minor_units", "currency"),),
        state_fields=("user_id", "status", "payment_method_id", *_ADDRESS),
    ),
    RecordSpec(
        kind="order_line",
        model=OrderLine,
        id_field="line_id",
        tenant_field="tenant_id",
        money_fields=(MoneyField("price_minor_units", "currency"),),
        state_fields=("order_id", "item_id", "status", "new_item_id"),
    ),
    RecordSpec(
        kind="order_action",
        model=OrderAction,
        id_field="action_id",
        tenant_field="tenant_id",
        state_fields=("user_id", "order_id", "action", "status_before", "status_after"),
    ),
    RecordSpec(
        kind="payment",
        model=Payment,
        id_field="payment_id",
        tenant_field="tenant_id",
        money_fields=(MoneyField("amount_minor_units", "currency"),),
        state_fields=("order_id", "payment_method_id"),
    ),
    RecordSpec(
        kind="refund",
        model=Refund,
        id_field="refund_id",
        tenant_field="tenant_id",
        money_fields=(MoneyField("amount_minor_units", "currency"),),
        state_fields=("order_id", "payment_method_id"),
    ),
)

OWNED_KINDS: dict[str, str] = {
    "customer": "user_id",
    "payment_method": "user_id",
    "order": "user_id",
    "order_action": "user_id",
    "order_line": "order_id",
    "payment": "order_id",
    "refund": "order_id",
}
"""The kinds a customer owns, and the field saying whose a record is: a customer's own id, or
the order it belongs to (whose customer owns it). Products and variants are nobody's."""

EFFECTS = (
    # a refund never exceeds what was paid for its order (calibrant's effects_within_bound)
    EffectSpec(
        kind="refund",
        subject="order_id",
        committed_seq="committed_seq",
        amount="amount_minor_units",
        call="call_id",
        bound=Bound(kind="order", amount="paid_minor_units"),
    ),
    EffectSpec(
        kind="order_action", subject="order_id", committed_seq="committed_seq", call="call_id"
    ),
)
"""The effects the core's generic invariants read (docs/domains.md): refunds, bounded by what
was paid for their order, and the changes to orders and profiles."""

CONFIRMATIONS = (
    Confirmation(effect="refund", claims=(r"\bwe(?: have|'ve)? refunded\b",)),
    Confirmation(effect="order_action", claims=(r"\bhas been cancell?ed\b",)),
)
"""What the agent says that claims an effect: true only once the effect committed."""


def _evidence(t: Transcript) -> list[EvidenceItem]:
    from .judging import customer_evidence

    return customer_evidence(t)


JUDGE = JudgePhrasing(
    about="their orders",
    effect="a change to an order",
    kinds=(
        ("payment_method", "payment method"),
        ("order_line", "order item"),
        ("order_action", "change"),
        ("variant", "product option"),
    ),
    evidence=_evidence,
)
"""The judge's words for the shop (calibrant.domains.JudgePhrasing), and its evidence: by role,
the session customer's records and those the tool log names only (`judging.py`)."""


def _runtime() -> PackRuntime:
    from .runtime import RetailRuntime

    return RetailRuntime()


def pack() -> DomainPack:
    """The retail pack's declaration (built when calibrant's registry asks for it)."""
    return DomainPack(
        name="retail",
        title="Retail customer service",
        version="0.1",
        description="A shop's agent cancels, modifies, returns and exchanges a customer's orders.",
        records=RECORDS,
        rubrics=DATA / "rubrics",
        cases=DATA / "cases",
        correct_agent="scripted:retail-correct",
        faulty_agents=(
            "scripted:retail-no-auth",
            "scripted:retail-no-confirm",
            "scripted:retail-other-user",
            "scripted:retail-status-blind",
        ),
        fault_points=(),
        snapshot=SnapshotSpec(RetailSnapshot, tenant_field="tenant_id", protected_fields=()),
        case_fixture=Fixture,
        runtime=_runtime,
        judge=JUDGE,
        effects=EFFECTS,
        confirmations=CONFIRMATIONS,
    )
