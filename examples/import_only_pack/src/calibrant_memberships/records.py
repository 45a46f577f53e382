"""The gym chain's records as its membership system stores them, and one club's snapshot."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

__all__ = ["Cancellation", "Club", "Member", "Membership", "Plan"]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Member(_Record):
    member_id: str
    club_id: str
    name: str
    email: str


class Plan(_Record):
    """A plan of the chain's price list: every club sells it; no club owns it."""

    plan_id: str
    title: str
    monthly_fee_minor_units: int
    currency: str


class Membership(_Record):
    membership_id: str
    club_id: str
    member_id: str
    plan_id: str
    status: Literal["active", "paused", "lapsed", "cancelled"]
    paid_minor_units: int
    currency: str
    version: int


class Cancellation(_Record):
    """A membership cancelled by the agent, with the unused part of the month refunded."""

    cancellation_id: str
    club_id: str
    membership_id: str
    refund_minor_units: int
    operation_id: str
    committed_seq: int


class Club(_Record):
    """One club's records: its members, the chain's plans, memberships and cancellations."""

    club_id: str
    name: str
    members: list[Member]
    plans: list[Plan]
    memberships: list[Membership]
    cancellations: list[Cancellation]
