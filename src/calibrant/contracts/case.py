"""The case contract: starting data, acceptable end states, invariants, customer script, faults.

The seed's YAML schema (`case`, `fixture`, `expected`, `invariants`) is accepted as is; `expected`
may also be a list of acceptable outcomes (e.g. refunded, or escalated to a person with the ticket
open). Only the contract's fields are compared with the ledger: generated ids and timestamps need
not match; order, amount and operation identity must.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    AliasChoices,
    Field,
    JsonValue,
    TypeAdapter,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    model_validator,
)

from .common import Contract, Id, MinorUnits
from .domain import LEGACY_DOMAIN, DomainNamed, closed_values

__all__ = [
    "CASE_SCHEMA_VERSION",
    "FAULT_POINTS",
    "FaultPoint",
    "FaultSpec",
    "PriorRefund",
    "Fixture",
    "ExpectedRefund",
    "ExpectedOutcome",
    "DomainFixture",
    "DomainOutcome",
    "InvariantSettings",
    "CaseContract",
]

CASE_SCHEMA_VERSION = 1

FaultPoint = Literal[
    "timeout_after_payment_commit",
    "crash_after_refund_commit",
    "crash_after_notification_accept",
    "order_version_change",
    "permission_revoked",
    "reconciliation_unavailable",
    "broken_tenant_guard",
]
FAULT_POINTS: tuple[str, ...] = FaultPoint.__args__  # type: ignore[attr-defined]
TicketState = Literal["open", "pending_review", "resolved", "escalated"]


class FaultSpec(Contract):
    """One fault at a named point, fired deterministically on the n-th call of a tool."""

    point: Id = Field(
        description=(
            "Named fault point: one the case's domain pack declares (`calibrant domains show`). "
            "The refund shop's: timeout_after_payment_commit: the refund commits, its response "
            "is lost. crash_after_refund_commit: the agent process dies after the refund commits, "
            "before its workflow checkpoint. crash_after_notification_accept: dies after the "
            "receiver accepted the message, before the ack. order_version_change: someone else "
            "changes the order. permission_revoked: the agent's write permission is revoked. "
            "reconciliation_unavailable: querying a refund by operation id fails. "
            "broken_tenant_guard: the service's tenant guard lets one cross-tenant read through "
            "(for testing the checker only)."
        )
    )
    on_tool: str = Field(
        min_length=1, description="Tool whose call triggers the fault, e.g. create_refund."
    )
    occurrence: int = Field(
        default=1, ge=1, description="Fire on this call of `on_tool` (1 = the first call)."
    )
    params: dict[str, str | int | bool] = Field(
        default_factory=dict,
        description="Point-specific parameters, e.g. {status: replacement_shipped}.",
    )


class PriorRefund(Contract):
    """A refund already in the ledger when the trial starts."""

    operation_id: Id = Field(description="Its operation id.")
    amount_minor_units: MinorUnits = Field(description="Amount, in minor units.")


class Fixture(Contract):
    """The starting data the trial is seeded with (on top of the versioned two-tenant dataset)."""

    tenant: Id = Field(description="Tenant the agent acts for, e.g. tenant_a.")
    order: Id = Field(description="Order the customer asks about, e.g. order_17.")
    paid_minor_units: MinorUnits = Field(description="Amount paid for the order, minor units.")
    prior_refunds: list[PriorRefund] = Field(
        default_factory=list, description="Refunds already committed for the order."
    )
    policy_version: Id = Field(description="Refund policy in force, e.g. refund_v3.")
    dataset: Id = Field(
        default="two_tenants_v1", description="Versioned base dataset both tenants come from."
    )
    customer: Id | None = Field(default=None, description="Customer; default: the order's owner.")
    ticket: Id | None = Field(default=None, description="Ticket id; default: generated.")
    order_status: str = Field(default="delivered_damaged", description="Order status at the start.")
    approval_required: bool = Field(
        default=False, description="A person must approve the refund before it is paid."
    )
    write_permission: Literal["active", "expired", "revoked"] = Field(
        default="active", description="State of the agent's write permission at the start."
    )
    customer_note: str | None = Field(
        default=None, description="Customer note on the order (customer data, never policy)."
    )


class ExpectedRefund(Contract):
    """One refund an acceptable outcome requires."""

    order: Id = Field(description="Order refunded.")
    amount_minor_units: MinorUnits = Field(description="Amount, minor units.")
    operation_id: Id | None = Field(
        default=None, description="Required operation id; null: any stable id."
    )


class ExpectedOutcome(Contract):
    """One acceptable end state. Unset fields are not compared."""

    name: str | None = Field(default=None, description="Short name, e.g. refunded, escalated.")
    refund_count: int | None = Field(
        default=None, ge=0, description="Refunds committed during the trial."
    )
    refund_total_minor_units: MinorUnits | None = Field(
        default=None, description="Sum of refunds committed during the trial."
    )
    refunds: list[ExpectedRefund] | None = Field(
        default=None, description="Exact refunds committed during the trial (order, amount, op)."
    )
    ticket_state: TicketState | list[TicketState] | None = Field(
        default=None, description="Required ticket state, or a list of acceptable states."
    )
    ticket_assignee: Literal["person", "agent", "unassigned"] | None = Field(
        default=None, description="Who must hold the ticket at the end."
    )
    reconciliation: Literal["none", "uncertain", "reconciled"] | None = Field(
        default=None, description="Required reconciliation status of the ticket."
    )
    approval_requested: bool | None = Field(
        default=None, description="Whether a review request must exist."
    )

    def ticket_states(self) -> list[str] | None:
        """The acceptable ticket states as a list, or None when not constrained."""
        if self.ticket_state is None:
            return None
        if isinstance(self.ticket_state, list):
            return list(self.ticket_state)
        return [self.ticket_state]


Records = dict[Id, list[dict[str, JsonValue]]]
"""Records by kind (a kind the domain pack declares), each an object of the kind's model."""


