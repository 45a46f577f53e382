"""A pack's tool calls reconstructed from its snapshots, through the roles its pack declares
and its import rules (`DomainPack.imports`).

- reads: the records whose id, or an address (an email), appears in what a call returned (of
  the kinds the pack's rules search, in their order);
- grant: the agent's grant for the scope a tool needs (the pack's rules name it), in the
  'before' snapshot, through the pack's `grants`;
- writes: the records new in the 'after' snapshot whose operation id (a field the pack declares
  as one) the call sent among its arguments; the first call that sent it made it (a retry
  under the same operation id made nothing new). Changes to records that already existed, and
  new records without an operation id, are not tied to a call: a trace does not say which call
  made them (the checks that need them read the snapshots themselves); a pack whose records
  say more declares its own reading (`ImportRules.writes`).

Only the ids come from the trace; which records exist, whose they are and what they hold is the
system of record's."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime

from pydantic import JsonValue

from ..contracts import CommittedWrite, DomainSnapshot, RecordRef, ToolCall
from ..domains import DomainPack
from ..domains.conform import tenant_snapshot
from ..domains.records import Entry, RecordView

__all__ = ["DomainRecords"]

_ID = re.compile(r"^[A-Za-z0-9_.:\-/@+]{1,200}$")


def _mentions(text: str, value: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(value)}(?![A-Za-z0-9_])", text) is not None


def _strings(value: JsonValue) -> Iterable[str]:
    """Every string in an argument value (nested lists and objects included)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)


class DomainRecords:
    """The snapshots of one trace, read through the pack (a missing snapshot reads as none)."""

    def __init__(
        self, pack: DomainPack, before: DomainSnapshot | None, after: DomainSnapshot | None
    ) -> None:
        self.pack = pack
        self.before = self._view(before)
        self.after = self._view(after)

    def _view(self, snap: DomainSnapshot | None) -> RecordView | None:
        if snap is None or self.pack.snapshot is None:
            return None
        return RecordView(self.pack, [tenant_snapshot(self.pack, t) for t in snap.tenants])

    def reads(self, result: JsonValue, acting: str) -> list[RecordRef]:
        """The records a call returned: those whose id or address appears in what came back
        (an id the acting tenant also holds counts as its own)."""
        text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
        out: dict[tuple[str, str, str], RecordRef] = {}
        own: set[tuple[str, str]] = set()
        entries = [e for view in (self.before, self.after) if view for e in self._searched(view)]
        entries.sort(key=lambda e: e.owner != acting)
        for e in entries:
            key = (e.kind, e.id)
            if e.owner == acting:
                own.add(key)
            elif key in own:
                continue
            values = [e.id, *(str(v) for f in e.spec.address_fields if (v := e.value(f)))]
            if (e.owner, *key) not in out and any(_mentions(text, v) for v in values):
                if _ID.match(e.owner) and _ID.match(e.id):
                    out[(e.owner, *key)] = RecordRef(tenant_id=e.owner, kind=e.kind, record_id=e.id)
        return list(out.values())

    def _searched(self, view: RecordView) -> Iterator[Entry]:
        """The records a call's answer is searched for: tenant by tenant, the kinds the pack's
        rules name in their order (none named: every kind, in the snapshot's order)."""
        kinds = self.pack.imports.reads
        for tenant_id in view.tenant_ids:
            found = list(view.entries(tenant_id))
            yield from (e for k in kinds for e in found if e.kind == k) if kinds else found

    def grant(self, tenant: str, principal: str, scope: str | None, when: datetime) -> str | None:
        """The agent's grant for `scope` in the 'before' snapshot (one valid at `when` if any);
        None without a scope, a snapshot or a grants role."""
        spec = self.pack.grants
        if scope is None or self.before is None or spec is None:
            return None
        grants = [
            e
            for e in self.before.entries(tenant)
            if e.kind == spec.kind
            and e.value(spec.principal) == principal
            and scope in (e.value(spec.scopes) or ())  # type: ignore[operator]
        ]
        valid = [e for e in grants if _in_force(e, spec.expires_at, spec.revoked_seq, when)]
        chosen = (valid or grants)[:1]
        return chosen[0].id if chosen else None

    def _new(self) -> list[Entry]:
        """Records in the 'after' snapshot not in the 'before' one (all, without a 'before')."""
        if self.after is None:
            return []
        before = self.before
        return [
            e
            for e in self.after.entries()
            if before is None or before.get(e.tenant_id, e.kind, e.id) is None
        ]

    def writes(self, calls: Sequence[ToolCall]) -> dict[str, list[CommittedWrite]]:
        """By call id: the records each call created (see the module's docstring). A call the
        service refused made nothing, unless no other call sent the operation id."""
        first: dict[str, str] = {}
        for refused in (False, True):
            for call in calls:
                if (call.outcome == "error") != refused:
                    continue
                for value in call.arguments.values():
                    for s in _strings(value):
                        first.setdefault(s, call.call_id)
        by_call = {e.kind: e.call for e in self.pack.effects if e.call is not None}
        ids = {c.call_id for c in calls}
        out: dict[str, list[CommittedWrite]] = {}
        for e in self._new():
            made: tuple[str | None, str] | None = next(
                ((op, first[op]) for op in e.operation_ids if op in first), None
            )
            named = e.value(by_call[e.kind]) if e.kind in by_call else None
            if made is None and isinstance(named, str) and named in ids:
                made = (None, named)  # the record names the call that committed it
            if made is None or not (_ID.match(e.owner) and _ID.match(e.id)):
                continue
            op, call_id = made
            out.setdefault(call_id, []).append(
                CommittedWrite(
                    tenant_id=e.owner,
                    kind=e.kind,
                    record_id=e.id,
                    action="create",
                    operation_id=op if op is not None and _ID.match(op) else None,
                )
            )
        return out


def _in_force(e: Entry, expires_at: str | None, revoked_seq: str | None, when: datetime) -> bool:
    """A grant not revoked and not expired at `when`."""
    if revoked_seq is not None and e.value(revoked_seq) is not None:
        return False
    expiry = e.value(expires_at) if expires_at is not None else None
    return expiry is None or expiry > when  # type: ignore[operator]
