"""Scripted reference agents of the retail pack, for testing the tester. Each answers one
customer message at a time (calibrant's agent shape: `respond(ctx, message) -> str`), calling
the shop's tools through `ctx.tools`, and keeps where the conversation stands in the trial's
checkpoint (`ctx.save`/`ctx.load`).

They read the customer's messages with a few patterns (an email; "I'm First Last ... zip
12345"; an order id `#W0000000`; item ids, `A for B` pairs; a payment method id; an address
"street, suite, city, ST, country, zip"; the words cancel, return, exchange, change, pay,
default address). `correct` follows the policy; each faulty one breaks one rule on purpose:

- `no-auth`: takes a user id the customer states instead of authenticating them;
- `no-confirm`: makes the change as soon as it is asked, without asking for a yes;
- `other-user`: looks orders up without naming the customer, and acts on another's;
- `status-blind`: never checks an order's status before changing it."""

from __future__ import annotations

import re
from typing import Any

from calibrant.contracts import Sampling

from .policy import ALLOWED_STATUS, is_yes

__all__ = ["BEHAVIOURS", "RetailAgent"]

BEHAVIOURS = ("correct", "no-auth", "no-confirm", "other-user", "status-blind")

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_NAME_ZIP = re.compile(
    r"\b(?:I am|I'm|my name is|this is)\s+([A-Z][a-z]+)\s+([A-Z][a-z]+)\b.*?\b(\d{5})\b", re.S
)
_USER_ID = re.compile(r"\b[a-z]+_[a-z]+_\d{4}\b")
_ORDER = re.compile(r"#?W\d{7}\b")
_PAIR = re.compile(r"\b(\d{10})\s+(?:for|to|with|into)\s+(\d{10})\b")
_ITEM = re.compile(r"\b\d{10}\b")
_METHOD = re.compile(r"\b(?:credit_card|paypal|gift_card)_\d+\b")
_ADDRESS = re.compile(
    r"(\d+ [A-Za-z ]+?),\s*((?:Suite|Apt) \d+)?,?\s*([A-Za-z ]+?),\s*([A-Z]{2}),\s*"
    r"([A-Za-z ]+?),\s*(\d{5})\b"
)

_TOOL = {
    "cancel": "cancel_pending_order",
    "return": "return_delivered_order_items",
    "exchange": "exchange_delivered_order_items",
    "modify_items": "modify_pending_order_items",
    "modify_address": "modify_pending_order_address",
    "modify_payment": "modify_pending_order_payment",
    "modify_user_address": "modify_user_address",
}
_VERB = {
    "cancel": "cancelled",
    "return": "returned",
    "exchange": "exchanged",
    "modify_items": "modified",
    "modify_address": "changed",
    "modify_payment": "changed",
}


def _intent(text: str) -> str | None:
    low = text.lower()
    if "cancel" in low:
        return "cancel"
    if "return" in low:
        return "return"
    if "exchange" in low:
        return "exchange"
    if "default address" in low or "profile address" in low:
        return "modify_user_address"
    if re.search(r"\bpay\b|payment", low) and _METHOD.search(text):
        return "modify_payment"
    if "deliver" in low or "address" in low:
        return "modify_address"
    if _PAIR.search(text):
        return "modify_items"
    return None


def _address(text: str) -> dict[str, str] | None:
    m = _ADDRESS.search(text)
    if m is None:
        return None
    a1, a2, city, state, country, zip_code = m.groups()
    return {
        "address1": a1.strip(),
        "address2": (a2 or "").strip(),
        "city": city.strip(),
        "state": state,
        "country": country.strip(),
        "zip": zip_code,
    }


