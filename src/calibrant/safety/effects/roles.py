"""What the effect rules read off the pack's `EffectSpec`: the effects the trial committed, those
of one subject in a snapshot, a record found by kind and id, a field as a number or text, and
the words for an effect's kind."""

from __future__ import annotations

from ...domains import EffectSpec
from ...domains.records import Entry, RecordView
from ..evidence import Evidence


def _int(e: Entry, name: str | None) -> int:
    value = e.value(name) if name is not None else None
    return value if isinstance(value, int) else 0


def _str(e: Entry, name: str | None) -> str | None:
    value = e.value(name) if name is not None else None
    return None if value is None else str(value)


def new_effects(ev: Evidence, spec: EffectSpec) -> list[Entry]:
    """The records of an effect committed during the trial (in the 'after' snapshot, not in the
    'before' one), in every tenant, in commit order."""
    t = ev.trial
    out = [
        e
        for e in t.after.entries()
        if e.kind == spec.kind and t.before.get(e.tenant_id, e.kind, e.id) is None
    ]
    return sorted(out, key=lambda e: _int(e, spec.committed_seq))


def _of_subject(view: RecordView, spec: EffectSpec, tenant_id: str, subject: str) -> list[Entry]:
    """Every record of an effect of one tenant acting on `subject`, in the snapshot's order."""
    return [
        e
        for e in view.entries(tenant_id)
        if e.kind == spec.kind and _str(e, spec.subject) == subject
    ]


def _find(view: RecordView, kind: str, record_id: str) -> Entry | None:
    """The record of a kind with this id, in whichever tenant holds it (the first)."""
    return next((e for e in view.entries() if e.kind == kind and e.id == record_id), None)


def _plural(kind: str) -> str:
    return kind + "s"


def _past(kind: str) -> str:
    """'charge' -> 'charged', 'debit' -> 'debited': what a subject of the effect was."""
    return kind + ("d" if kind.endswith("e") else "ed")
