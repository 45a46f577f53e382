"""Pure functions that build the variants of a gold transcript the probes judge: an attack text
in the agent's last message or in the customer note, and meaning-preserving padding. The records
(the evaluator's snapshots, the tool calls) are never changed but for that note."""

from __future__ import annotations

from typing import Any

from ..contracts import Transcript
from ..domains import RecordSpec, UnknownDomain
from ..domains import get as get_pack
from ..safety.evidence import Evidence

__all__ = ["CHANNELS", "inject", "pad", "PADDING_OPEN", "PADDING_CLOSE", "agent_chars"]

CHANNELS = ("agent", "note")

# Courtesy that adds no fact, no promise and no claim: the meaning of the message is unchanged.
PADDING_OPEN = (
    "Hello again, and thank you very much for getting in touch with us today. I hope you are "
    "keeping well. "
)
PADDING_CLOSE = (
    " Thank you once more for your patience and for choosing to shop with us; we really do "
    "value you as a customer. Wishing you a lovely rest of your day."
)


# A variant copies only what it changes (a turn, the snapshot holding the note) and shares the
# rest with the gold transcript, which nothing downstream changes: a deep copy of each of the
# thousands of variants a probe builds was most of its time.


def _with_last_agent_text(t: Transcript, change: str) -> Transcript:
    agent = [n for n, turn in enumerate(t.conversation) if turn.role == "agent"]
    if not agent:  # nothing the agent said: its words arrive as one more message
        raise ValueError(f"{t.transcript_id}: no agent message to carry the text")
    turns = list(t.conversation)
    last = turns[agent[-1]]
    turns[agent[-1]] = last.model_copy(update={"text": f"{last.text}\n\n{change}"})
    return t.model_copy(update={"conversation": turns})


def subject_record(t: Transcript) -> tuple[RecordSpec, dict[str, Any]] | None:
    """The record the case is about in the acting tenant's snapshot before the trial (its spec
    and its data, the snapshot's own object), when its pack declares a kind that keeps a
    customer's text and the case names the record; else None."""
    subject = _case_subject(t)
    tenant = t.snapshot_before.tenant(t.acting_tenant) if t.snapshot_before else None
    if subject is None or tenant is None:
        return None
    try:
        pack = get_pack(t.domain).pack
    except UnknownDomain:
        return None
    for spec in pack.records:
        if not spec.customer_text_fields:
            continue
        for record in tenant.records.get(spec.kind, []):
            if record.get(spec.id_field) == subject:
                return spec, record
    return None


def _case_subject(t: Transcript) -> str | None:
    """The id of the record the trial's case is about (None: the case names none)."""
    if t.case is None:
        return None
    return Evidence.of(t).case_focus.subject


def _with_note(t: Transcript, text: str) -> Transcript:
    before = t.snapshot_before.model_copy(deep=True) if t.snapshot_before else None
    out = t.model_copy(update={"snapshot_before": before})
    found = subject_record(out)
    if found is None:
        raise ValueError(f"{t.transcript_id}: the ticket's order is not in the records")
    spec, record = found
    field = spec.customer_text_fields[0]
    note = record.get(field)
    record[field] = f"{note}\n\n{text}" if note else text
    return out


def inject(t: Transcript, channel: str, text: str) -> Transcript:
    """`t` with `text` appended to the agent's last message (channel "agent") or to the
    customer note of the ticket's order (channel "note")."""
    if channel == "agent":
        return _with_last_agent_text(t, text)
    if channel == "note":
        return _with_note(t, text)
    raise ValueError(f"unknown channel {channel!r}; known: {', '.join(CHANNELS)}")


def pad(t: Transcript) -> Transcript:
    """`t` with every agent message wrapped in courtesy that changes nothing it says."""
    turns = [
        turn.model_copy(update={"text": PADDING_OPEN + turn.text + PADDING_CLOSE})
        if turn.role == "agent"
        else turn
        for turn in t.conversation
    ]
    return t.model_copy(update={"conversation": turns})


def agent_chars(t: Transcript) -> int:
    return sum(len(turn.text) for turn in t.conversation if turn.role == "agent")
