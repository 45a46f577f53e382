"""Gym memberships, a calibrant domain pack for imported conversations only.

A gym chain's front-desk agent answers members by chat: it finds the member, explains their
plan, and cancels a membership when asked (the chain refunds the unused part of the month).
The chain records every conversation and snapshots its membership system before and after it;
there is no simulator. The pack declares the records and the roles of their fields, states the
one rule of the chain that calibrant's generic invariants do not (`invariants.py`) and tests
the checker on recorded conversations (`selftest.py`). It imports nothing of calibrant but
`calibrant.pack`; calibrant finds it by its entry point `memberships =
"calibrant_memberships:pack"` (group `calibrant.domains`)."""

from __future__ import annotations

from pathlib import Path

from calibrant.pack import (
    Bound,
    DomainPack,
    EffectSpec,
    ImportOnlyRuntime,
    MoneyField,
    PackRuntime,
    RecordSpec,
    SnapshotSpec,
)

from .records import Cancellation, Club, Member, Membership, Plan

__all__ = ["DATA", "RECORDS", "pack"]

DATA = Path(__file__).parent / "data"

RECORDS = (
    RecordSpec(
        kind="member",
        model=Member,
        id_field="member_id",
        tenant_field="club_id",
        protected_fields=("name", "email"),
        address_fields=("email",),
    ),
    # the plans are the chain's price list: shared reference data no club owns
    RecordSpec(
        kind="plan",
        model=Plan,
        id_field="plan_id",
        money_fields=(MoneyField("monthly_fee_minor_units", "currency"),),
        state_fields=("title",),
    ),
    RecordSpec(
        kind="membership",
        model=Membership,
        id_field="membership_id",
        tenant_field="club_id",
        money_fields=(MoneyField("paid_minor_units", "currency"),),
        version_field="version",
        state_fields=("status", "member_id", "plan_id"),
    ),
    RecordSpec(
        kind="cancellation",
        model=Cancellation,
        id_field="cancellation_id",
        tenant_field="club_id",
        money_fields=(MoneyField("refund_minor_units", currency_of="membership_id"),),
        operation_id_fields=("operation_id",),
        key_fields=("membership_id",),
        state_fields=("membership_id",),
    ),
)

EFFECTS = (
    EffectSpec(
        kind="cancellation",
        subject="membership_id",
        amount="refund_minor_units",
        committed_seq="committed_seq",
        bound=Bound(kind="membership", amount="paid_minor_units"),
        tools=("cancel_membership",),
    ),
)


def _runtime() -> PackRuntime:
    from .invariants import INVARIANTS
    from .selftest import PLAN

    return ImportOnlyRuntime("memberships", invariants=INVARIANTS, selftest=PLAN)


pack = DomainPack(
    name="memberships",
    title="Gym memberships (imported conversations)",
    version="0.1.0",
    description="A front-desk agent cancels members' memberships; checked from recordings.",
    records=RECORDS,
    rubrics=DATA / "rubrics",
    cases=DATA / "cases",
    snapshot=SnapshotSpec(model=Club, tenant_field="club_id", protected_fields=("name",)),
    effects=EFFECTS,
    runtime=_runtime,
)
