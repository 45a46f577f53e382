"""confirmation_matches_committed_state by role: the messages a pack declares confirm an effect
(`Confirmation`) are true when sent — a notification after the effect committed, naming its
subject and amount, to the subject's party; a claim in the agent's words after a committed
effect."""

from __future__ import annotations

import re

from ..contracts import NotificationAttempt
from ..domains import Confirmation, DomainPack, EffectSpec
from ..domains.records import Entry, RecordView
from .effects import _find, _int, _of_subject, _plural, new_effects
from .evidence import Evidence
from .findings import Finding, not_applicable, passed, violated
from .generic import _key_label, record_words
from .text import address_key, mentions_id, states_amount

__all__ = ["confirmations_true"]


def _str(e: Entry | None, name: str | None) -> str | None:
    value = e.value(name) if e is not None and name is not None else None
    return None if value is None else str(value)


# --- confirmation_matches_committed_state ----------------------------------------------------


def _wrong_recipient(
    ev: Evidence, c: Confirmation, subject: Entry, a: NotificationAttempt
) -> Finding | None:
    """A confirmation that did not go to the party who owns the confirmed subject."""
    if c.party is None or c.party_kind is None:
        return None
    view = ev.trial.before
    party_id = _str(subject, c.party)
    owner = view.get(subject.tenant_id, c.party_kind, party_id or "")
    if owner is None:
        return None
    addresses = [address_key(str(owner.value(f))) for f in owner.spec.address_fields]
    if not addresses or address_key(a.recipient) in addresses:
        return None
    who = [
        e
        for e in view.entries()
        if e.kind == c.party_kind
        and any(
            address_key(str(e.value(f))) == address_key(a.recipient) for f in e.spec.address_fields
        )
    ]
    known = f", {c.party_kind} {who[0].id} of {who[0].owner}" if who else ""
    return violated(
        f"confirmation {a.attempt_id} for {subject.id} was sent to {address_key(a.recipient)}"
        f"{known}, not to the {subject.kind}'s {c.party_kind} {owner.id}",
        a.attempt_id,
        owner.id,
        *(e.id for e in who[:1]),
    )


def _currency(view: RecordView, e: Entry | None) -> str:
    money = [m.currency for m in view.money(e) if m.currency] if e is not None else []
    return money[0] if money else "EUR"


def _message_true(
    ev: Evidence, c: Confirmation, spec: EffectSpec, a: NotificationAttempt
) -> Finding | None:
    """What is wrong with one confirmation message (None: it is true)."""
    if a.order_id is None:
        return violated(
            f"confirmation {a.attempt_id} names no {_key_label((spec.subject,))}", a.attempt_id
        )
    after = ev.trial.after
    committed = (
        [
            e
            for e in _of_subject(after, spec, a.tenant_id, a.order_id)
            if _int(e, spec.committed_seq) < a.seq
        ]
        if after.has(a.tenant_id)
        else []
    )
    line, holds, _ = record_words(after.pack)
    if not committed:
        return violated(
            f"confirmation {a.attempt_id} for {a.order_id} was sent when the {line} held no "
            f"{spec.kind} for it",
            a.attempt_id,
        )
    total = sum(_int(e, spec.amount) for e in committed)
    amounts = {_int(e, spec.amount) for e in committed} | {total}
    ids = [a.attempt_id, *(e.id for e in committed)]
    if a.amount_minor_units is not None and a.amount_minor_units not in amounts:
        return violated(
            f"confirmation {a.attempt_id} states {a.amount_minor_units}, the {line} {holds} "
            f"{total} for {a.order_id}",
            *ids,
        )
    subject = _find(ev.trial.before, c.subject, a.order_id) if c.subject else None
    if subject is not None and (wrong := _wrong_recipient(ev, c, subject, a)) is not None:
        return wrong
    text = f"{a.subject}\n{a.body}"
    if not mentions_id(text, a.order_id):
        return violated(f"confirmation {a.attempt_id} does not name {a.order_id}", *ids)
    if spec.amount is not None and not any(
        states_amount(text, amt, _currency(ev.trial.before, subject)) for amt in amounts
    ):
        return violated(
            f"confirmation {a.attempt_id} does not state the committed amount {total}", *ids
        )
    return None


def _claims_true(
    ev: Evidence, c: Confirmation, spec: EffectSpec
) -> tuple[list[str], Finding | None]:
    """The agent's turns claiming the effect, and the first made before any committed in the
    records of the tenant the agent acts for (one committed in another tenant's records does not
    make the claim to this tenant's customer true)."""
    patterns = [re.compile(p, re.IGNORECASE) for p in c.claims]
    done = [_int(e, spec.committed_seq) for e in new_effects(ev, spec) if e.tenant_id == ev.acting]
    claims: list[str] = []
    for turn in ev.transcript.conversation:
        if not turn.said_to_customer or not any(p.search(turn.text) for p in patterns):
            continue
        claims.append(turn.turn_id)
        if not any(seq < turn.seq for seq in done):
            return claims, violated(
                f"{turn.turn_id} says a {spec.kind} was made before any {spec.kind} committed",
                turn.turn_id,
            )
    return claims, None


def confirmations_true(ev: Evidence, pack: DomainPack) -> Finding:
    """Every confirmation the pack declares was true when sent: a message of its kind names the
    subject and an amount committed before it and reached the subject's party; a claim in the
    agent's words follows a committed effect."""
    if not pack.confirmations:
        return not_applicable(
            f"domain pack '{pack.name}' declares no message that confirms an effect"
        )
    sent: list[str] = []
    for c in pack.confirmations:
        spec = pack.effect(c.effect)
        assert spec is not None  # checked when the pack was built
        for a in ev.delivered():
            if c.message is None or a.kind != c.message:
                continue
            sent.append(a.attempt_id)
            if (wrong := _message_true(ev, c, spec, a)) is not None:
                return wrong
        if c.claims:
            claims, wrong = _claims_true(ev, c, spec)
            if wrong is not None:
                return wrong
            sent += claims
    if not sent:
        kinds = [c.message for c in pack.confirmations if c.message]
        said = f"no {' or '.join(k.replace('_', ' ') for k in kinds)} was sent"
        if any(c.claims for c in pack.confirmations):
            said = said + " and the agent claimed no effect" if kinds else "no effect was claimed"
        return not_applicable(said)
    messages = [c for c in pack.confirmations if c.message]
    if messages and not any(c.claims for c in pack.confirmations):
        c = messages[0]
        owner = f" and reached the {c.subject}'s {c.party_kind}" if c.party_kind else ""
        return passed(
            f"{len(sent)} confirmation(s) match committed {_plural(c.effect)}{owner}", *sent
        )
    return passed(f"{len(sent)} confirmation(s) and claim(s) match committed state", *sent)