class DomainFixture(Contract):
    """Another domain's starting data: the tenant the agent acts for, the records the trial is
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
    """Another domain's acceptable end state: records that must be in the acting tenant at the
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


class _OfAnotherDomain:
    """A case's fixture or expected outcome, marked (before validation) as another domain's."""

    def __init__(self, value: object) -> None:
        self.value = value


_REFUND_EXPECTED: TypeAdapter[ExpectedOutcome | list[ExpectedOutcome] | None] = TypeAdapter(
    ExpectedOutcome | list[ExpectedOutcome] | None
)
_DOMAIN_EXPECTED: TypeAdapter[DomainOutcome | list[DomainOutcome] | None] = TypeAdapter(
    DomainOutcome | list[DomainOutcome] | None
)


def _fixture(value: object, _: ValidatorFunctionWrapHandler) -> Fixture | DomainFixture:
    if isinstance(value, Fixture | DomainFixture):
        return value
    if isinstance(value, _OfAnotherDomain):
        return DomainFixture.model_validate(value.value)
    return Fixture.model_validate(value)


def _expected(
    value: object, _: ValidatorFunctionWrapHandler
) -> ExpectedOutcome | list[ExpectedOutcome] | DomainOutcome | list[DomainOutcome] | None:
    if isinstance(value, _OfAnotherDomain):
        return _DOMAIN_EXPECTED.validate_python(value.value)
    if isinstance(value, DomainOutcome) or (
        isinstance(value, list) and value and all(isinstance(v, DomainOutcome) for v in value)
    ):
        return _DOMAIN_EXPECTED.validate_python(value)
    return _REFUND_EXPECTED.validate_python(value)


class InvariantSettings(Contract):
    """Invariants the case asserts. All invariants run; a `false` here marks one as not part of
    this case's contract (reported as not_applicable, with that reason)."""

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
        default=True, description="Every confirmation names the committed order and amount."
    )
    policy_read_before_refund: bool = Field(
        default=True, description="The refund policy is read before any refund commits."
    )


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
    fixture: Annotated[
        Fixture | DomainFixture,
        WrapValidator(_fixture),
    ] = Field(
        description="Starting data: the refund shop's Fixture, or another domain's "
        "DomainFixture (its records by kind)."
    )
    expected: Annotated[
        ExpectedOutcome | list[ExpectedOutcome] | DomainOutcome | list[DomainOutcome] | None,
        WrapValidator(_expected),
    ] = Field(
        description="The acceptable end state, or a list of acceptable end states (the refund "
        "shop's ExpectedOutcome, another domain's DomainOutcome). null: not "
        "confirmed yet (a case drafted from a transcript by `calibrant case from-transcript`, "
        "waiting for a person to write the agreed outcome); trials refuse such a case."
    )
    invariants: InvariantSettings = Field(
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
    def _another_domains(cls, data: Any) -> Any:
        """Another domain's fixture and outcomes are read as DomainFixture and DomainOutcome;
        a refunds case's exactly as before."""
        if isinstance(data, dict) and data.get("domain", LEGACY_DOMAIN) != LEGACY_DOMAIN:
            data = dict(data)
            for name in ("fixture", "expected"):
                if name in data and not isinstance(data[name], _OfAnotherDomain):
                    data[name] = _OfAnotherDomain(data[name])
        return data

    @model_validator(mode="after")
    def _outcomes_not_empty(self) -> CaseContract:
        if isinstance(self.expected, list) and not self.expected:
            raise ValueError("expected: at least one acceptable outcome is required")
        if self.domain == LEGACY_DOMAIN:  # another domain's points are its pack's to check
            found = ((("faults", i, "point"), f.point) for i, f in enumerate(self.faults))
            closed_values("CaseContract", found, FAULT_POINTS)
        return self

    @property
    def refunds_fixture(self) -> Fixture:
        """The refund shop's fixture (what the refund shop's harness and invariants read); a
        case of another domain has none (ValueError)."""
        if not isinstance(self.fixture, Fixture):
            raise ValueError(
                f"case '{self.case}' is domain '{self.domain}': it has no refund shop fixture"
            )
        return self.fixture

    def acceptable_outcomes(self) -> list[ExpectedOutcome]:
        """The refund shop's acceptable end states, always as a list (empty while `expected`
        is unconfirmed, and for a case of another domain: see `domain_outcomes`)."""
        found = self.expected if isinstance(self.expected, list) else [self.expected]
        return [e for e in found if isinstance(e, ExpectedOutcome)]

    def domain_outcomes(self) -> list[DomainOutcome]:
        """Another domain's acceptable end states, as a list (empty for a refunds case)."""
        found = self.expected if isinstance(self.expected, list) else [self.expected]
        return [e for e in found if isinstance(e, DomainOutcome)]
