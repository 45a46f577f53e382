"""What a domain pack declares and the core reads: its records with the roles their fields play,
where its rubrics, cases and gold set live, its scripted reference agents and its fault points.

A pack is plain data, checked when it is built: every role names a real field of its record's
model, so a misspelt field fails once, in one line naming the pack, the record and the field,
instead of as a silent "no leak found" later."""

from __future__ import annotations

import re
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel

from ..contracts import CaseContract, Transcript
from ..contracts.forms import FileForm
from ..errors import CalibrantError
from .importing import ImportRules
from .phrasing import NEUTRAL, JudgePhrasing
from .runtime import PackRuntime

__all__ = [
    "ApprovalGate",
    "AuditSpec",
    "Bound",
    "CaseDraft",
    "CaseFocus",
    "Confirmation",
    "DomainPack",
    "DomainPackError",
    "EffectSpec",
    "GrantSpec",
    "MoneyField",
    "PublishedName",
    "RecordSpec",
    "SnapshotSpec",
    "WorkItem",
]

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
class Bound:
    """What bounds an effect's amount: the record its `subject` field names (of kind `kind`)
    and that record's money field `amount` (a charge's order and what was paid for it). All of
    a subject's effects together, earlier ones included, never exceed it."""

    kind: str
    amount: str


@dataclass(frozen=True)
class ApprovalGate:
    """An approval that gates an effect: records of kind `kind` whose `subject` field names the
    same record as the effect's `subject`, approving `amount` when `status` holds `approved`,
    decided at the logical time in `decided_seq` (by the principal in `decided_by`; None: the
    record does not say who, and an agent's decision cannot be told apart). An effect needs one
    when its subject's effects (earlier ones included) go above the threshold: the money field
    `threshold` of the pack's records of kind `threshold_kind` (the one the effect cites in
    its `EffectSpec.cites` field, else the strictest), or when the case requires it."""

    kind: str
    subject: str
    amount: str
    status: str
    decided_seq: str
    approved: str = "approved"
    decided_by: str | None = None
    threshold_kind: str | None = None
    threshold: str | None = None


@dataclass(frozen=True)
class EffectSpec:
    """A kind of record the agent's work commits and the business counts (a charge, a payout,
    a new booking): `kind` (a declared record), the field naming the record it acts on
    (`subject`: a charge's order_id), its amount (`amount`, a money field; None: it has none),
    the logical time it was committed (`committed_seq`), who committed it and by which tool
    call (`committed_by`, `call`; None: the record does not say) and the policy version it
    cites (`cites`). The rules that read it:

    - `bound`: its amounts never exceed another record's money (effects_within_bound);
    - `approval`: above a threshold, a person's approval comes first (approval_before_payment);
    - `policy`: a record of this kind is read before it is committed (policy_read_before_effect);
    - `tools`: the tools that commit it and `queries` the tools that look one up, both by the
      operation id in the argument `operation_argument`: after a tool's lost response the
      outcome is reconciled through them (unknown_outcome_handled); `committed_at` (its commit
      time) tells which grant was valid when it was committed (write_permission_respected).
    """

    kind: str
    subject: str
    committed_seq: str
    amount: str | None = None
    committed_by: str | None = None
    committed_at: str | None = None
    call: str | None = None
    cites: str | None = None
    bound: Bound | None = None
    approval: ApprovalGate | None = None
    policy: str | None = None
    tools: tuple[str, ...] = ()
    queries: tuple[str, ...] = ()
    operation_argument: str = "operation_id"


@dataclass(frozen=True)
class GrantSpec:
    """A grant of scopes to a principal within one tenant (a permission): records of kind
    `kind` naming who holds it (`principal`), its scopes (`scopes`, a list; a scope ending in
    ':write' lets its holder write; an effect's own is '<kind>:write'), when it expires
    (`expires_at`) and the logical time it was revoked (`revoked_seq`). Read by
    no_unauthorized_writes and write_permission_respected."""

    kind: str
    principal: str
    scopes: str
    expires_at: str | None = None
    revoked_seq: str | None = None


