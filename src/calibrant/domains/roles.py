"""The roles a pack's records declare: which field is a record's id, its tenant, a protected
value, money, a version, an operation id, a business key; and how the evaluator's snapshot of one
tenant holds the records. Checked when the pack is built (`calibrant.domains.pack`): every role
names a real field of its record's model, in one line naming the pack, the record and the field."""

from __future__ import annotations

import re
import typing
from dataclasses import dataclass

from pydantic import BaseModel

from ..errors import CalibrantError

__all__ = ["DomainPackError", "MoneyField", "RecordSpec", "SnapshotSpec"]

_ID = re.compile(r"^[A-Za-z0-9_.:\-/@+]{1,200}$")  # calibrant.contracts.common.Id


class DomainPackError(CalibrantError):
    """A pack's declaration is wrong (a role naming no field, a bad name, two records of one
    kind). The message names the pack and what is wrong, in one line."""


@dataclass(frozen=True)
class MoneyField:
    """An amount of money on a record: `amount` holds integer minor units; `currency` names
    the field holding its ISO 4217 code, or None when the amount is in the currency of the
    record it refers to (a charge is in its order's currency): `currency_of` then names the
    field holding that record's id (a charge's `order_id`)."""

    amount: str
    currency: str | None = None
    currency_of: str | None = None


@dataclass(frozen=True)
class RecordSpec:
    """One kind of record of a pack: its pydantic model and the roles of its fields.

    - `kind`: the record kind, e.g. "order" (unique in the pack);
    - `id_field`: the record's own stable id;
    - `tenant_field`: the tenant that owns it (None: the record belongs to no tenant);
    - `protected_fields`: values that must never reach another tenant (what counts as a leak);
      a protected field that is the record's id or part of its key is matched as an id
      ("order 017" is order_017), a money field as an amount ("42,00 €"), any other as text;
    - `name_fields`: protected fields holding a person's name: the surname alone, used as a
      name ("Mrs. Solé"), is a leak too;
    - `address_fields`: protected fields holding an address messages are delivered to (an
      email): a message delivered to another tenant's address is a leak whatever it says;
    - `money_fields`: amounts in minor units, each with its currency;
    - `quantity_fields`: other counted quantities (seats, stock units), integers;
    - `version_field`: the optimistic-concurrency version every write names (None: not
      versioned);
    - `operation_id_fields`: the stable operation ids its effects are idempotent by;
    - `key_fields`: the business key: one effect per operation and business key;
    - `state_fields`: other fields whose values are trusted state the agent's words are checked
      against (a booking's status, a hold's expiry): shown in the judge's evidence and the
      expert's records panel;
    - `customer_text_fields`: text a customer wrote that the record keeps (a traveller's note):
      never trusted, shown to the judge fenced as untrusted text beside the conversation, like
      a message."""

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
    name_fields: tuple[str, ...] = ()
    address_fields: tuple[str, ...] = ()
    state_fields: tuple[str, ...] = ()
    customer_text_fields: tuple[str, ...] = ()

    def roles(self) -> list[tuple[str, str]]:
        """(role, field) for every role declared, in a stable order (what `domains show` lists
        and what is checked against the model)."""
        out = [("id", self.id_field)]
        if self.tenant_field is not None:
            out.append(("tenant", self.tenant_field))
        out += [("protected", f) for f in self.protected_fields]
        out += [("person_name", f) for f in self.name_fields]
        out += [("address", f) for f in self.address_fields]
        for m in self.money_fields:
            out.append(("money", m.amount))
            if m.currency is not None:
                out.append(("currency", m.currency))
            if m.currency_of is not None:
                out.append(("currency_of", m.currency_of))
        out += [("quantity", f) for f in self.quantity_fields]
        if self.version_field is not None:
            out.append(("version", self.version_field))
        out += [("operation_id", f) for f in self.operation_id_fields]
        out += [("key", f) for f in self.key_fields]
        out += [("state", f) for f in self.state_fields]
        out += [("customer_text", f) for f in self.customer_text_fields]
        return out


