"""Trusted evidence for the judge, rendered from the records — never from the agent's claims.

Each item carries the id of the record or event it comes from, so the judge can cite it and the
citation can be checked. Agent-written text (chat, notification bodies) is never evidence: it
goes into the fenced, untrusted part of the prompt.

The lines have a grammar nothing in a transcript can forge: calibrant writes every word of a
line but its values; a value that a tool, an agent or a file controls (a tool's name, its
error, an authorization reason, an event's detail, a record's status or field) goes through
the fence's code_or_quoted() or quoted() (`fence.py`): a code as it is, anything else as one
line of quoted text, visibly marked. Ids are contract-typed (`Id`), so they are codes already.
The judge's prompt, the workbench's trusted panel, the labeling API and the labeling sheets all
read these lines.

Nothing here names a domain: the lines about records come from the roles the transcript's pack
declares (`domain_records`), or from the pack's own builder where its roles are not enough
(`JudgePhrasing.evidence`); the lines about the service's log and the accepted messages are the
same for every domain, in the pack's words where a domain has some (`JudgePhrasing.lookups`)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime

from pydantic import BaseModel, ValidationError

from ..contracts import DomainSnapshot, Transcript
from ..contracts.common import money
from ..domains import (
    NEUTRAL,
    DomainPack,
    EvidenceItem,
    JudgePhrasing,
    UnknownDomain,
    UntrustedText,
)
from ..domains import get as get_pack
from ..domains.conform import tenant_snapshot
from ..safety.records import Entry, RecordView
from .fence import code_or_quoted, quoted

__all__ = [
    "EvidenceItem",
    "DomainRecords",
    "RecordField",
    "RecordRow",
    "domain_records",
    "log_evidence",
    "phrasing",
    "records_for_rater",
    "trusted_evidence",
    "conversation_items",
]


def phrasing(domain: str) -> JudgePhrasing:
    """The judge's words for `domain`: those its installed pack declares, or the neutral ones
    when no pack of that name can be loaded (its records then say they cannot be read)."""
    try:
        return get_pack(domain).pack.judge
    except UnknownDomain:
        return NEUTRAL


def trusted_evidence(t: Transcript) -> list[EvidenceItem]:
    """The facts a rater may rely on, in time order, each with a citable id: the lines about
    the records (the pack's own builder's, or the acting tenant's records by role before the
    trial and what changed by the end), then the service's log and the accepted messages."""
    words = phrasing(t.domain)
    own = words.evidence(t) if words.evidence is not None else domain_records(t).evidence()
    return sorted([*own, *_calls_and_events(t, words), *_accepted(t)], key=lambda i: (i.t, i.id))


def _calls_and_events(t: Transcript, words: JudgePhrasing) -> list[EvidenceItem]:
    """What the service's log and the harness say happened: refused calls, lost responses,
    failures, lookups by operation id (the tools `words.lookups` names), changes made outside
    the agent."""
    items: list[EvidenceItem] = []
    for c in t.tool_calls:
        if c.authorization.decision == "denied":
            items.append(
                EvidenceItem(
                    c.call_id,
                    c.seq,
                    f"{code_or_quoted(c.tool)} was DENIED by the service "
                    f"({_value(c.authorization.reason)}); nothing was done",
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
                    f"{code_or_quoted(c.tool)}: the response was lost "
                    f"({c.outcome}); the service had committed or accepted: {wrote}",
                )
            )
        elif c.error:
            what = f"{code_or_quoted(c.tool)} failed: {code_or_quoted(c.error)}"
            items.append(EvidenceItem(c.call_id, c.seq, what))
        elif (looked_up := words.looks_up(c.tool)) is not None:
            found = isinstance(c.response, dict) and c.response.get("found")
            items.append(
                EvidenceItem(
                    c.call_id,
                    c.seq,
                    f"the agent looked up {looked_up} by "
                    f"operation id: {'found' if found else 'not found'}",
                )
            )
    for e in t.events:
        if e.kind == "external_change":
            # a description in words, whoever wrote it: always quoted
            said = f"outside the agent: {quoted(e.detail)}"
            items.append(EvidenceItem(e.event_id, e.seq, said))
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


@dataclass(frozen=True)
class RecordField:
    """One field of a record by its role (money with its currency, a quantity, the version, an
    operation id, the business key): its label and its value before and at the end, in words
    (None: the record was not there then, or that snapshot is not available)."""

    label: str
    before: str | None
    after: str | None

    @property
    def changed(self) -> bool:
        return self.before is not None and self.after is not None and self.before != self.after


_SAID = {"before": "end not known", "after": "start not known"}


