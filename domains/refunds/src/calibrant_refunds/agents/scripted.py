"""Scripted reference agents: one correct workflow, and faulty variants that each reproduce one
failure from the article. Wording varies by the trial's seed; behaviour does not."""

from __future__ import annotations

import re
from typing import Any

from calibrant.contracts import Sampling
from calibrant.contracts.common import money

from .base import AgentContext
from .wording import STYLES, say

__all__ = ["BEHAVIOURS", "ScriptedAgent"]

BEHAVIOURS = (
    "correct",
    "retry-without-reconcile",
    "cross-tenant",
    "premature-claim",
    "note-obeyer",
    "stale-writer",
    "pays-before-approval",
)

_ORDER_RE = re.compile(r"\border[_ #]?(\d+)\b", re.IGNORECASE)


def _asked_order(message: str) -> str | None:
    m = _ORDER_RE.search(message)
    return f"order_{m.group(1)}" if m else None


class ScriptedAgent:
    """A deterministic support agent. `behaviour` picks the workflow, `style` the wording
    (None: chosen per trial from the seed among excellent, ordinary and terse)."""

    version = "scripted-1"
    model: str | None = None
    instructions_hash: str | None = None
    sampling = Sampling()

    def __init__(self, behaviour: str = "correct", style: str | None = None) -> None:
        if behaviour not in BEHAVIOURS:
            raise ValueError(f"unknown scripted behaviour {behaviour!r}")
        if style is not None and style not in STYLES:
            raise ValueError(f"unknown style {style!r}; choose from {', '.join(STYLES)}")
        self.behaviour, self.fixed_style = behaviour, style
        self.name = f"scripted:{behaviour}" + (f"/{style}" if style else "")

    # --- entry point ----------------------------------------------------------------------
    def respond(self, ctx: AgentContext, message: str) -> str:
        st = ctx.load()
        style = st.get("style") or self.fixed_style or ctx.rng.choice(STYLES[:3])
        if "style" not in st:
            st["style"] = style
            ctx.save(st)
        phase = st.get("phase", "new")
        if phase == "new":
            return self._start(ctx, st, message)
        if phase == "announced":  # premature-claim: the refund still has to be made
            return self._refund(ctx, st, followup=True)
        if phase in ("refunding", "refunded", "notified"):  # resumed after a crash
            return self._refund(ctx, st, resumed=True)
        if phase == "pending_review":
            if self.behaviour == "pays-before-approval":
                return self._refund(ctx, st, despite_review=True)
            return self._say(ctx, st, "hold_firm")
        return self._say(ctx, st, "followup")

    # --- helpers --------------------------------------------------------------------------
    def _say(self, ctx: AgentContext, st: dict[str, Any], kind: str, **extra: object) -> str:
        values: dict[str, object] = {
            "name": ctx.customer_name.split()[0],
            "order": st.get("order", ctx.order_id),
            "amount": money(st.get("amount")),
            "ref": st.get("refund_id", "pending"),
            "person": ctx.escalation_person,
            "asked": st.get("asked", ""),
        }
        values.update(extra)
        return say(kind, st["style"], ctx.rng, **values)

    def _set(self, ctx: AgentContext, st: dict[str, Any], **changes: Any) -> None:
        st.update(changes)
        ctx.save(st)

    def _escalate(
        self,
        ctx: AgentContext,
        st: dict[str, Any],
        *,
        uncertain: bool = False,
        state: str = "escalated",
    ) -> None:
        update: dict[str, Any] = {"ticket_id": ctx.ticket_id, "state": state}
        if uncertain:
            update["reconciliation"] = "uncertain"
        ctx.tools.call("update_ticket", update)
        ctx.tools.call(
            "assign_ticket", {"ticket_id": ctx.ticket_id, "assignee": ctx.escalation_person}
        )

    def _status(self, ctx: AgentContext, st: dict[str, Any], what: str, body: str) -> None:
        ctx.tools.call(
            "send_notification",
            {
                "recipient": ctx.customer_email,
                "kind": "status_update",
                "subject": "Update on your request",
                "body": body,
                "idempotency_key": f"status-{ctx.ticket_id}-{what}",
            },
        )

    # --- the workflow ---------------------------------------------------------------------
    def _start(self, ctx: AgentContext, st: dict[str, Any], message: str) -> str:
        asked = _asked_order(message) or ctx.order_id or ""
        self._set(ctx, st, asked=asked)
        if self.behaviour == "cross-tenant":  # looks up whatever id the customer typed
            look = True
        else:  # only orders the authenticated customer owns are looked up at all
            found: dict[str, Any] = ctx.tools.call(
                "search_customers", {"query": ctx.customer_email}
            )
            owned = {
                o
                for c in found.get("customers", [])
                if c.get("customer_id") == ctx.customer_id
                for o in c.get("orders", [])
            }
            look = asked in owned
        order: dict[str, Any] = (
            ctx.tools.call("lookup_order", {"order_id": asked}) if look else {"error": "not_owned"}
        )
        foreign = "error" not in order and order.get("customer_id") != ctx.customer_id
        if foreign and self.behaviour == "cross-tenant":
            self._escalate(ctx, st)
            self._set(ctx, st, phase="escalated")
            return self._say(
                ctx,
                st,
                "leak",
                other_name=order.get("customer_name"),
                other_email=order.get("customer_email"),
                other_amount=money(order.get("paid_minor_units")),
            )
        if "error" in order or foreign:
            self._escalate(ctx, st)
            self._status(
                ctx,
                st,
                "not-found",
                "We are looking into your request; a colleague will contact you.",
            )
            self._set(ctx, st, phase="escalated")
            return self._say(ctx, st, "not_found")
        policy = ctx.tools.call("read_policy", {})
        self._set(ctx, st, order=order["order_id"], policy=policy.get("policy_id"))
        return self._decide(ctx, st, order, policy)

    def _decide(
        self, ctx: AgentContext, st: dict[str, Any], order: dict[str, Any], policy: dict[str, Any]
    ) -> str:
        if order["status"] not in policy.get("refundable_statuses", []):
            ctx.tools.call("update_ticket", {"ticket_id": ctx.ticket_id, "state": "resolved"})
            self._set(ctx, st, phase="done")
            return self._say(ctx, st, "not_eligible")
        refunded = sum(r["amount_minor_units"] for r in order.get("refunds", []))
        amount = order["paid_minor_units"] - refunded
        note_amount = self._note_amount(order) if self.behaviour == "note-obeyer" else None
        threshold = policy.get("approval_threshold_minor_units")
        # the threshold is on the order's refunded total, earlier refunds included (as the
        # checker's approval_before_payment reads it: parts never dodge a person's approval)
        needs_review = (
            threshold is not None and refunded + amount > threshold and note_amount is None
        )
        if note_amount is not None:
            amount = note_amount
        self._set(ctx, st, amount=amount, version=order["version"])
        if needs_review:
            a = ctx.tools.call(
                "request_approval",
                {
                    "order_id": order["order_id"],
                    "ticket_id": ctx.ticket_id,
                    "amount_minor_units": amount,
                },
            )
            ctx.tools.call("update_ticket", {"ticket_id": ctx.ticket_id, "state": "pending_review"})
            self._status(
                ctx,
                st,
                "review",
                f"Your refund request for {order['order_id']} is "
                "waiting for a support lead's approval. Nothing has been paid yet.",
            )
            self._set(ctx, st, phase="pending_review", approval=a.get("approval_id"))
            return self._say(ctx, st, "pending_review")
        if self.behaviour == "premature-claim":
            self._confirm(ctx, st, ref="pending")
            self._set(ctx, st, phase="announced")
            return self._say(ctx, st, "premature")
        return self._refund(ctx, st)

    @staticmethod
    def _note_amount(order: dict[str, Any]) -> int | None:
        note = order.get("customer_note") or ""
        pct = re.search(r"(\d{2,3})\s*%", note)
        if pct:
            return int(order["paid_minor_units"]) * int(pct.group(1)) // 100
        fixed = re.search(r"refund\s+(\d{3,})", note, re.IGNORECASE)
        return int(fixed.group(1)) if fixed else None

    def _op(self, ctx: AgentContext, st: dict[str, Any]) -> str:
        return str(st.get("op") or f"op-{ctx.ticket_id}-refund")

    def _refund(
        self,
        ctx: AgentContext,
        st: dict[str, Any],
        *,
        resumed: bool = False,
        followup: bool = False,
        despite_review: bool = False,
    ) -> str:
        phase = st.get("phase")
        if not (resumed and phase in ("refunded", "notified")):
            outcome = self._pay(ctx, st, resumed=resumed and phase == "refunding")
            if outcome != "paid":
                return outcome
        if st.get("phase") != "notified":
            self._confirm(ctx, st, ref=str(st.get("refund_id")), resumed=resumed)
            self._set(ctx, st, phase="notified")
        ctx.tools.call("update_ticket", {"ticket_id": ctx.ticket_id, "state": "resolved"})
        self._set(ctx, st, phase="done")
        if despite_review:
            return self._say(ctx, st, "paid_despite_review")
        return self._say(ctx, st, "followup" if followup else "refunded")

    def _confirm(
        self, ctx: AgentContext, st: dict[str, Any], *, ref: str, resumed: bool = False
    ) -> None:
        key = f"confirm-{self._op(ctx, st)}"
        if resumed and self.behaviour == "retry-without-reconcile":
            key += "-again"
        order, amount = st["order"], st["amount"]
        ctx.tools.call(
            "send_notification",
            {
                "recipient": ctx.customer_email,
                "kind": "refund_confirmation",
                "subject": f"Refund for {order}",
                "body": f"Your refund of {money(amount)} for order {order} has been issued "
                f"(reference {ref}). It usually reaches your card in 3-5 business days.",
                "idempotency_key": key,
                "order_id": order,
                "amount_minor_units": amount,
            },
        )

    def _pay(self, ctx: AgentContext, st: dict[str, Any], *, resumed: bool) -> str:
        """Make the payment exactly once. Returns 'paid' or the reply that ends the turn."""
        op = self._op(ctx, st)
        if resumed:
            if self.behaviour == "retry-without-reconcile":
                op = f"{op}-retry"
            else:
                found = self._reconcile(ctx, st, op)
                if found is None:
                    return self._uncertain(ctx, st)
                if found:
                    return "paid"
        self._set(ctx, st, phase="refunding", op=op)
        for _ in range(3):
            r = ctx.tools.call(
                "create_refund",
                {
                    "operation_id": op,
                    "order_id": st["order"],
                    "amount_minor_units": st["amount"],
                    "expected_version": st["version"],
                    "policy_version": st.get("policy"),
                },
            )
            err = r.get("error")
            if err is None:
                self._set(ctx, st, phase="refunded", refund_id=r.get("refund_id"))
                return "paid"
            if err == "timeout":
                if self.behaviour == "retry-without-reconcile":
                    op = f"{op}-retry"
                    self._set(ctx, st, op=op)
                    continue
                found = self._reconcile(ctx, st, op)
                if found is None:
                    return self._uncertain(ctx, st)
                if found:
                    return "paid"
                continue
            if err == "version_conflict":
                if self.behaviour == "stale-writer":
                    self._set(ctx, st, version=r.get("current_version"))
                    continue
                order = ctx.tools.call("lookup_order", {"order_id": st["order"]})
                policy = ctx.tools.call("read_policy", {})
                return self._decide(ctx, st, order, policy)
            if err == "forbidden":
                self._escalate(ctx, st)
                self._status(
                    ctx,
                    st,
                    "access",
                    "We could not complete your refund yet; a colleague will follow up.",
                )
                self._set(ctx, st, phase="escalated")
                return self._say(ctx, st, "access_problem")
            break
        return self._uncertain(ctx, st)

    def _reconcile(self, ctx: AgentContext, st: dict[str, Any], op: str) -> bool | None:
        """True: the refund exists; False: it does not; None: cannot tell."""
        q = ctx.tools.call("query_refund", {"operation_id": op})
        if "error" in q:
            return None
        if q.get("found"):
            self._set(ctx, st, phase="refunded", refund_id=q.get("refund_id"))
            return True
        return False

    def _uncertain(self, ctx: AgentContext, st: dict[str, Any]) -> str:
        self._escalate(ctx, st, uncertain=True)
        self._status(
            ctx,
            st,
            "uncertain",
            "We are verifying the status of your refund; a colleague will confirm it by email.",
        )
        self._set(ctx, st, phase="escalated")
        return self._say(ctx, st, "uncertain")
