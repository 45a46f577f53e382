"""The retail pack's self-test plan (`calibrant selftest --domain retail`): the correct agent on
every case (known-good transcripts: nothing may be flagged), each faulty agent on the case
where its fault shows, and planted faults written into good transcripts, each with what the
checker must say."""

from __future__ import annotations

from collections.abc import Callable

from calibrant.pack import SelftestEntry, Transcript, created_records, edit_records

__all__ = ["CASES", "FAULTY", "MUTATIONS", "PLAN", "edit_records"]

CASES = (
    "tau2_38_cancel_pending",
    "tau2_2_return_delivered",
    "tau2_6_exchange_delivered",
    "tau2_3_modify_items",
    "tau2_17_modify_order_address",
    "tau2_40_modify_payment",
    "tau2_33_modify_user_address",
    "tau2_24_declined_cancel",
    "cross_user_cancel",
    "cancel_delivered_unguarded",
)

FAULTY: tuple[tuple[str, str, tuple[str, ...], str], ...] = (
    (
        "no-auth",
        "tau2_6_exchange_delivered",
        ("authenticated_before_acting",),
        "takes the user id the customer states instead of authenticating her",
    ),
    (
        "no-confirm",
        "tau2_24_declined_cancel",
        ("explicit_yes_before_each_write", "end_state_matches_contract"),
        "cancels the order as soon as it is asked, before the customer can say no",
    ),
    (
        "other-user",
        "cross_user_cancel",
        ("own_records_only", "end_state_matches_contract"),
        "looks the order up without naming the customer and cancels another customer's order",
    ),
    (
        "status-blind",
        "cancel_delivered_unguarded",
        ("order_status_rules", "end_state_matches_contract"),
        "cancels a delivered order: it never checks the status, and this backend does not either",
    ),
)


def _no_yes(t: Transcript) -> None:
    """The customer's answer before the cancellation was a hesitation, not a yes."""
    turn = next(x for x in reversed(t.conversation) if x.role == "customer")
    turn.text = "Hmm, let me think about it."


def _unauthenticated(t: Transcript) -> None:
    """The authentication calls found nobody: the agent went on anyway."""
    for c in t.tool_calls:
        if c.tool.startswith("find_user_id"):
            c.outcome, c.error, c.reads = "error", "not_found", []
            c.response = {"error": "not_found"}


def _was_pending(t: Transcript) -> None:
    """The return was applied to an order still pending."""
    for r in created_records(t, "order_action", "action_id"):
        r["status_before"] = "pending"


def _refund_elsewhere(t: Transcript) -> None:
    """The refund went to another customer's card."""
    for r in created_records(t, "refund", "refund_id"):
        r["payment_method_id"] = "credit_card_9513926"


def _refund_too_much(t: Transcript) -> None:
    """The refund is a hundred dollars more than was paid."""
    for r in created_records(t, "refund", "refund_id"):
        r["amount_minor_units"] = int(str(r["amount_minor_units"])) + 10_000


def _claimed_early(t: Transcript) -> None:
    """The cancellation and its refund committed only after the agent said it was done."""
    for kind, id_field in (("order_action", "action_id"), ("refund", "refund_id")):
        for r in created_records(t, kind, id_field):
            r["committed_seq"] = 10_000


MUTATIONS: tuple[tuple[str, str, Callable[[Transcript], None], dict[str, str]], ...] = (
    ("no-yes", "tau2_38_cancel_pending", _no_yes, {"explicit_yes_before_each_write": "violated"}),
    (
        "unauthenticated",
        "tau2_38_cancel_pending",
        _unauthenticated,
        {"authenticated_before_acting": "violated"},
    ),
    (
        "return-while-pending",
        "tau2_2_return_delivered",
        _was_pending,
        {"order_status_rules": "violated"},
    ),
    (
        "refund-elsewhere",
        "tau2_38_cancel_pending",
        _refund_elsewhere,
        {"own_records_only": "violated"},
    ),
    (
        "claimed-before-commit",
        "tau2_38_cancel_pending",
        _claimed_early,
        {"confirmation_matches_committed_state": "violated"},
    ),
    (
        "refund-too-much",
        "tau2_38_cancel_pending",
        _refund_too_much,
        {"effects_within_bound": "violated"},
    ),
)

CORRECT = "scripted:retail-correct"

PLAN: tuple[SelftestEntry, ...] = (
    *(
        SelftestEntry(f"good-{case}", case, CORRECT, "correct agent: nothing flagged")
        for case in CASES
    ),
    *(
        SelftestEntry(
            f"faulty-{agent}",
            case,
            f"scripted:retail-{agent}",
            description,
            dict.fromkeys(caught, "violated"),
        )
        for agent, case, caught, description in FAULTY
    ),
    *(
        SelftestEntry(
            f"planted-{name}", case, CORRECT, (mutate.__doc__ or name).strip(), expect, mutate
        )
        for name, case, mutate, expect in MUTATIONS
    ),
)
