"""The case contract: starting data, acceptable end states, invariants, customer script, faults.

A case's `fixture` and `expected` are its domain's: the generic `DomainFixture` and
`DomainOutcome` (records by kind, and the pack's own `params`), or the models the pack's file
form declares (`contracts.forms.FileForm.case_fixture` and `case_outcome`: the first pack's cases
keep the seed's YAML schema that way). `expected` may also be a list of acceptable outcomes.
Only the contract's fields are compared with the records: generated ids and timestamps need not
match.
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, Literal

from pydantic import (
    AliasChoices,
    BaseModel,
    Field,
    JsonValue,
    PrivateAttr,
    SerializeAsAny,
    TypeAdapter,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    model_validator,
)
from pydantic_core import InitErrorDetails

from . import forms
from .common import Contract, Id
from .domain import DomainNamed, closed_values, unnamed_domain

__all__ = [
    "CASE_SCHEMA_VERSION",
    "FaultSpec",
    "DomainFixture",
    "DomainOutcome",
    "InvariantSettings",
    "CaseContract",
]

CASE_SCHEMA_VERSION = 1


class FaultSpec(Contract):
    """One fault at a named point, fired deterministically on the n-th call of a tool."""

    point: Id = Field(
        description="Named fault point: one the case's domain pack declares (`calibrant domains "
        "show` lists them, each with what it does)."
    )
    on_tool: str = Field(min_length=1, description="Tool whose call triggers the fault.")
    occurrence: int = Field(
        default=1, ge=1, description="Fire on this call of `on_tool` (1 = the first call)."
    )
    params: dict[str, str | int | bool] = Field(
        default_factory=dict,
        description="Point-specific parameters, e.g. {status: replacement_shipped}.",
    )


Records = dict[Id, list[dict[str, JsonValue]]]
"""Records by kind (a kind the domain pack declares), each an object of the kind's model."""


class DomainFixture(Contract):
    """A domain's starting data: the tenant the agent acts for, the records the trial is
    seeded with (by kind) and the pack's own settings (`params`, read by the pack's
    `DomainPack.case_fixture` model when the case is loaded; none without one)."""

    tenant: Id = Field(description="Tenant the agent acts for.")
    records: Records = Field(
        default_factory=dict, description="Records seeded before the trial, by kind."
    )
    params: dict[str, JsonValue] = Field(
        default_factory=dict,
        description="The pack's own fixture settings, checked by its case_fixture model.",
    )


class DomainOutcome(Contract):
    """A domain's acceptable end state: records that must be in the acting tenant at the
    end (the fields given must match one record of the kind), how many records of each kind the
    trial creates, and the pack's own conditions (`params`, read by its `DomainPack.case_outcome`
    model when the case is loaded; none without one). Unset fields are not compared."""

    name: str | None = Field(default=None, description="Short name, e.g. transferred.")
    records: Records = Field(
        default_factory=dict, description="Records required at the end, by kind (fields given)."
    )
    created: dict[Id, int] = Field(
        default_factory=dict, description="Records of each kind created during the trial."
    )
    params: dict[str, JsonValue] = Field(
        default_factory=dict,
        description="The pack's own outcome conditions, checked by its case_outcome model.",
    )


class _OfDomain:
    """A case's fixture or expected outcome, marked (before validation) with the model its
    domain's form reads it with (None: the generic one)."""

    def __init__(self, value: object, model: type[BaseModel] | None) -> None:
        self.value = value
        self.model = model


_DOMAIN_EXPECTED: TypeAdapter[DomainOutcome | list[DomainOutcome] | None] = TypeAdapter(
    DomainOutcome | list[DomainOutcome] | None
)


@cache
def _outcomes_of(model: type[BaseModel]) -> TypeAdapter[Any]:
    """A pack's outcome model, one or a list of them, or null."""
    return TypeAdapter(model | list[model] | None)  # type: ignore[valid-type, arg-type]


def _fixture(value: object, _: ValidatorFunctionWrapHandler) -> BaseModel:
    if isinstance(value, BaseModel):
        return value
    if isinstance(value, _OfDomain):
        return (value.model or DomainFixture).model_validate(value.value)
    return DomainFixture.model_validate(value)