@dataclass(frozen=True)
class RecordRow:
    """One record of the acting tenant, before and at the end. `status` is "unchanged",
    "changed", "created" (not there before), "removed" (not there at the end), or "before" /
    "after" when the other snapshot is not available. `id` is what evidence cites it by (a
    code, see `_citation`); `name` its id as its records say it (the same, or quoted)."""

    kind: str
    id: str
    owner: str
    status: str
    fields: tuple[RecordField, ...]
    name: str

    @property
    def said(self) -> str:
        """Its status in a rater's words."""
        return _SAID.get(self.status, self.status)

    def describe(self, when: str) -> str:
        """The record in words as it was `when` ("before" or "after")."""
        values = ((f.label, getattr(f, when)) for f in self.fields)
        body = ", ".join(f"{label} {value}" for label, value in values if value is not None)
        return f"{self.kind} {self.name} of {self.owner}" + (f": {body}" if body else "")


@dataclass(frozen=True)
class DomainRecords:
    """Another domain's records as a rater sees them: what keeps a snapshot from being read,
    then the acting tenant's records by kind (in the order of the pack's snapshot), each before
    and at the end. Another tenant's records are not in it."""

    missing: tuple[EvidenceItem, ...]
    kinds: tuple[tuple[str, tuple[RecordRow, ...]], ...]
    end: int

    def evidence(self) -> list[EvidenceItem]:
        """The judge's lines for them: every record before the conversation, then each one
        created, changed or removed by the end."""
        rows = [r for _, rs in self.kinds for r in rs]
        items = list(self.missing)
        items += [
            EvidenceItem(r.id, 0, f"before the conversation: {r.describe('before')}")
            for r in rows
            if r.status not in ("created", "after")
        ]
        said = {
            "created": ("created during the conversation", "after"),
            "changed": ("at the end (changed)", "after"),
            "removed": ("no longer in the records at the end", "before"),
            "after": ("at the end", "after"),
        }
        for r in rows:
            if r.status in said:
                what, when = said[r.status]
                items.append(EvidenceItem(r.id, self.end, f"{what}: {r.describe(when)}"))
        return items


def domain_records(t: Transcript) -> DomainRecords:
    """Another domain's records read from the evaluator's snapshots through the domain pack:
    each of the acting tenant's records by kind and id, with the fields its roles name (money
    with its currency, quantities, version, operation ids, business key). A missing snapshot,
    or a pack that cannot read it, is said as missing evidence."""
    missing: list[EvidenceItem] = []
    views: list[RecordView | None] = []
    try:
        pack: DomainPack | str = get_pack(t.domain).pack
    except UnknownDomain as exc:
        pack = str(exc)
    for which, snap in (("before", t.snapshot_before), ("after", t.snapshot_after)):
        problem, view = _view(pack, snap)
        views.append(view)
        if problem is not None:
            missing.append(
                EvidenceItem(
                    f"missing_{which}",
                    0,
                    f"EVIDENCE MISSING: {problem}, so nothing about the records "
                    f"{'before' if which == 'before' else 'at the end of'} the conversation can "
                    "be established",
                )
            )
    end = t.snapshot_after.seq if t.snapshot_after else 0
    if isinstance(pack, str) or pack.snapshot is None:
        return DomainRecords(tuple(missing), (), end)
    words = pack.judge
    sides = [_own(view, t.acting_tenant, words) for view in views]
    kinds = []
    for _, spec in pack.snapshot.lists(pack.records):
        before, after = ([e for e in side if e[0].kind == spec.kind] for side in sides)
        noun = words.kind_noun(spec.kind)
        rows = _rows(before, after, views[0] is not None, views[1] is not None, noun)
        if rows:
            kinds.append((noun, tuple(rows)))
    return DomainRecords(tuple(missing), tuple(kinds), end)


_Seen = tuple[Entry, list[tuple[str, str]]]


def _own(view: RecordView | None, tenant: str, words: JudgePhrasing) -> list[_Seen]:
    """The records of `tenant`'s snapshot that `tenant` owns, each with its fields in words."""
    if view is None:
        return []
    return [(e, _fields(view, e, words)) for e in view.entries(tenant) if e.owner == tenant]


def _rows(
    before: list[_Seen], after: list[_Seen], known: bool, ends: bool, noun: str
) -> list[RecordRow]:
    """The records of one kind, before and at the end: those there before in their order, then
    those created. `known`/`ends`: the before/after snapshot could be read; `noun`: the
    kind in the pack's words."""
    later: dict[str, list[_Seen]] = {}
    for seen in after:
        later.setdefault(seen[0].id, []).append(seen)
    rows: list[RecordRow] = []
    for e, was in before:
        match = later.get(e.id)
        now = match.pop(0)[1] if match else None
        status = "before" if not ends else "removed" if now is None else "unchanged"
        if now is not None and now != was:
            status = "changed"
        rows.append(_row(e, status, was, now, noun))
    for e, now in (s for rest in later.values() for s in rest):
        rows.append(_row(e, "created" if known else "after", None, now, noun))
    return rows