@dataclass(frozen=True)
class SnapshotSpec:
    """How the evaluator's snapshot of one tenant holds the pack's records: `model` is the
    pydantic model of one tenant's snapshot (e.g. a shop's `TenantSnapshot`), `tenant_field`
    its tenant id, `protected_fields` the tenant's own protected values (its display name).

    Which list holds which kind is read from the model: each field typed `list[M]` holds the
    records whose RecordSpec has model `M`. Every record must be held by exactly one list and
    every list of models must hold a declared record (checked when the pack is built)."""

    model: type[BaseModel]
    tenant_field: str = "tenant_id"
    protected_fields: tuple[str, ...] = ()

    def lists(self, records: tuple[RecordSpec, ...]) -> tuple[tuple[str, RecordSpec], ...]:
        """(list field, the record it holds) for every list of records of the model, in the
        model's field order (the pack's declaration is checked, so each matches)."""
        by_model = {spec.model: spec for spec in records}
        out: list[tuple[str, RecordSpec]] = []
        for name, info in self.model.model_fields.items():
            item = _list_item(info.annotation)
            if item is not None and item in by_model:
                out.append((name, by_model[item]))
        return tuple(out)


def _list_item(annotation: object) -> type[BaseModel] | None:
    """M for an annotation `list[M]` with M a pydantic model, else None."""
    if typing.get_origin(annotation) is not list:
        return None
    args = typing.get_args(annotation)
    item = args[0] if len(args) == 1 else None
    return item if isinstance(item, type) and issubclass(item, BaseModel) else None


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
    for role, names in (("person_name", spec.name_fields), ("address", spec.address_fields)):
        for name in names:
            if name not in spec.protected_fields:
                raise DomainPackError(
                    f"{who}: record '{spec.kind}': {role} field '{name}' must be one of its "
                    "protected fields"
                )
    for m in spec.money_fields:
        if m.currency is not None and m.currency_of is not None:
            raise DomainPackError(
                f"{who}: record '{spec.kind}': money field '{m.amount}' names both a currency "
                "field and the record whose currency it is in"
            )


def _check_snapshot(who: str, snap: SnapshotSpec, records: tuple[RecordSpec, ...]) -> None:
    if not isinstance(snap, SnapshotSpec):
        raise DomainPackError(f"{who}: snapshot must be a SnapshotSpec")
    if not (isinstance(snap.model, type) and issubclass(snap.model, BaseModel)):
        raise DomainPackError(f"{who}: snapshot: model must be a pydantic model class")
    fields = snap.model.model_fields
    model = snap.model.__name__
    for role, name in [("tenant", snap.tenant_field)] + [
        ("protected", f) for f in snap.protected_fields
    ]:
        if name not in fields:
            raise DomainPackError(
                f"{who}: snapshot: {role} field '{name}' is not a field of {model} "
                f"(its fields: {', '.join(fields)})"
            )
    by_model: dict[type[BaseModel], str] = {}
    for spec in records:
        if spec.model in by_model:
            raise DomainPackError(
                f"{who}: records '{by_model[spec.model]}' and '{spec.kind}' share the model "
                f"{spec.model.__name__}: a snapshot could not tell them apart"
            )
        by_model[spec.model] = spec.kind
    held: dict[str, str] = {}
    for name, info in fields.items():
        item = _list_item(info.annotation)
        if item is None:
            continue
        if item not in by_model:
            raise DomainPackError(
                f"{who}: snapshot: field '{name}' of {model} holds {item.__name__}, which no "
                "record of the pack declares"
            )
        kind = by_model[item]
        if kind in held:
            raise DomainPackError(
                f"{who}: snapshot: fields '{held[kind]}' and '{name}' of {model} both hold "
                f"record '{kind}'"
            )
        held[kind] = name
    for spec in records:
        if spec.kind not in held:
            raise DomainPackError(
                f"{who}: snapshot: no field of {model} is a list of {spec.model.__name__} "
                f"(record '{spec.kind}')"
            )
