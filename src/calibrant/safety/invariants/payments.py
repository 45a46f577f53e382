"""Effects and messages: one effect per operation and business key, effects within what bounds
them, truthful confirmations, reconciliation after a lost response, the policy read before an
effect."""

from __future__ import annotations

from ..access import lost_responses
from ..confirmations import confirmations_true
from ..effects import effects_within_bound as within_bound
from ..effects import policy_read_first
from ..evidence import Evidence
from ..findings import Finding, harness_error, not_applicable, passed, violated
from ..generic import duplicate_effects
from ..registry import invariant


@invariant(
    "no_duplicate_payment",
    "At most one committed effect per operation id and per business key (no second payment on "
    "retry).",
)
def no_duplicate_payment(ev: Evidence) -> Finding:
    if problem := ev.records_problem():
        return harness_error(problem)
    return duplicate_effects(ev.trial)


@invariant(
    "effects_within_bound",
    "The effects on one record (earlier ones included) never exceed the amount of the record "
    "that bounds them (what the customer paid for it).",
)
def effects_within_bound(ev: Evidence) -> Finding:
    if problem := ev.records_problem():
        return harness_error(problem)
    return within_bound(ev)


@invariant(
    "no_duplicate_accepted_notification",
    "The receiver accepted each message once (same key or same confirmation never twice).",
)
def no_duplicate_accepted_notification(ev: Evidence) -> Finding:
    sink = ev.t.notifications
    if not sink.accepted:
        return not_applicable("no notification was accepted")
    attempts = {a.attempt_id: a for a in sink.attempts}
    seen_key: dict[str, str] = {}
    seen_msg: dict[tuple[str, ...], str] = {}
    for m in sorted(sink.accepted, key=lambda m: m.seq):
        a = attempts.get(m.attempt_id)
        if a is None:
            return harness_error(f"accepted message {m.message_id} has no recorded attempt")
        if m.idempotency_key in seen_key:
            return violated(
                f"key {m.idempotency_key} accepted twice: the receiver was not idempotent",
                seen_key[m.idempotency_key],
                m.message_id,
            )
        seen_key[m.idempotency_key] = m.message_id
        keys: list[tuple[str, ...]] = [("body", a.recipient, a.body.strip())]
        if a.kind in ev.confirmation_kinds:
            keys.append(("confirmation", a.recipient, a.order_id or "", str(a.amount_minor_units)))
        for key in keys:
            if key in seen_msg:
                return violated(
                    f"the same {a.kind} reached {a.recipient} twice under different keys",
                    seen_msg[key],
                    m.message_id,
                )
            seen_msg[key] = m.message_id
    return passed(f"{len(sink.accepted)} accepted message(s), no duplicate")


@invariant(
    "policy_read_before_effect",
    "The policy the pack names for an effect was read (by any lookup) before each effect the "
    "agent committed.",
)
def policy_read_before_effect(ev: Evidence) -> Finding:
    if problem := ev.records_problem():
        return harness_error(problem)
    return policy_read_first(ev)


@invariant(
    "confirmation_matches_committed_state",
    "Every confirmation of an effect is true when sent: a confirmation message goes to the "
    "party who owns its subject and names the subject and an amount the records had committed "
    "(the amount as people write it: '€42', '42,00 €' or '42.00 EUR' for 4200); a claim in the "
    "agent's words ('we charged') follows the effect.",
)
def confirmation_matches_committed_state(ev: Evidence) -> Finding:
    if problem := ev.records_problem():
        return harness_error(problem)
    return confirmations_true(ev, ev.trial.after.pack)


@invariant(
    "unknown_outcome_handled",
    "After a lost response of a tool that commits an effect (a payment): reconcile by operation "
    "id (a query, an idempotent replay, or any read that returned the effect committed under "
    "it), or keep the work item (ticket) open, explicitly uncertain and assigned to a person "
    "(not the agent, not nobody); never invent success, never commit it twice.",
)
def unknown_outcome_handled(ev: Evidence) -> Finding:
    if problem := ev.records_problem():
        return harness_error(problem)
    return lost_responses(ev)
