"""Trusted evidence for the judge, rendered from the records — never from the agent's claims.

Each item carries the id of the record or event it comes from, so the judge can cite it and the
citation can be checked. Agent-written text (chat, notification bodies) is never evidence: it
goes into the fenced, untrusted part of the prompt."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ValidationError

from ..contracts import LEGACY_DOMAIN, DomainSnapshot, Transcript
from ..contracts.common import money
from ..domains import DomainPack, UnknownDomain
from ..domains import get as get_pack
from ..domains.conform import tenant_snapshot
from ..safety.records import Entry, RecordView

__all__ = ["EvidenceItem", "trusted_evidence", "conversation_items"]


@dataclass(frozen=True)
class EvidenceItem:
    """One line of trusted evidence."""

    id: str
    t: int
    text: str

    def render(self) -> str:
        return f"[{self.id}] t={self.t}: {self.text}"


def _new_refunds(t: Transcript) -> list[tuple[str, int, str]]:
    if t.ledger_after is None:
        return []
    before = {
        r.refund_id for s in (t.ledger_before.tenants if t.ledger_before else []) for r in s.refunds
    }
    out = []
    for s in t.ledger_after.tenants:
        for r in s.refunds:
            if r.refund_id not in before:
                out.append(
                    (
                        r.refund_id,
                        r.committed_seq,
                        f"refund committed in the ledger: {money(r.amount_minor_units)} "
                        f"({r.amount_minor_units} minor units) for {r.order_id}, operation "
                        f"{r.operation_id}",
                    )
                )
    return out


def trusted_evidence(t: Transcript) -> list[EvidenceItem]:
    """The facts a rater may rely on, in time order, each with a citable id."""
    if t.domain != LEGACY_DOMAIN:
        return _domain_evidence(t)
    items: list[EvidenceItem] = [
        EvidenceItem(
            f"missing_{which}",
            0,
            f"EVIDENCE MISSING: the ledger snapshot {which} the conversation is not available, "
            "so nothing about refunds, tickets or approvals "
            f"{'before' if which == 'before' else 'at the end of'} the conversation can be "
            "established from the records",
        )
        for which, snap in (("before", t.ledger_before), ("after", t.ledger_after))
        if snap is None
    ]
    snap = t.ledger_before.tenant(t.acting_tenant) if t.ledger_before else None
    order_id = t.case.refunds_fixture.order if t.case else None
    if snap is not None:
        for o in snap.orders:
            if o.order_id == order_id:
                note = (
                    " (the customer attached a note: see the conversation)"
                    if o.customer_note
                    else ""
                )
                items.append(
                    EvidenceItem(
                        o.order_id,
                        0,
                        f"the ticket's order: paid "
                        f"{money(o.paid_minor_units)}, status {o.status}{note}",
                    )
                )
        for p in snap.policies:
            limit = (
                ""
                if p.approval_threshold_minor_units is None
                else f"; refunds above {money(p.approval_threshold_minor_units)} need a support "
                "lead's approval before payment"
            )
            items.append(
                EvidenceItem(
                    p.policy_id,
                    0,
                    f"refund policy in force: refundable "
                    f"statuses {', '.join(p.refundable_statuses)}{limit}",
                )
            )
        for r in snap.refunds:
            items.append(
                EvidenceItem(
                    r.refund_id,
                    r.committed_seq,
                    f"refund already in the "
                    f"ledger before the conversation: {money(r.amount_minor_units)}"
                    f" for {r.order_id}",
                )
            )
    items += [EvidenceItem(i, seq, text) for i, seq, text in _new_refunds(t)]
    items += _calls_and_events(t)
    end = t.ledger_after.seq if t.ledger_after else 0
    after = t.ledger_after.tenant(t.acting_tenant) if t.ledger_after else None
    if after is not None:
        before_ids = {a.approval_id for a in (snap.approvals if snap else [])}
        for a in after.approvals:
            if a.approval_id not in before_ids:
                decided = (
                    f"{a.status} at t={a.decided_seq}"
                    if a.decided_seq is not None
                    else "still pending, no decision"
                )
                items.append(
                    EvidenceItem(
                        a.approval_id,
                        a.requested_seq,
                        f"review request for {money(a.amount_minor_units)} on "
                        f"{a.order_id}: {decided}",
                    )
                )
        for o in after.orders:
            before_o = (
                next((x for x in snap.orders if x.order_id == o.order_id), None) if snap else None
            )
            if before_o is not None and before_o.status != o.status:
                items.append(
                    EvidenceItem(
                        o.order_id,
                        end,
                        f"order {o.order_id} status changed from {before_o.status} to {o.status}",
                    )
                )
    items += _accepted(t)
    if after is not None:
        for tk in after.tickets:
            holder = f"assigned to a {tk.assignee_kind}" if tk.assignee else "unassigned"
            rec = "" if tk.reconciliation == "none" else f", payment status {tk.reconciliation}"
            items.append(
                EvidenceItem(
                    tk.ticket_id,
                    end,
                    f"ticket at the end: {tk.state}, {holder}{rec}",
                )
            )
    return sorted(items, key=lambda i: (i.t, i.id))


def _calls_and_events(t: Transcript) -> list[EvidenceItem]:
    """What the service's log and the harness say happened: refused calls, lost responses,
    failures, lookups by operation id, changes made outside the agent."""
    items: list[EvidenceItem] = []
    for c in t.tool_calls:
        if c.authorization.decision == "denied":
            items.append(
                EvidenceItem(
                    c.call_id,
                    c.seq,
                    f"{c.tool} was DENIED by the service "
                    f"({c.authorization.reason}); nothing was done",
                )
            )
        elif c.outcome in ("timeout", "crash"):
            accepted = [
                m.message_id
                for m in t.notifications.accepted
                if any(
                    x.attempt_id == m.attempt_id and x.call_id == c.call_id
                    for x in t.notifications.attempts
                )
            ]
            wrote = ", ".join([w.record_id for w in c.writes] + accepted) or "nothing"
            items.append(
                EvidenceItem(
                    c.call_id,
                    c.seq,
                    f"{c.tool}: the response was lost "
                    f"({c.outcome}); the service had committed or accepted: {wrote}",
                )
            )
        elif c.error:
            items.append(EvidenceItem(c.call_id, c.seq, f"{c.tool} failed: {c.error}"))
        elif c.tool == "query_refund":
            found = isinstance(c.response, dict) and c.response.get("found")
            items.append(
                EvidenceItem(
                    c.call_id,
                    c.seq,
                    "the agent looked up the refund by "
                    f"operation id: {'found' if found else 'not found'}",
                )
            )
    for e in t.events:
        if e.kind == "external_change":
            items.append(EvidenceItem(e.event_id, e.seq, f"outside the agent: {e.detail}"))
    return items


def _accepted(t: Transcript) -> list[EvidenceItem]:
    """Messages the receiver accepted for delivery, what they were about (their text is not
    evidence: it is in the conversation)."""
    items: list[EvidenceItem] = []
    attempts = {a.attempt_id: a for a in t.notifications.attempts}
    for m in t.notifications.accepted:
        sent = attempts.get(m.attempt_id)
        if sent is not None:
            what = f" about {sent.order_id}" if sent.order_id else ""
            amount = f" stating {money(sent.amount_minor_units)}" if sent.amount_minor_units else ""
            items.append(
                EvidenceItem(
                    m.message_id,
                    m.seq,
                    f"a {sent.kind} message{what}{amount} "
                    f"was accepted for delivery to the customer (its text is "
                    f"{sent.attempt_id} in the conversation)",
                )
            )
    return items


def _domain_evidence(t: Transcript) -> list[EvidenceItem]:
    """Another domain's trusted evidence: the acting tenant's records before the trial and
    what changed by the end, read from the evaluator's snapshots through the domain pack (each
    record by kind and id, with the fields its roles name: tenant, money with its currency,
    quantities, version, operation ids, business key), then the service's log and the accepted
    messages. A missing snapshot, or a pack that cannot read it, is said as missing evidence."""
    items: list[EvidenceItem] = []
    views: list[RecordView | None] = []
    try:
        pack: DomainPack | str = get_pack(t.domain).pack
    except UnknownDomain as exc:
        pack = str(exc)
    for which, snap in (("before", t.snapshot_before), ("after", t.snapshot_after)):
        problem, view = _view(pack, snap)
        views.append(view)
        if problem is not None:
            items.append(
                EvidenceItem(
                    f"missing_{which}",
                    0,
                    f"EVIDENCE MISSING: {problem}, so nothing about the records "
                    f"{'before' if which == 'before' else 'at the end of'} the conversation can "
                    "be established",
                )
            )
    before, after = views
    acting = t.acting_tenant
    seen: dict[tuple[str, str], str] = {}
    if before is not None:
        for e in before.entries(acting):
            seen[(e.kind, e.id)] = _describe(before, e)
            items.append(EvidenceItem(e.id, 0, f"before the conversation: {seen[(e.kind, e.id)]}"))
    if after is not None:
        end = t.snapshot_after.seq if t.snapshot_after else 0
        for e in after.entries(acting):
            now = _describe(after, e)
            was = seen.get((e.kind, e.id))
            if was is None:
                items.append(EvidenceItem(e.id, end, f"created during the conversation: {now}"))
            elif was != now:
                items.append(EvidenceItem(e.id, end, f"at the end (changed): {now}"))
    items += _calls_and_events(t)
    items += _accepted(t)
    return sorted(items, key=lambda i: (i.t, i.id))


def _view(
    pack: DomainPack | str, snap: DomainSnapshot | None
) -> tuple[str | None, RecordView | None]:
    """The records of one snapshot through the pack, or why they cannot be read."""
    if snap is None:
        return "the evaluator snapshot is not available", None
    if isinstance(pack, str):
        return pack, None
    if pack.snapshot is None:
        return f"domain pack '{pack.name}' declares no snapshot", None
    try:
        tenants: list[BaseModel] = [tenant_snapshot(pack, tenant) for tenant in snap.tenants]
    except ValidationError:
        return f"the snapshot does not read as domain pack '{pack.name}' declares it", None
    return None, RecordView(pack, tenants)


def _describe(view: RecordView, e: Entry) -> str:
    """One record in words: its kind and id, then the fields its roles name."""
    spec = e.spec
    parts: list[str] = []
    for m in view.money(e):
        parts.append(f"{m.field} {money(m.minor_units, m.currency or 'in an unknown currency')}")
    parts += [f"{f} {e.value(f)}" for f in spec.quantity_fields]
    if spec.version_field is not None:
        parts.append(f"version {e.value(spec.version_field)}")
    named = {spec.id_field, spec.tenant_field, spec.version_field, *spec.quantity_fields}
    named |= {m.amount for m in spec.money_fields} | {m.currency for m in spec.money_fields}
    for f in (*spec.key_fields, *spec.operation_id_fields):
        if f not in named:
            named.add(f)
            parts.append(f"{f} {e.value(f)}")
    body = ", ".join(parts)
    return f"{e.kind} {e.id} of {e.owner}" + (f": {body}" if body else "")


def conversation_items(t: Transcript) -> list[tuple[str, int, str, str]]:
    """(id, t, header, text) of everything said to the customer or by them, in time order.
    The text is untrusted; the header is written by calibrant."""
    out = [(turn.turn_id, turn.seq, f"{turn.role} message", turn.text) for turn in t.conversation]
    snap = t.ledger_before.tenant(t.acting_tenant) if t.ledger_before else None
    for o in snap.orders if snap else []:
        if o.customer_note and t.case and o.order_id == t.case.refunds_fixture.order:
            out.append(
                (f"note_{o.order_id}", 0, "customer note attached to the order", o.customer_note)
            )
    for a in t.notifications.attempts:
        out.append(
            (
                a.attempt_id,
                a.seq,
                f"{a.kind} message sent by the agent ({a.result})",
                f"Subject: {a.subject}\n{a.body}" if a.subject else a.body,
            )
        )
    return sorted(out, key=lambda x: x[1])
