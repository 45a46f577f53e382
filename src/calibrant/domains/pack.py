"""What a domain pack declares and the core reads: its records with the roles their fields play,
where its rubrics, cases and gold set live, its scripted reference agents and its fault points.

A pack is plain data, checked when it is built: every role names a real field of its record's
model, so a misspelt field fails once, in one line naming the pack, the record and the field,
instead of as a silent "no leak found" later."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel

from ..errors import CalibrantError

__all__ = ["DomainPackError", "MoneyField", "RecordSpec", "DomainPack"]

_ID = re.compile(r"^[A-Za-z0-9_.:\-/@+]{1,200}$")  # calibrant.contracts.common.Id


class DomainPackError(CalibrantError):
    """A pack's declaration is wrong (a role naming no field, a bad name, two records of one
    kind). The message names the pack and what is wrong, in one line."""


@dataclass(frozen=True)
class MoneyField:
    """An amount of money on a record: `amount` holds integer minor units; `currency` names
    the field holding its ISO 4217 code, or None when the amount is in the currency of the
    record it refers to (a refund is in its order's currency)."""

    amount: str
    currency: str | None = None


@dataclass(frozen=True)
class RecordSpec:
    """One kind of record of a pack: its pydantic model and the roles of its fields.

    - `kind`: the record kind, e.g. "order" (unique in the pack);
    - `id_field`: the record's own stable id;
    - `tenant_field`: the tenant that owns it (None: the record belongs to no tenant);
    - `protected_fields`: values that must never reach another tenant (what counts as a leak);
    - `money_fields`: amounts in minor units, each with its currency;
    - `quantity_fields`: other counted quantities (seats, stock units), integers;
    - `version_field`: the optimistic-concurrency version every write names (None: not
      versioned);
    - `operation_id_fields`: the stable operation ids its effects are idempotent by;
    - `key_fields`: the business key: one effect per operation and business key."""

    kind: str
    model: type[BaseModel]
    id_field: str
    tenant_field: str | None = None
    protected_fields: tuple[str, ...] = ()
    money_fields: tuple[MoneyField, ...] = ()
    quantity_fields: tuple[str, ...] = ()
    version_field: str | None = None
    operation_id_fields: tuple[str, ...] = ()
    key_fields: tuple[str, ...] = ()

    def roles(self) -> list[tuple[str, str]]:
        """(role, field) for every role declared, in a stable order (what `domains show` lists
        and what is checked against the model)."""
        out = [("id", self.id_field)]
        if self.tenant_field is not None:
            out.append(("tenant", self.tenant_field))
        out += [("protected", f) for f in self.protected_fields]
        for m in self.money_fields:
            out.append(("money", m.amount))
            if m.currency is not None:
                out.append(("currency", m.currency))
        out += [("quantity", f) for f in self.quantity_fields]
        if self.version_field is not None:
            out.append(("version", self.version_field))
        out += [("operation_id", f) for f in self.operation_id_fields]
        out += [("key", f) for f in self.key_fields]
        return out


@dataclass(frozen=True)
class DomainPack:
    """A domain pack's declaration.

    `name` is what users' files name in their `domain` field (an id, e.g. "refunds"); `title`,
    `version` and `description` (one line) are shown by `calibrant domains list`. `rubrics` and
    `cases` are folders of YAML files, `gold` a gold set folder (manifest.yaml, transcripts/,
    labels/) or None; a path that does not exist is shown as missing, not an error (a pack
    installed without its data). `correct_agent` and `faulty_agents` name the scripted reference
    agents (e.g. "scripted:correct"); `fault_points` the named points where a trial's faults
    fire."""

    name: str
    title: str
    version: str
    description: str
    records: tuple[RecordSpec, ...]
    rubrics: Path
    cases: Path
    gold: Path | None = None
    correct_agent: str | None = None
    faulty_agents: tuple[str, ...] = ()
    fault_points: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        who = f"domain pack '{self.name}'"
        if not isinstance(self.name, str) or not _ID.match(self.name):
            raise DomainPackError(
                f"{who}: the name must be an id (letters, digits and _ . : - / @ +)"
            )
        for attr in ("title", "version", "description"):
            value = getattr(self, attr)
            if not isinstance(value, str) or not value.strip() or "\n" in value:
                raise DomainPackError(f"{who}: {attr} must be one non-empty line")
        if not self.records:
            raise DomainPackError(f"{who}: declares no record")
        kinds: set[str] = set()
        for spec in self.records:
            _check_record(who, spec)
            if spec.kind in kinds:
                raise DomainPackError(f"{who}: two records of kind '{spec.kind}'")
            kinds.add(spec.kind)
        for attr in ("rubrics", "cases", "gold"):
            value = getattr(self, attr)
            if value is not None and not isinstance(value, Path):
                raise DomainPackError(f"{who}: {attr} must be a pathlib.Path")

    def record(self, kind: str) -> RecordSpec:
        """The record of this kind (KeyError if the pack declares none)."""
        for spec in self.records:
            if spec.kind == kind:
                return spec
        raise KeyError(kind)

    @property
    def agents(self) -> tuple[str, ...]:
        """Every scripted reference agent, the correct one first."""
        first = () if self.correct_agent is None else (self.correct_agent,)
        return first + self.faulty_agents


def _check_record(who: str, spec: RecordSpec) -> None:
    if not isinstance(spec, RecordSpec):
        raise DomainPackError(f"{who}: records must be RecordSpec, not {type(spec).__name__}")
    if not (isinstance(spec.model, type) and issubclass(spec.model, BaseModel)):
        raise DomainPackError(f"{who}: record '{spec.kind}': model must be a pydantic model class")
    if not isinstance(spec.kind, str) or not _ID.match(spec.kind):
        raise DomainPackError(f"{who}: record kind {spec.kind!r} is not an id")
    fields = spec.model.model_fields
    model = spec.model.__name__
    for role, name in spec.roles():
        if name not in fields:
            known = ", ".join(fields)
            raise DomainPackError(
                f"{who}: record '{spec.kind}': {role} field '{name}' is not a field of {model} "
                f"(its fields: {known})"
            )
