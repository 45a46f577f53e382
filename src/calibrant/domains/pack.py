"""What a domain pack declares and the core reads: its records with the roles their fields play,
where its rubrics, cases and gold set live, its scripted reference agents and its fault points.

A pack is plain data, checked when it is built: every role names a real field of its record's
model, so a misspelt field fails once, in one line naming the pack, the record and the field,
instead of as a silent "no leak found" later."""

from __future__ import annotations

import re
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel

from ..errors import CalibrantError
from .phrasing import NEUTRAL, JudgePhrasing
from .runtime import PackRuntime

__all__ = ["DomainPackError", "MoneyField", "RecordSpec", "SnapshotSpec", "DomainPack"]

_ID = re.compile(r"^[A-Za-z0-9_.:\-/@+]{1,200}$")  # calibrant.contracts.common.Id


class DomainPackError(CalibrantError):
    """A pack's declaration is wrong (a role naming no field, a bad name, two records of one
    kind). The message names the pack and what is wrong, in one line."""


@dataclass(frozen=True)
class MoneyField:
    """An amount of money on a record: `amount` holds integer minor units; `currency` names
    the field holding its ISO 4217 code, or None when the amount is in the currency of the
    record it refers to (a refund is in its order's currency): `currency_of` then names the
    field holding that record's id (a refund's `order_id`)."""

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
    pydantic model of one tenant's snapshot (the refund shop's `TenantSnapshot`), `tenant_field`
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


@dataclass(frozen=True)
class DomainPack:
    """A domain pack's declaration.

    `name` is what users' files name in their `domain` field (an id, e.g. "refunds"); `title`,
    `version` and `description` (one line) are shown by `calibrant domains list`. `rubrics` and
    `cases` are folders of YAML files, `gold` a gold set folder (manifest.yaml, transcripts/,
    labels/) or None; a path that does not exist is shown as missing, not an error (a pack
    installed without its data). `correct_agent` and `faulty_agents` name the scripted reference
    agents (e.g. "scripted:correct"); `fault_points` the named points where a trial's faults
    fire. `snapshot` says how the evaluator's snapshots hold the records (None: the pack's
    snapshots cannot be read yet, and the invariants that read records by role say so).
    `case_fixture` and `case_outcome` are the pydantic models of the pack's own settings in its
    cases' `fixture.params` and each outcome's `params` (None: its cases take none; a case's
    fixture and outcomes are then records by kind only). `runtime` builds what runs the
    pack's domain: its trials, the tools served to an external agent and its own invariants
    (`calibrant.domains.runtime`; None: the pack's transcripts can be checked, judged and
    calibrated, but calibrant cannot run its trials)."""

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
    snapshot: SnapshotSpec | None = None
    case_fixture: type[BaseModel] | None = None
    case_outcome: type[BaseModel] | None = None
    runtime: Callable[[], PackRuntime] | None = None
    # -- what the pack declares for the judge (calibrant.domains.phrasing; docs/domains.md) --
    judge: JudgePhrasing = NEUTRAL
    """The words of the judge's prompt, its evidence and the rater's guide, and the pack's own
    evidence builders where the roles are not enough (NEUTRAL: neutral words, evidence by
    role)."""
    label_priors: Path | None = None
    """A folder of label priors fitted for the pack's rubrics, one `<rubric content hash>.json`
    each: the embedded judge's default for a rubric of this domain rebalances by the one fitted
    on it (`calibrant judges fit-prior` writes them; None: the pack ships none)."""

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
        if self.snapshot is not None:
            _check_snapshot(who, self.snapshot, self.records)
        for attr in ("case_fixture", "case_outcome"):
            model = getattr(self, attr)
            if model is not None and not (isinstance(model, type) and issubclass(model, BaseModel)):
                raise DomainPackError(f"{who}: {attr} must be a pydantic model class")
        if self.runtime is not None and not callable(self.runtime):
            raise DomainPackError(f"{who}: runtime must be a callable that returns the runtime")
        for attr in ("rubrics", "cases", "gold"):
            value = getattr(self, attr)
            if value is not None and not isinstance(value, Path):
                raise DomainPackError(f"{who}: {attr} must be a pathlib.Path")
        _check_judge(who, self)

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


def _check_judge(who: str, pack: DomainPack) -> None:
    """What the pack declares for the judge: a JudgePhrasing, a folder path for its priors."""
    if not isinstance(pack.judge, JudgePhrasing):
        raise DomainPackError(f"{who}: judge must be a calibrant.domains.JudgePhrasing")
    problem = pack.judge.problem()
    if problem is not None:
        raise DomainPackError(f"{who}: judge: {problem}")
    kinds = {spec.kind for spec in pack.records}
    for kind, _ in pack.judge.kinds:
        if kind not in kinds:
            raise DomainPackError(f"{who}: judge: kinds: '{kind}' is not a record kind of the pack")
    fields = {f for spec in pack.records for f in spec.model.model_fields}
    for name, _ in pack.judge.fields:
        if name not in fields and name != "version":
            raise DomainPackError(f"{who}: judge: fields: '{name}' is no field of a record")
    if pack.label_priors is not None and not isinstance(pack.label_priors, Path):
        raise DomainPackError(f"{who}: label_priors must be a pathlib.Path")
