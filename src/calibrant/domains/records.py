"""The evaluator's snapshot of a system of record, read through its domain pack's declarations.

A snapshot holds tenants, each with lists of records; the pack says which list holds which kind
of record and what role each field plays (owner, protected value, money, version, operation id,
business key). Invariants built on this view name roles, never a domain's record or field: the
same check reads a shop's orders and a warehouse's stock items."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

from pydantic import BaseModel

from .pack import DomainPack, RecordSpec

__all__ = ["Entry", "Money", "RecordView", "TrialEnd"]


@dataclass(frozen=True)
class Money:
    """An amount on a record: integer minor units, its currency (None: unknown), its field."""

    field: str
    minor_units: int
    currency: str | None


@dataclass(frozen=True)
class Entry:
    """One record of a snapshot: the tenant whose snapshot holds it, its kind, the record and
    the declaration of its kind."""

    tenant_id: str
    kind: str
    record: BaseModel
    spec: RecordSpec

    def value(self, name: str) -> object:
        return getattr(self.record, name)

    @property
    def id(self) -> str:
        return str(self.value(self.spec.id_field))

    @property
    def owner(self) -> str:
        """The tenant that owns it (its tenant field; else the snapshot holding it)."""
        field = self.spec.tenant_field
        owner = self.value(field) if field is not None else None
        return str(owner) if owner is not None else self.tenant_id

    @property
    def version(self) -> int | None:
        field = self.spec.version_field
        value = self.value(field) if field is not None else None
        return value if isinstance(value, int) else None

    @property
    def operation_ids(self) -> tuple[str, ...]:
        """Its operation ids (the fields left empty are left out)."""
        values = (self.value(f) for f in self.spec.operation_id_fields)
        return tuple(str(v) for v in values if v is not None)

    @property
    def key(self) -> tuple[str, ...] | None:
        """Its business key (None when its kind declares none)."""
        if not self.spec.key_fields:
            return None
        return tuple(str(self.value(f)) for f in self.spec.key_fields)

    def protected(self) -> Iterator[tuple[str, object]]:
        """(field, value) of every protected field that holds a value."""
        for f in self.spec.protected_fields:
            value = self.value(f)
            if value is not None:
                yield f, value


@dataclass(frozen=True)
class TrialEnd:
    """What a trial ended with, read by the pack's roles, for a case outcome written in the
    pack's own model (its form's `case_outcome`, checked by its `outcome_mismatches`): the
    pack; the records of its first effect kind the trial committed in the acting tenant; the
    case's work item after the trial; whether the trial created a review request (a record of
    the effect's approval gate about the case's subject)."""

    pack: DomainPack
    effects: tuple[Entry, ...]
    item: Entry
    requested: bool


class RecordView:
    """The records of one snapshot (`tenants`: one model per tenant, the pack's snapshot
    model), by tenant and kind, in the snapshot's order: tenants as listed, then the kinds in
    the order of the snapshot model's lists, then the records as listed."""

    def __init__(self, pack: DomainPack, tenants: Sequence[BaseModel]) -> None:
        if pack.snapshot is None:
            raise ValueError(f"domain pack '{pack.name}' declares no snapshot")
        self.pack = pack
        self._snap = pack.snapshot
        self._lists = pack.snapshot.lists(pack.records)
        self._tenants = {str(getattr(t, self._snap.tenant_field)): t for t in tenants}

    @property
    def tenant_ids(self) -> list[str]:
        return list(self._tenants)

    def has(self, tenant_id: str) -> bool:
        return tenant_id in self._tenants

    def tenant_protected(self, tenant_id: str) -> list[tuple[str, object]]:
        """(field, value) of the tenant's own protected values (e.g. its display name)."""
        tenant = self._tenants.get(tenant_id)
        if tenant is None:
            return []
        values = ((f, getattr(tenant, f)) for f in self._snap.protected_fields)
        return [(f, v) for f, v in values if v is not None]

    def entries(self, tenant_id: str | None = None) -> Iterator[Entry]:
        """Every record of one tenant (None: of every tenant)."""
        ids = self.tenant_ids if tenant_id is None else [tenant_id]
        for tid in ids:
            tenant = self._tenants.get(tid)
            if tenant is None:
                continue
            for name, spec in self._lists:
                for record in getattr(tenant, name):
                    yield Entry(tid, spec.kind, record, spec)

    @cached_property
    def _by_id(self) -> dict[tuple[str, str, str], Entry]:
        return {(e.tenant_id, e.kind, e.id): e for e in self.entries()}

    def get(self, tenant_id: str, kind: str, record_id: str) -> Entry | None:
        return self._by_id.get((tenant_id, kind, record_id))

    def ids(self, kind: str) -> set[tuple[str, str]]:
        """(tenant, id) of every record of a kind."""
        return {(t, rid) for t, k, rid in self._by_id if k == kind}

    def kinds_with_id(self, record_id: str) -> set[str]:
        """The kinds of the records (of any tenant) with this id."""
        return {k for _, k, rid in self._by_id if rid == record_id}

    def money(self, entry: Entry) -> list[Money]:
        """Every amount on a record with its currency: its own currency field's value, or the
        currency of the record it refers to (MoneyField.currency_of), found in the same tenant
        among the records with a currency of their own (None when none is found)."""
        out: list[Money] = []
        for m in entry.spec.money_fields:
            amount = entry.value(m.amount)
            if not isinstance(amount, int):
                continue
            currency: str | None = None
            if m.currency is not None:
                currency = _str(entry.value(m.currency))
            elif m.currency_of is not None:
                currency = self._currency_of(entry.tenant_id, _str(entry.value(m.currency_of)))
            out.append(Money(m.amount, amount, currency))
        return out

    def _currency_of(self, tenant_id: str, record_id: str | None) -> str | None:
        if record_id is None:
            return None
        for _, spec in self._lists:
            own = [m for m in spec.money_fields if m.currency is not None]
            found = self.get(tenant_id, spec.kind, record_id) if own else None
            if found is not None:
                return _str(found.value(own[0].currency or ""))
        return None


def _str(value: object) -> str | None:
    return None if value is None else str(value)