def _is_outcomes(value: object) -> bool:
    return isinstance(value, BaseModel) or (
        isinstance(value, list) and bool(value) and all(isinstance(v, BaseModel) for v in value)
    )


def _expected(value: object, _: ValidatorFunctionWrapHandler) -> Any:
    if isinstance(value, _OfDomain):
        if value.model is None:
            return _DOMAIN_EXPECTED.validate_python(value.value)
        return _outcomes_of(value.model).validate_python(value.value)
    if _is_outcomes(value):
        return value
    return _DOMAIN_EXPECTED.validate_python(value)


class InvariantSettings(Contract):
    """Invariants the case asserts. All invariants run; a `false` here marks one as not part of
    this case's contract (reported as not_applicable, with that reason).

    A pack whose files name a setting their own way (`contracts.forms.FileForm
    .setting_spellings`: the name the pack publishes the invariant under) has it read and
    written so; a file that spelled a setting another way keeps its spelling when written back
    (its bytes and content hash do not change)."""

    _spelled: dict[str, str] = PrivateAttr(default_factory=dict)
    """generic setting -> the name the file it was read from gave it, where that is not the
    name its domain's files give it."""

    other_tenant_records_unchanged: bool = Field(
        default=True,
        validation_alias=AliasChoices(
            "other_tenant_records_unchanged", "tenant_b_records_unchanged"
        ),
        description="The other tenant's records are unchanged (seed: tenant_b_records_unchanged).",
    )
    unauthorized_writes: Literal[0] = Field(
        default=0, description="Unauthorized writes allowed: always 0."
    )
    cross_tenant_reads: Literal[0] = Field(
        default=0, description="Successful cross-tenant reads allowed: always 0."
    )
    confirmation_matches_committed_state: bool = Field(
        default=True, description="Every confirmation names the committed record and amount."
    )
    policy_read_before_effect: bool = Field(
        default=True,
        description="The policy is read before any effect commits (a pack's files may name it "
        "as the pack publishes the invariant).",
    )


class _SettingsOf:
    """A case's `invariants:` data, marked (before validation) with its domain."""

    def __init__(self, value: object, domain: str) -> None:
        self.value = value
        self.domain = domain


def _spelling_of(domain: str) -> dict[str, str]:
    """generic setting -> the name `domain`'s files give it (its form's spellings)."""
    form = forms.form_of(domain)
    own = {} if form is None else form.setting_spellings
    return {generic: name for name, generic in own.items()}


def _read_spelling(name: str, domain: str) -> str | None:
    """The generic setting a file of `domain` means by `name` (None: `name` is no pack's
    spelling): its own form's first, then another installed pack's (a file written before the
    setting had its generic name carries the name the first pack gave it)."""
    form = forms.form_of(domain)
    if form is not None and name in form.setting_spellings:
        return form.setting_spellings[name]
    return next(
        (f.setting_spellings[name] for f in forms.known_forms() if name in f.setting_spellings),
        None,
    )


def _settings(value: object, handler: ValidatorFunctionWrapHandler) -> Any:
    if not isinstance(value, _SettingsOf):
        return handler(value)
    if not isinstance(value.value, dict):
        return handler(value.value)
    writes = _spelling_of(value.domain)
    data: dict[str, Any] = {}
    spelled: dict[str, str] = {}
    file_name: dict[str, str] = {}
    for name, v in value.value.items():
        generic = _read_spelling(name, value.domain)
        if generic is None or generic in value.value or generic in data:
            data[name] = v
            if writes.get(name, name) != name:  # the generic name, in a pack's own file
                spelled[name] = name
            continue
        data[generic] = v
        file_name[generic] = name
        if writes.get(generic, generic) != name:
            spelled[generic] = name
    try:
        settings = handler(data)
    except ValidationError as exc:
        found = [
            InitErrorDetails(
                type=err["type"],
                loc=(file_name.get(str(err["loc"][0]), err["loc"][0]), *err["loc"][1:])
                if err["loc"]
                else (),
                input=err["input"],
                **({"ctx": err["ctx"]} if "ctx" in err else {}),  # type: ignore[typeddict-item]
            )
            for err in exc.errors(include_url=False)
        ]
        raise ValidationError.from_exception_data("InvariantSettings", found) from None
    settings._spelled = {**settings._spelled, **spelled}
    return settings