@dataclass(frozen=True)
class AuditSpec:
    """The service's audit log: records of kind `kind` naming who acted (`actor`), the tool
    call behind the change (`call`), what was done (`action`) and to which record (`record`).
    An agent's change with no logged call behind it was not authorized (no_unauthorized_writes)."""

    kind: str
    actor: str
    call: str
    action: str | None = None
    record: str | None = None


@dataclass(frozen=True)
class WorkItem:
    """The record the customer's request lives in (a support ticket): its state (`state`; the
    `open_states` are those in which a person can still act on it), the field naming the record
    the case is about (`subject`), who holds it (`assignee`, and `assignee_kind`: "person" or
    "agent"; an id starting with 'agent:' or the agent's own is an agent's) and whether an
    effect's outcome is recorded as unknown (`reconciliation` holding `uncertain`). Read by
    unknown_outcome_handled and write_permission_respected: what must be left open for a person
    when the agent cannot finish."""

    kind: str
    state: str
    open_states: tuple[str, ...]
    subject: str | None = None
    assignee: str | None = None
    assignee_kind: str | None = None
    reconciliation: str | None = None
    uncertain: str = "uncertain"


@dataclass(frozen=True)
class Confirmation:
    """A message that confirms an effect (of kind `effect`, an `EffectSpec` of the pack):
    notifications of kind `message` (their `order_id` names the effect's subject, their
    `amount_minor_units` the amount), or sentences of the agent's own text matching one of
    `claims` (regular expressions, case-insensitive). Either is true only when sent after the
    effect committed (confirmation_matches_committed_state). A notification also goes to the
    party who owns the subject: the subject record (of kind `subject`) names that party's
    record in its field `party` (of kind `party_kind`, whose address field is where the message
    belongs)."""

    effect: str
    message: str | None = None
    claims: tuple[str, ...] = ()
    subject: str | None = None
    party: str | None = None
    party_kind: str | None = None


@dataclass(frozen=True)
class PublishedName:
    """The name (and, optionally, the one-line summary) under which a pack publishes one of
    calibrant's generic invariants: its verdicts, reports and baselines name `invariant` as
    `name`, and a case's `invariants:` setting named `name` switches it off. A pack whose files
    named an invariant before it became generic keeps that name this way."""

    invariant: str
    name: str
    summary: str | None = None


@dataclass(frozen=True)
class CaseFocus:
    """What a case says about the record a trial is about, for the rules that read effects by
    role: the record's id (`subject`), whether the case requires a person's approval before any
    effect on it, the policy version it cites, its work item's id and the totals of the case's
    effects its acceptable outcomes allow (None: any). All empty: the case says nothing (a pack
    that declares no `case_focus`)."""

    subject: str | None = None
    approval_required: bool = False
    policy: str | None = None
    work_item: str | None = None
    allowed_totals: frozenset[int] | None = None


@dataclass(frozen=True)
class CaseDraft:
    """How a case is drafted from one of the pack's transcripts (`calibrant case
    from-transcript`), where the roles are not enough:

    - `fixture(t, redact)`: the drafted case's starting state, in the model of the pack's case
      fixtures: its transcript's own case's, or one read from the evaluator's 'before'
      snapshot; every text it copies from the transcript goes through `redact` (personal data
      -> stable placeholders); a ValueError, in one line, when the starting state cannot be
      read;
    - `lost`: the fault point a lost answer stands for when the log shows no fault event (a
      production log): (the call's outcome, its tool) -> fault point."""

    fixture: Callable[[Transcript, Callable[[str], str]], BaseModel]
    lost: Mapping[tuple[str, str], str] = field(default_factory=dict)


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


