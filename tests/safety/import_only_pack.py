"""A domain pack with no simulator, as a user writes one for traces imported from production:
a utility's billing desk whose agent credits customers' invoices. Records and roles only: no
runtime, no cases, no gold set (tests/safety/test_import_only_pack.py installs it by entry
point and checks its transcripts with calibrant's generic invariants)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from calibrant.domains import (
    ApprovalGate,
    AuditSpec,
    Bound,
    Confirmation,
    DomainPack,
    EffectSpec,
    GrantSpec,
    MoneyField,
    RecordSpec,
    SnapshotSpec,
    WorkItem,
)

__all__ = ["pack"]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Account(_Record):
    account_id: str
    tenant_id: str
    holder: str
    email: str


class Invoice(_Record):
    invoice_id: str
    tenant_id: str
    account_id: str
    billed_minor_units: int
    currency: str
    remark: str | None = None


class Credit(_Record):
    credit_id: str
    tenant_id: str
    invoice_id: str
    operation_id: str
    amount_minor_units: int
    booked_seq: int
    booked_by: str
    call_id: str | None = None


class SignOff(_Record):
    signoff_id: str
    tenant_id: str
    invoice_id: str
    amount_minor_units: int
    state: Literal["pending", "granted", "refused"]
    decided_at_seq: int | None = None
    decided_by: str | None = None


class Rulebook(_Record):
    rulebook_id: str
    tenant_id: str
    signoff_above_minor_units: int
    currency: str


class Grant(_Record):
    grant_id: str
    tenant_id: str
    holder: str
    scopes: list[str]
    valid_until: datetime | None = None
    withdrawn_seq: int | None = None


class Case(_Record):
    case_id: str
    tenant_id: str
    invoice_id: str
    status: Literal["open", "waiting", "closed"]
    owner: str | None = None
    outcome_known: Literal["yes", "unknown"] = "yes"


class Log(_Record):
    log_id: str
    tenant_id: str
    who: str
    via_call: str | None = None
    what: str
    target: str


class Desk(_Record):
    tenant_id: str
    name: str
    accounts: list[Account] = Field(default_factory=list)
    invoices: list[Invoice] = Field(default_factory=list)
    credits: list[Credit] = Field(default_factory=list)
    signoffs: list[SignOff] = Field(default_factory=list)
    rulebooks: list[Rulebook] = Field(default_factory=list)
    grants: list[Grant] = Field(default_factory=list)
    cases: list[Case] = Field(default_factory=list)
    log: list[Log] = Field(default_factory=list)


RECORDS = (
    RecordSpec(
        kind="account",
        model=Account,
        id_field="account_id",
        tenant_field="tenant_id",
        protected_fields=("holder", "email"),
        name_fields=("holder",),
        address_fields=("email",),
    ),
    RecordSpec(
        kind="invoice",
        model=Invoice,
        id_field="invoice_id",
        tenant_field="tenant_id",
        protected_fields=("invoice_id", "billed_minor_units"),
        money_fields=(MoneyField("billed_minor_units", "currency"),),
        customer_text_fields=("remark",),
    ),
    RecordSpec(
        kind="credit",
        model=Credit,
        id_field="credit_id",
        tenant_field="tenant_id",
        money_fields=(MoneyField("amount_minor_units", currency_of="invoice_id"),),
        operation_id_fields=("operation_id",),
    ),
    RecordSpec(
        kind="signoff",
        model=SignOff,
        id_field="signoff_id",
        tenant_field="tenant_id",
        money_fields=(MoneyField("amount_minor_units", currency_of="invoice_id"),),
    ),
    RecordSpec(
        kind="rulebook",
        model=Rulebook,
        id_field="rulebook_id",
        tenant_field="tenant_id",
        money_fields=(MoneyField("signoff_above_minor_units", "currency"),),
    ),
    RecordSpec(kind="grant", model=Grant, id_field="grant_id", tenant_field="tenant_id"),
    RecordSpec(kind="case", model=Case, id_field="case_id", tenant_field="tenant_id"),
    RecordSpec(kind="log", model=Log, id_field="log_id", tenant_field="tenant_id"),
)


def pack() -> DomainPack:
    """The billing desk: records and the roles the generic invariants read, nothing else."""
    return DomainPack(
        name="billing-desk",
        title="Billing desk (imported traces)",
        version="0.1",
        description="Credits on invoices, from production traces; no simulator.",
        records=RECORDS,
        rubrics=Path("/nonexistent/rubrics"),
        cases=Path("/nonexistent/cases"),
        snapshot=SnapshotSpec(Desk, tenant_field="tenant_id", protected_fields=("name",)),
        effects=(
            EffectSpec(
                kind="credit",
                subject="invoice_id",
                committed_seq="booked_seq",
                amount="amount_minor_units",
                committed_by="booked_by",
                call="call_id",
                bound=Bound(kind="invoice", amount="billed_minor_units"),
                approval=ApprovalGate(
                    kind="signoff",
                    subject="invoice_id",
                    amount="amount_minor_units",
                    status="state",
                    approved="granted",
                    decided_seq="decided_at_seq",
                    decided_by="decided_by",
                    threshold_kind="rulebook",
                    threshold="signoff_above_minor_units",
                ),
                policy="rulebook",
                tools=("issue_credit",),
                queries=("find_credit",),
            ),
        ),
        confirmations=(
            Confirmation(
                effect="credit",
                message="credit_notice",
                subject="invoice",
                party="account_id",
                party_kind="account",
            ),
        ),
        grants=GrantSpec(
            kind="grant",
            principal="holder",
            scopes="scopes",
            expires_at="valid_until",
            revoked_seq="withdrawn_seq",
        ),
        audit=AuditSpec(kind="log", actor="who", call="via_call", action="what", record="target"),
        work_item=WorkItem(
            kind="case",
            state="status",
            open_states=("open", "waiting"),
            subject="invoice_id",
            assignee="owner",
            reconciliation="outcome_known",
            uncertain="unknown",
        ),
    )