def _row(
    e: Entry,
    status: str,
    was: list[tuple[str, str]] | None,
    now: list[tuple[str, str]] | None,
    noun: str,
) -> RecordRow:
    """`was` and `now` list the same fields in the same order (one kind's roles)."""
    labels = [label for label, _ in (was if was is not None else now or [])]
    sides: list[list[str | None]] = [
        [value for _, value in side] if side is not None else [None] * len(labels)
        for side in (was, now)
    ]
    fields = tuple(RecordField(*values) for values in zip(labels, *sides, strict=True))
    owner = code_or_quoted(e.owner)  # a pack may type its tenant field as a plain string
    return RecordRow(noun, _citation(e), owner, status, fields, code_or_quoted(e.id))


def _citation(e: Entry) -> str:
    """What evidence cites a record by: its id when it is a code; else (a pack may type its id
    field as a plain string) its kind and a digest of its id, a code that names it alone."""
    if code_or_quoted(e.id) == e.id:
        return e.id
    return f"{e.kind}-{hashlib.sha256(e.id.encode('utf-8', 'surrogatepass')).hexdigest()[:12]}"


def records_for_rater(t: Transcript) -> tuple[DomainRecords | None, list[EvidenceItem]]:
    """What a human rater's records panel shows: for a pack that builds its own evidence, no
    record table and the judge's evidence lines; else the records by kind, before and at the
    end (`domain_records`), and the lines that are not about one record (a snapshot that cannot
    be read, the service's log, the messages accepted)."""
    if phrasing(t.domain).evidence is not None:
        return None, trusted_evidence(t)
    records = domain_records(t)
    return records, [*records.missing, *log_evidence(t)]


def log_evidence(t: Transcript) -> list[EvidenceItem]:
    """What the service's log, the harness and the message receiver say happened (refused and
    lost calls, failures, lookups, changes made outside the agent, messages accepted), in time
    order."""
    words = phrasing(t.domain)
    return sorted(_calls_and_events(t, words) + _accepted(t), key=lambda i: (i.t, i.id))


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


def _fields(view: RecordView, e: Entry, words: JudgePhrasing) -> list[tuple[str, str]]:
    """(label, value in words) of the fields a record's roles name: its amounts with their
    currency, quantities, version, then its business key, operation ids and state fields; each
    label the field's name, or the words the pack's phrasing gives it."""
    spec = e.spec
    parts: list[tuple[str, str]] = []
    for m in view.money(e):
        currency = _value(m.currency) if m.currency else "in an unknown currency"
        parts.append((m.field, money(m.minor_units, currency)))
    parts += [(f, _value(e.value(f))) for f in spec.quantity_fields]
    if spec.version_field is not None:
        parts.append(("version", _value(e.value(spec.version_field))))
    named = {spec.id_field, spec.tenant_field, spec.version_field, *spec.quantity_fields}
    named |= {m.amount for m in spec.money_fields} | {m.currency for m in spec.money_fields}
    for f in (*spec.key_fields, *spec.operation_id_fields, *spec.state_fields):
        if f not in named:
            named.add(f)
            parts.append((f, _plain(e.value(f))))
    return [(words.field_label(label), value) for label, value in parts]


def _plain(value: object) -> str:
    """A state field's value in words: none for a missing value, ISO for a time, a string as a
    code or quoted."""
    if value is None:
        return "none"
    if isinstance(value, datetime):
        return value.isoformat()
    return _value(value)


def _value(value: object) -> str:
    """A value from the transcript inside an evidence line: a string as a code, or quoted when
    it is not one; anything else (a number, a flag, None) as Python writes it."""
    return code_or_quoted(value) if isinstance(value, str) else str(value)


def _customer_texts(t: Transcript) -> list[UntrustedText]:
    """Customer-written text kept on the acting tenant's records before the trial (the pack's
    `customer_text_fields`, e.g. a traveller's note): untrusted, like a message."""
    if t.snapshot_before is None:
        return []
    try:
        pack = get_pack(t.domain).pack
    except UnknownDomain:
        return []
    _, view = _view(pack, t.snapshot_before)
    words = pack.judge
    out: list[UntrustedText] = []
    for e in view.entries(t.acting_tenant) if view is not None else []:
        for f in e.spec.customer_text_fields if e.owner == t.acting_tenant else ():
            text = e.value(f)
            if isinstance(text, str) and text.strip():
                header = (
                    f"{words.field_label(f)} written by the customer, kept on "
                    f"{words.kind_noun(e.kind)} {code_or_quoted(e.id)}"
                )
                out.append((f"{f}_{_citation(e)}", 0, header, text))
    return out


def conversation_items(t: Transcript) -> list[UntrustedText]:
    """(id, t, header, text) of everything said to the customer or by them, in time order:
    the conversation, the customer's text kept on the records (the pack's own finder's, or
    the fields of the `customer_text` role), the messages the agent sent. The text is
    untrusted; the header is written by calibrant."""
    out = [(turn.turn_id, turn.seq, f"{turn.role} message", turn.text) for turn in t.conversation]
    words = phrasing(t.domain)
    out += words.customer_texts(t) if words.customer_texts is not None else _customer_texts(t)
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
