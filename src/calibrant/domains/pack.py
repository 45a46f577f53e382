"""What a domain pack declares and the core reads: its records with the roles their fields play,
where its rubrics, cases and gold set live, its scripted reference agents and its fault points.

A pack is plain data, checked when it is built: every role names a real field of its record's
model, so a misspelt field fails once, in one line naming the pack, the record and the field,
instead of as a silent "no leak found" later.

The roles themselves are declared by kind (`roles`: records and snapshots; `effects`: what the
generic invariants read; `cases`: what a pack says about its cases) and re-exported here."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel

from ..contracts import CaseContract
from ..contracts.forms import FileForm
from .cases import CaseDraft, CaseFocus
from .effects import (
    ApprovalGate,
    AuditSpec,
    Bound,
    Confirmation,
    EffectSpec,
    GrantSpec,
    PublishedName,
    WorkItem,
)
from .importing import ImportRules
from .phrasing import NEUTRAL, JudgePhrasing
from .roles import (
    _ID,
    DomainPackError,
    MoneyField,
    RecordSpec,
    SnapshotSpec,
    _check_record,
    _check_snapshot,
)
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