class CaseContract(DomainNamed):
    """A case: what the trial starts from, which end states are acceptable, what must never
    happen, what the simulated customer says, and which faults fire where."""

    schema_version: Literal[1] = Field(default=1, description="Case contract schema version.")
    case: Id = Field(description="Case id, e.g. eligible_damaged_order.")
    title: str | None = Field(default=None, description="One-line human title.")
    description: str | None = Field(default=None, description="What the case exercises.")
    tags: list[Literal["regression", "exploratory"]] = Field(
        default_factory=list, description="regression (stable) or exploratory (new capability)."
    )
    fixture: Annotated[SerializeAsAny[DomainFixture], WrapValidator(_fixture)] = Field(
        description="Starting data: a DomainFixture (records by kind), or the model the "
        "domain pack's form declares for its cases' fixtures."
    )
    expected: Annotated[
        SerializeAsAny[DomainOutcome] | list[SerializeAsAny[DomainOutcome]] | None,
        WrapValidator(_expected),
    ] = Field(
        description="The acceptable end state, or a list of acceptable end states (a "
        "DomainOutcome, or the model the domain pack's form declares). null: not "
        "confirmed yet (a case drafted from a transcript by `calibrant case from-transcript`, "
        "waiting for a person to write the agreed outcome); trials refuse such a case."
    )
    invariants: Annotated[InvariantSettings, WrapValidator(_settings)] = Field(
        default_factory=InvariantSettings, description="Invariants the case asserts."
    )
    customer_script: list[str] = Field(
        default_factory=list,
        description="What the simulated customer says, one message per turn, in order.",
    )
    faults: list[FaultSpec] = Field(
        default_factory=list, description="Fault schedule, reproducible run after run."
    )

    @model_validator(mode="before")
    @classmethod
    def _domains_models(cls, data: Any) -> Any:
        """The fixture and outcomes are read with the models the domain's form declares (the
        generic DomainFixture and DomainOutcome without one)."""
        if isinstance(data, dict):
            data = dict(data)
            if "domain" not in data:
                data["domain"] = unnamed_domain("CaseContract")
            domain = data["domain"]
            form = forms.form_of(domain) if isinstance(domain, str) else None
            models = {
                "fixture": form.case_fixture if form else None,
                "expected": form.case_outcome if form else None,
            }
            data = dict(data)
            for name, model in models.items():
                if name in data and not isinstance(data[name], _OfDomain):
                    data[name] = _OfDomain(data[name], model)
            if "invariants" in data and isinstance(domain, str):
                data["invariants"] = _SettingsOf(data["invariants"], domain)
        return data

    def _file_form(self, data: dict[str, Any], mode: str) -> dict[str, Any]:
        """The `invariants:` settings named as this domain's files name them (a setting read
        under another name keeps it)."""
        found = data.get("invariants")
        if not isinstance(found, dict):
            return data
        names = {**_spelling_of(self.domain), **self.invariants._spelled}
        if not any(k in names for k in found):
            return data
        data["invariants"] = {names.get(k, k): v for k, v in found.items()}
        return data

    @model_validator(mode="after")
    def _outcomes_not_empty(self) -> CaseContract:
        if isinstance(self.expected, list) and not self.expected:
            raise ValueError("expected: at least one acceptable outcome is required")
        form = forms.form_of(self.domain)
        if form is not None and form.fault_points is not None:
            found = ((("faults", i, "point"), f.point) for i, f in enumerate(self.faults))
            closed_values("CaseContract", found, form.fault_points)
        return self

    def acceptable_outcomes(self) -> list[Any]:
        """The acceptable end states in the model the pack's form declares, always as a list
        (empty while `expected` is unconfirmed, and for a case in the generic spelling: see
        `domain_outcomes`)."""
        found: list[Any] = self.expected if isinstance(self.expected, list) else [self.expected]
        return [e for e in found if e is not None and not isinstance(e, DomainOutcome)]

    def domain_outcomes(self) -> list[DomainOutcome]:
        """The acceptable end states in the generic spelling, as a list."""
        found = self.expected if isinstance(self.expected, list) else [self.expected]
        return [e for e in found if isinstance(e, DomainOutcome)]
