"""The retail pack's records, as the evaluator reads them from the shop's system of record.

One online shop (one tenant, `shop`) sells a catalogue of products, each with variant items
(options, availability, price); its customers each own their profile, their payment methods
and their orders. A customer is not a tenant: calibrant's tenant boundary is the shop, and
whose a record is (`user_id`) is a role the pack's own invariants read (README: "Customers,
not tenants"). Products and variants are shared reference data: no customer owns them, so
their records name no tenant at all. Money is integer cents (`USD`)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from calibrant.contracts.common import Contract, Id, MinorUnits

__all__ = [
    "ORDER_STATUSES",
    "Customer",
    "PaymentMethod",
    "Product",
    "Variant",
    "Order",
    "OrderLine",
    "OrderAction",
    "Payment",
    "Refund",
    "RetailSnapshot",
]

ORDER_STATUSES = (
    "pending",
    "pending (items modified)",
    "processed",
    "delivered",
    "cancelled",
    "return requested",
    "exchange requested",
)
OrderStatus = Literal[
    "pending",
    "pending (items modified)",
    "processed",
    "delivered",
    "cancelled",
    "return requested",
    "exchange requested",
]
ActionName = Literal[
    "cancel",
    "return",
    "exchange",
    "modify_items",
    "modify_address",
    "modify_payment",
    "modify_user_address",
]


class Customer(Contract):
    """A customer's profile: who they are (how the agent authenticates them: email, or name
    and zip code) and their default address."""

    user_id: Id
    tenant_id: Id
    first_name: str
    last_name: str
    email: str
    address1: str
    address2: str = ""
    city: str
    state: str
    country: str
    zip: str


class PaymentMethod(Contract):
    """A customer's payment method: a gift card (with a balance), a PayPal account or a
    credit card (brand and last four digits)."""

    payment_method_id: Id
    tenant_id: Id
    user_id: Id
    source: Literal["gift_card", "paypal", "credit_card"]
    brand: str | None = None
    last_four: str | None = None
    balance_minor_units: MinorUnits | None = None
    currency: str = "USD"


class Product(Contract):
    """A type of product of the catalogue (shared: no customer owns it)."""

    product_id: Id
    name: str


class Variant(Contract):
    """A variant item of a product: its options, whether it can be bought now, its price."""

    item_id: Id
    product_id: Id
    options: dict[str, str]
    available: bool
    price_minor_units: MinorUnits
    currency: str = "USD"


class Order(Contract):
    """A customer's order. `order_id` is the database's `#W...` id without its `#` (calibrant
    ids have none; the tools take both). `paid_minor_units` is everything the customer paid for
    it (the original payment and any price difference or new payment method charged since:
    what its refunds together never exceed); `payment_method_id` the method it is paid with."""

    order_id: Id
    tenant_id: Id
    user_id: Id
    status: OrderStatus
    address1: str
    address2: str = ""
    city: str
    state: str
    country: str
    zip: str
    payment_method_id: Id
    paid_minor_units: MinorUnits
    currency: str = "USD"


class OrderLine(Contract):
    """One item of an order (`line_id` is `<order>-<n>`); `status` says what was requested
    for it and `new_item_id` the variant it is being exchanged or modified to."""

    line_id: Id
    tenant_id: Id
    order_id: Id
    item_id: Id
    product_id: Id
    name: str
    price_minor_units: MinorUnits
    currency: str = "USD"
    status: Literal["ordered", "return requested", "exchange requested", "modified"] = "ordered"
    new_item_id: Id | None = None


class OrderAction(Contract):
    """One change the agent made through a writing tool, as the service recorded it: which
    (`action`), on whose record (`user_id`; `order_id` unless it changed the profile), the
    order's status when it was applied and after, the payment method it names (refund or
    price difference), the reason given, and when (`committed_seq`) by which call."""

    action_id: Id
    tenant_id: Id
    user_id: Id
    order_id: Id | None = None
    action: ActionName
    status_before: OrderStatus | None = None
    status_after: OrderStatus | None = None
    payment_method_id: Id | None = None
    reason: str | None = None
    price_difference_minor_units: int = 0
    currency: str = "USD"
    committed_seq: int
    call_id: Id


class Payment(Contract):
    """Money taken from a customer's payment method for an order (the original payment, or a
    price difference)."""

    payment_id: Id
    tenant_id: Id
    order_id: Id
    payment_method_id: Id
    amount_minor_units: MinorUnits
    currency: str = "USD"
    committed_seq: int


class Refund(Contract):
    """Money given back to a customer's payment method for an order (a cancellation, a
    cheaper variant, a change of payment method)."""

    refund_id: Id
    tenant_id: Id
    order_id: Id
    payment_method_id: Id
    amount_minor_units: MinorUnits
    currency: str = "USD"
    committed_seq: int
    call_id: Id | None = None


class RetailSnapshot(Contract):
    """The shop's records at one instant, read by an evaluator identity."""

    tenant_id: Id
    name: str
    customers: list[Customer] = Field(default_factory=list)
    payment_methods: list[PaymentMethod] = Field(default_factory=list)
    products: list[Product] = Field(default_factory=list)
    variants: list[Variant] = Field(default_factory=list)
    orders: list[Order] = Field(default_factory=list)
    order_lines: list[OrderLine] = Field(default_factory=list)
    actions: list[OrderAction] = Field(default_factory=list)
    payments: list[Payment] = Field(default_factory=list)
    refunds: list[Refund] = Field(default_factory=list)
