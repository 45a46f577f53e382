"""The records of a pack's transcript as a rater reads them, by the roles the pack declares:
the acting tenant's records by kind, each before and at the end with the fields its roles name
(money with its currency, quantities, version, business key, operation ids, state fields), in
the pack's words (`JudgePhrasing.kinds`, `.fields`). The judge's evidence lines for a pack that
builds none of its own, the workbench's records panel and the labeling sheets' tables all come
from here (`evidence.py` assembles them). Every value from the transcript is a code or quoted
(`fence.py`); another tenant's records are never read."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime

from pydantic import BaseModel, ValidationError

from ..contracts import DomainSnapshot, Transcript
from ..contracts.common import money
from ..domains import DomainPack, EvidenceItem, JudgePhrasing, UnknownDomain
from ..domains import get as get_pack
from ..domains.conform import tenant_snapshot
from ..domains.records import Entry, RecordView
from .fence import code_or_quoted

__all__ = [
    "DomainRecords",
    "RecordField",
    "RecordRow",
    "citation",
    "domain_records",
    "read_snapshot",
    "value_words",
]


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
    code, see `citation`); `name` its id as its records say it (the same, or quoted)."""

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
        problem, view = read_snapshot(pack, snap)
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
    return RecordRow(noun, citation(e), owner, status, fields, code_or_quoted(e.id))


def citation(e: Entry) -> str:
    """What evidence cites a record by: its id when it is a code; else (a pack may type its id
    field as a plain string) its kind and a digest of its id, a code that names it alone."""
    if code_or_quoted(e.id) == e.id:
        return e.id
    return f"{e.kind}-{hashlib.sha256(e.id.encode('utf-8', 'surrogatepass')).hexdigest()[:12]}"


def read_snapshot(
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
        currency = value_words(m.currency) if m.currency else "in an unknown currency"
        parts.append((m.field, money(m.minor_units, currency)))
    parts += [(f, value_words(e.value(f))) for f in spec.quantity_fields]
    if spec.version_field is not None:
        parts.append(("version", value_words(e.value(spec.version_field))))
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
    return value_words(value)


def value_words(value: object) -> str:
    """A value from the transcript inside an evidence line: a string as a code, or quoted when
    it is not one; anything else (a number, a flag, None) as Python writes it."""
    return code_or_quoted(value) if isinstance(value, str) else str(value)
