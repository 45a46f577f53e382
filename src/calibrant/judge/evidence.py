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
declares (`domain_records`, in `record_rows.py`), or from the pack's own builder where its
roles are not enough (`JudgePhrasing.evidence`); the lines about the service's log and the
accepted messages are the same for every domain, in the pack's words where a domain has some
(`JudgePhrasing.lookups`)."""

from __future__ import annotations

from ..contracts import Transcript, Turn
from ..contracts.common import money
from ..domains import NEUTRAL, EvidenceItem, JudgePhrasing, UnknownDomain, UntrustedText
from ..domains import get as get_pack
from .fence import code_or_quoted, quoted
from .record_rows import (
    DomainRecords,
    RecordField,
    RecordRow,
    citation,
    domain_records,
    read_snapshot,
    value_words,
)

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
                    f"({value_words(c.authorization.reason)}); nothing was done",
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


def _customer_texts(t: Transcript) -> list[UntrustedText]:
    """Customer-written text kept on the acting tenant's records before the trial (the pack's
    `customer_text_fields`, e.g. a traveller's note): untrusted, like a message."""
    if t.snapshot_before is None:
        return []
    try:
        pack = get_pack(t.domain).pack
    except UnknownDomain:
        return []
    _, view = read_snapshot(pack, t.snapshot_before)
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
                out.append((f"{f}_{citation(e)}", 0, header, text))
    return out


def _turn_header(turn: Turn) -> str:
    """ "agent message", and for imported text sent beside a tool call, that it was (and, when
    the import said so, that the customer never saw it)."""
    header = f"{turn.role} message"
    if turn.with_tool_call:
        header += " sent with a tool call"
    if turn.seen_by_customer is False:
        header += " (not seen by the customer)"
    return header


def conversation_items(t: Transcript) -> list[UntrustedText]:
    """(id, t, header, text) of everything said to the customer or by them, in time order:
    the conversation, the customer's text kept on the records (the pack's own finder's, or
    the fields of the `customer_text` role), the messages the agent sent. The text is
    untrusted; the header is written by calibrant."""
    out = [(turn.turn_id, turn.seq, _turn_header(turn), turn.text) for turn in t.conversation]
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