@dataclass(frozen=True)
class DomainPack:
    """A domain pack's declaration.

    `name` is what users' files name in their `domain` field (an id, e.g. "travel"); `title`,
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
    # --- the roles the core's generic invariants read (see docs/domains.md) ---
    effects: tuple[EffectSpec, ...] = ()
    confirmations: tuple[Confirmation, ...] = ()
    grants: GrantSpec | None = None
    audit: AuditSpec | None = None
    work_item: WorkItem | None = None
    message_cap: str | None = None
    """The field of its cases' outcome conditions (`case_outcome`, each acceptable outcome's
    `params`) that caps how many messages the receiver may accept for the acting tenant (None:
    no cap; read by notifications_within_contract, which a pack without one is not checked
    by)."""
    # --- the names under which the pack publishes calibrant's generic invariants ---
    published: tuple[PublishedName, ...] = ()
    form: FileForm | None = None
    """How the pack's files spell the generic shape (`calibrant.contracts.forms`; None: the
    generic spelling)."""
    case_focus: Callable[[CaseContract], CaseFocus] | None = None
    """What one of the pack's cases says about the record its trial is about (None: nothing)."""
    case_draft: CaseDraft | None = None
    """How a case is drafted from one of its transcripts (None: its cases are written by
    hand)."""
    imports: ImportRules = field(default_factory=ImportRules)
    """What `calibrant import` reads beyond the roles (`calibrant.domains.importing`)."""
    one_tenant: bool = False
    """The business has one tenant (a shop, a gym chain: its customers are each their own, told
    apart by a field of the pack's records): when the snapshots hold the acting tenant alone,
    the rules that compare it with the other tenants say `not_applicable`, with the reason,
    instead of `harness_error` (which says, for a business with several tenants, that the
    snapshots miss the others)."""
    not_names: tuple[str, ...] = ()
    """Words of the business never taken as a person's name in redaction (any case)."""

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
        _check_effects(who, self)
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
        _check_published(who, self)
        if not isinstance(self.not_names, tuple) or any(
            not isinstance(w, str) or len(w.split()) != 1 for w in self.not_names
        ):
            raise DomainPackError(f"{who}: not_names must be a tuple of single words")
        if self.form is not None:
            if not isinstance(self.form, FileForm):
                raise DomainPackError(f"{who}: form must be a calibrant.contracts.forms.FileForm")
            if self.form.domain != self.name:
                raise DomainPackError(
                    f"{who}: its form is domain '{self.form.domain}''s: name it '{self.name}'"
                )

    def published_name(self, invariant: str) -> PublishedName | None:
        """How the pack publishes a generic invariant (None: under its own name)."""
        return next((p for p in self.published if p.invariant == invariant), None)

    def effect(self, kind: str) -> EffectSpec | None:
        """The effect declared for records of this kind, or None."""
        return next((e for e in self.effects if e.kind == kind), None)

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


def _field(who: str, pack: DomainPack, kind: str | None, role: str, name: str | None) -> None:
    """Fail, in one line, unless `kind` is a declared record whose model has field `name`."""
    if name is None or kind is None:
        return
    try:
        spec = pack.record(kind)
    except KeyError:
        raise DomainPackError(
            f"{who}: {role} names record '{kind}', which the pack does not declare"
        ) from None
    fields = spec.model.model_fields
    if name not in fields:
        raise DomainPackError(
            f"{who}: record '{kind}': {role} field '{name}' is not a field of "
            f"{spec.model.__name__} (its fields: {', '.join(fields)})"
        )


def _kind(who: str, pack: DomainPack, kind: str, role: str) -> None:
    """Fail, in one line, unless `kind` is a declared record."""
    if kind not in {spec.kind for spec in pack.records}:
        raise DomainPackError(
            f"{who}: {role} names record '{kind}', which the pack does not declare"
        )