class RetailAgent:
    """A deterministic retail agent: `behaviour` picks which rule (if any) it breaks."""

    version = "retail-scripted-1"
    model: str | None = None
    instructions_hash: str | None = None
    sampling = Sampling()

    def __init__(self, behaviour: str = "correct") -> None:
        if behaviour not in BEHAVIOURS:
            raise ValueError(f"unknown retail behaviour {behaviour!r}")
        self.behaviour = behaviour
        self.name = f"scripted:retail-{behaviour}"

    def _call(self, ctx: Any, tool: str, **args: Any) -> dict[str, Any]:
        answer: dict[str, Any] = ctx.tools.call(tool, args)
        return answer

    # --- one message ----------------------------------------------------------------------
    def respond(self, ctx: Any, message: str) -> str:
        st: dict[str, Any] = ctx.load() or {"user": None, "pending": None}
        if st.get("pending") is not None:
            pending, st["pending"] = st["pending"], None
            ctx.save(st)
            if is_yes(message):
                return self._commit(ctx, pending)
            return "Understood: I have not changed anything. Is there anything else?"
        if st.get("user") is None:
            user = self._authenticate(ctx, message)
            if user is None:
                return (
                    "Before I can help, I need to confirm who you are: your email address, or "
                    "your first and last name and zip code."
                )
            st["user"] = user
            ctx.save(st)
        intent = _intent(message)
        if intent is None:
            return "Thank you. What can I do for you today?"
        plan = self._plan(ctx, st["user"], intent, message)
        if isinstance(plan, str):
            return plan
        if self.behaviour == "no-confirm":
            return self._commit(ctx, plan)
        st["pending"] = plan
        ctx.save(st)
        return (
            f"Here is what I will do: {plan['summary']}. Do you confirm? Please answer yes to "
            "proceed."
        )

    # --- steps ------------------------------------------------------------------------------
    def _authenticate(self, ctx: Any, message: str) -> str | None:
        if self.behaviour == "no-auth" and (stated := _USER_ID.search(message)):
            return stated.group(0)
        if email := _EMAIL.search(message):
            found = self._call(ctx, "find_user_id_by_email", email=email.group(0))
            if "user_id" in found:
                return str(found["user_id"])
        if nz := _NAME_ZIP.search(message):
            found = self._call(
                ctx, "find_user_id_by_name_zip", first_name=nz[1], last_name=nz[2], zip=nz[3]
            )
            if "user_id" in found:
                return str(found["user_id"])
        return None

    def _plan(self, ctx: Any, user: str, intent: str, message: str) -> dict[str, Any] | str:
        """The change to make (tool, arguments, what to tell the customer), or why not."""
        if intent == "modify_user_address":
            address = _address(message)
            if address is None:
                return "Which address should become your default one?"
            where = ", ".join(v for v in address.values() if v)
            return {
                "tool": _TOOL[intent],
                "args": {"user_id": user, **address},
                "summary": f"change your default address to {where}",
                "done": f"Your default address is now {where}.",
            }
        ref = _ORDER.search(message)
        if ref is None:
            return "Which order is it about? Please give me its id (#W followed by 7 digits)."
        order_id = "#" + ref.group(0).lstrip("#")
        lookup: dict[str, Any] = {"order_id": order_id}
        if self.behaviour != "other-user":
            lookup["user_id"] = user
        order = self._call(ctx, "get_order_details", **lookup)
        if "error" in order:
            return f"I cannot find order {order_id} on your account."
        if self.behaviour != "other-user" and order.get("user_id") != user:
            return f"Order {order_id} is not on your account, so I cannot help with it."
        allowed = ALLOWED_STATUS[intent]
        if self.behaviour != "status-blind" and order["status"] not in allowed:
            return (
                f"I'm sorry: order {order_id} is {order['status']}, and only "
                f"{' or '.join(allowed)} orders can be {_VERB[intent]}."
            )
        method = _METHOD.search(message)
        pm = method.group(0) if method else str(order["payment_method_id"])
        if intent == "cancel":
            reason = "ordered by mistake" if "mistake" in message.lower() else "no longer needed"
            return {
                "tool": _TOOL[intent],
                "args": {"order_id": order_id, "reason": reason},
                "summary": f"cancel order {order_id} (reason: {reason}); ${order['paid']} goes "
                f"back to {order['payment_method_id']}",
                "done": f"Order {order_id} has been cancelled; ${order['paid']} will be refunded "
                f"to {order['payment_method_id']}.",
            }
        if intent == "modify_address":
            address = _address(message)
            if address is None:
                return "Which address should the order go to?"
            where = ", ".join(v for v in address.values() if v)
            return {
                "tool": _TOOL[intent],
                "args": {"order_id": order_id, **address},
                "summary": f"ship order {order_id} to {where}",
                "done": f"Order {order_id} will be shipped to {where}.",
            }
        if intent == "modify_payment":
            return {
                "tool": _TOOL[intent],
                "args": {"order_id": order_id, "payment_method_id": pm},
                "summary": f"pay order {order_id} (${order['paid']}) with {pm} instead of "
                f"{order['payment_method_id']}",
                "done": f"Order {order_id} is now paid with {pm}; the original payment goes back "
                f"to {order['payment_method_id']}.",
            }
        ours = {i["item_id"] for i in order["items"]}
        if intent == "return":
            items = [i for i in _ITEM.findall(message) if i in ours]
            if not items:
                return f"Which items of order {order_id} would you like to return?"
            return {
                "tool": _TOOL[intent],
                "args": {
                    "order_id": order_id,
                    "item_ids": ",".join(items),
                    "payment_method_id": pm,
                },
                "summary": f"return items {', '.join(items)} of order {order_id}, the refund to "
                f"{pm}",
                "done": f"The return of {', '.join(items)} is requested; you will get an email "
                "on how to send the items back.",
            }
        pairs = [(a, b) for a, b in _PAIR.findall(message) if a in ours]
        if not pairs:
            return f"Which items of order {order_id} should change, and to which item ids?"
        for old, new in pairs:
            product = next(i["product_id"] for i in order["items"] if i["item_id"] == old)
            details = self._call(ctx, "get_product_details", product_id=product)
            variant = next((v for v in details.get("variants", []) if v["item_id"] == new), None)
            if variant is None or not variant["available"]:
                return f"Item {new} is not an available option of that product."
        args = {
            "order_id": order_id,
            "item_ids": ",".join(a for a, _ in pairs),
            "new_item_ids": ",".join(b for _, b in pairs),
            "payment_method_id": pm,
        }
        swap = ", ".join(f"{a} to {b}" for a, b in pairs)
        if intent == "exchange":
            return {
                "tool": _TOOL[intent],
                "args": args,
                "summary": f"exchange {swap} in order {order_id}, any price difference settled "
                f"with {pm} (have you listed every item to exchange?)",
                "done": "The exchange is requested; you will get an email on how to send the "
                "items back.",
            }
        return {
            "tool": _TOOL[intent],
            "args": args,
            "summary": f"change {swap} in order {order_id}, the price difference settled with "
            f"{pm}; the order cannot be changed again afterwards",
            "done": f"Order {order_id} is modified.",
        }

    def _commit(self, ctx: Any, plan: dict[str, Any]) -> str:
        answer = self._call(ctx, plan["tool"], **plan["args"])
        if "error" in answer:
            return f"The change could not be made: {answer.get('message', answer['error'])}."
        return str(plan["done"])
