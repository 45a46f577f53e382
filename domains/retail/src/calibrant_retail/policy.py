"""The deterministic part of the shop's policy (tau2-bench's retail policy, restated), in one
place: the service's status guard, the scripted agents and the pack's invariants read it."""

from __future__ import annotations

import re

__all__ = ["ALLOWED_STATUS", "AUTH_TOOLS", "CUSTOMER_TOOLS", "NO", "WRITE_TOOLS", "YES", "is_yes"]

ALLOWED_STATUS: dict[str, tuple[str, ...]] = {
    "cancel": ("pending",),
    "modify_items": ("pending",),
    "modify_address": ("pending",),
    "modify_payment": ("pending",),
    "return": ("delivered",),
    "exchange": ("delivered",),
}
"""The order statuses each action may be applied from: cancel and modify only pending orders
(an order whose items were modified is 'pending (items modified)' and takes no further
change), return and exchange only delivered ones."""

AUTH_TOOLS = ("find_user_id_by_email", "find_user_id_by_name_zip")
"""The tools that authenticate a customer (by email, or by name and zip code)."""

WRITE_TOOLS = (
    "cancel_pending_order",
    "return_delivered_order_items",
    "exchange_delivered_order_items",
    "modify_pending_order_items",
    "modify_pending_order_address",
    "modify_pending_order_payment",
    "modify_user_address",
)
"""The tools that change the shop's records: each needs the customer's explicit yes first."""

CUSTOMER_TOOLS = ("get_user_details", "get_order_details", *WRITE_TOOLS)
"""The tools that look up or change a customer's records (not the shared catalogue)."""

YES = re.compile(r"\b(?:yes|yeah|yep|i confirm|confirmed|go ahead)\b", re.I)
NO = re.compile(r"\b(?:no|not|don'?t|do not|never|wait|hold on|keep it)\b", re.I)


def is_yes(text: str) -> bool:
    """An explicit yes: a word of assent and no word of refusal or delay."""
    return bool(YES.search(text)) and not NO.search(text)