def _check_effects(who: str, pack: DomainPack) -> None:
    """Every effect and confirmation role names declared records and real fields."""
    for e in pack.effects:
        if not isinstance(e, EffectSpec):
            raise DomainPackError(f"{who}: effects must be EffectSpec, not {type(e).__name__}")
        for role, name in (
            ("effect subject", e.subject),
            ("effect committed_seq", e.committed_seq),
            ("effect amount", e.amount),
            ("effect committed_by", e.committed_by),
            ("effect committed_at", e.committed_at),
            ("effect call", e.call),
            ("effect cites", e.cites),
        ):
            _field(who, pack, e.kind, role, name)
        if e.bound is not None:
            _field(who, pack, e.bound.kind, "bound amount", e.bound.amount)
            if e.amount is None:
                raise DomainPackError(
                    f"{who}: record '{e.kind}': an effect with a bound needs its amount field"
                )
        if (g := e.approval) is not None:
            for role, name in (
                ("approval subject", g.subject),
                ("approval amount", g.amount),
                ("approval status", g.status),
                ("approval decided_seq", g.decided_seq),
                ("approval decided_by", g.decided_by),
            ):
                _field(who, pack, g.kind, role, name)
            if (g.threshold is None) != (g.threshold_kind is None):
                raise DomainPackError(
                    f"{who}: record '{e.kind}': an approval threshold needs both its record "
                    "kind and its field"
                )
            _field(who, pack, g.threshold_kind, "approval threshold", g.threshold)
            if e.amount is None:
                raise DomainPackError(
                    f"{who}: record '{e.kind}': an effect gated by approval needs its amount field"
                )
        if e.policy is not None:
            _kind(who, pack, e.policy, f"effect '{e.kind}': policy")
    if (gs := pack.grants) is not None:
        for role, name in (
            ("grant principal", gs.principal),
            ("grant scopes", gs.scopes),
            ("grant expires_at", gs.expires_at),
            ("grant revoked_seq", gs.revoked_seq),
        ):
            _field(who, pack, gs.kind, role, name)
    if (a := pack.audit) is not None:
        for role, name in (
            ("audit actor", a.actor),
            ("audit call", a.call),
            ("audit action", a.action),
            ("audit record", a.record),
        ):
            _field(who, pack, a.kind, role, name)
    if (w := pack.work_item) is not None:
        for role, name in (
            ("work item state", w.state),
            ("work item subject", w.subject),
            ("work item assignee", w.assignee),
            ("work item assignee_kind", w.assignee_kind),
            ("work item reconciliation", w.reconciliation),
        ):
            _field(who, pack, w.kind, role, name)
        if not w.open_states:
            raise DomainPackError(f"{who}: record '{w.kind}': a work item needs its open states")
    effects = {e.kind for e in pack.effects}
    for c in pack.confirmations:
        if not isinstance(c, Confirmation):
            raise DomainPackError(
                f"{who}: confirmations must be Confirmation, not {type(c).__name__}"
            )
        if c.effect not in effects:
            raise DomainPackError(
                f"{who}: a confirmation confirms '{c.effect}', which is no effect of the pack"
            )
        if c.message is None and not c.claims:
            raise DomainPackError(
                f"{who}: the confirmation of '{c.effect}' names neither a message kind nor claims"
            )
        for pattern in c.claims:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise DomainPackError(
                    f"{who}: the confirmation of '{c.effect}': claim {pattern!r} is not a "
                    f"regular expression ({exc})"
                ) from None
        if (c.party is None) != (c.party_kind is None) or (c.party and c.subject is None):
            raise DomainPackError(
                f"{who}: the confirmation of '{c.effect}': a party needs the subject record, "
                "the field naming the party and the party's kind"
            )
        _field(who, pack, c.subject, "confirmation party", c.party)
        if c.party_kind is not None:
            _kind(who, pack, c.party_kind, f"the confirmation of '{c.effect}': party")


def _check_published(who: str, pack: DomainPack) -> None:
    """The message cap names a field of the outcome conditions; each published name is an id,
    given once, for one invariant, on one line."""
    if pack.message_cap is not None:
        model = pack.case_outcome
        if model is None or pack.message_cap not in model.model_fields:
            where = "declares no case_outcome" if model is None else f"{model.__name__} has none"
            raise DomainPackError(
                f"{who}: message_cap '{pack.message_cap}' must be a field of the outcome "
                f"conditions (case_outcome): the pack {where}"
            )
    names: set[str] = set()
    generic: set[str] = set()
    for p in pack.published:
        if not isinstance(p, PublishedName):
            raise DomainPackError(f"{who}: published must be PublishedName, not {type(p).__name__}")
        for value in (p.invariant, p.name):
            if not isinstance(value, str) or not _ID.match(value):
                raise DomainPackError(f"{who}: published: {value!r} is not an invariant name")
        if p.name in names or p.invariant in generic:
            raise DomainPackError(
                f"{who}: published: '{p.invariant}' or the name '{p.name}' is given twice"
            )
        if p.summary is not None and (not p.summary.strip() or "\n" in p.summary):
            raise DomainPackError(f"{who}: published: the summary of '{p.name}' must be one line")
        names.add(p.name)
        generic.add(p.invariant)
