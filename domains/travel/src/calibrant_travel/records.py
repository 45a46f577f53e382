"""The travel pack's records, as the evaluator reads them from the system of record.

A travel agency (a tenant) rebooks its travellers: a traveller's booking on one flight is
cancelled and replaced by a booking on another, and the fare difference is charged. Seats are a
counted quantity (`Flight.seats_left`), a seat hold expires, charges are money in minor units
with their currency, and every versioned record names its version for optimistic concurrency."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from calibrant.contracts.common import Contract, Id, MinorUnits

__all__ = [
    "Traveller",
    "Flight",
    "Booking",
    "SeatHold",
    "Charge",
    "Approval",
    "Permission",
    "Policy",
    "AuditEvent",
    "TravelSnapshot",
]

Currency = str


class Traveller(Contract):
    """A traveller of one agency: name, email (where notifications go) and a free-text note
    the traveller or a colleague wrote (customer data: never instructions)."""

    traveller_id: Id
    tenant_id: Id
    name: str
    email: str
    note: str = ""


class Flight(Contract):
    """A flight the agency sells: seats left (a quantity, never money) and its current fare."""

    flight_id: Id
    tenant_id: Id
    origin: str
    destination: str
    departs_at: datetime
    seats_left: int = Field(ge=0)
    fare_minor_units: MinorUnits
    currency: Currency
    version: int = Field(ge=1)


class Booking(Contract):
    """A traveller's seat on a flight. `booking_id` is the booking reference the traveller
    quotes. A rebooking cancels it and creates a booking that `replaces` it; a compensation
    (`reinstated`) puts a cancelled booking back."""

    booking_id: Id
    tenant_id: Id
    traveller_id: Id
    flight_id: Id
    status: Literal["active", "cancelled"]
    fare_minor_units: MinorUnits
    currency: Currency
    version: int = Field(ge=1)
    replaces: Id | None = None
    hold_id: Id | None = None
    operation_id: Id | None = None
    created_seq: int = 0


class SeatHold(Contract):
    """A seat held on a flight for a booking being changed, until `expires_at`."""

    hold_id: Id
    tenant_id: Id
    flight_id: Id
    booking_id: Id
    seats: int = Field(ge=1)
    status: Literal["held", "used", "released"]
    expires_at: datetime
    used_at: datetime | None = None
    operation_id: Id


class Charge(Contract):
    """A fare difference charged to the traveller, idempotent by `operation_id`; one per
    rebooked booking (its business key: the booking it charges for)."""

    charge_id: Id
    tenant_id: Id
    booking_id: Id
    operation_id: Id
    amount_minor_units: MinorUnits
    currency: Currency
    approval_id: Id | None = None
    committed_seq: int


class Approval(Contract):
    """A supervisor's approval of a charge above the policy's threshold."""

    approval_id: Id
    tenant_id: Id
    booking_id: Id
    amount_minor_units: MinorUnits
    currency: Currency
    status: Literal["pending", "approved", "rejected"]
    requested_seq: int
    decided_seq: int | None = None


class Permission(Contract):
    """A grant: scopes a principal holds in the agency, until it expires or is revoked."""

    permission_id: Id
    tenant_id: Id
    principal: Id
    scopes: list[str]
    expires_at: datetime | None = None
    revoked_seq: int | None = None


class Policy(Contract):
    """The agency's change policy: charges above the threshold need an approval; a hold lasts
    `hold_minutes`."""

    policy_id: Id
    tenant_id: Id
    approval_threshold_minor_units: MinorUnits
    currency: Currency
    hold_seconds: int = Field(ge=1)
    fee_waivers_allowed: bool = False


class AuditEvent(Contract):
    """One line of the service's audit log."""

    event_id: Id
    tenant_id: Id
    seq: int
    actor: str
    action: str
    record_kind: str
    record_id: str
    operation_id: str | None = None
    version_after: int | None = None


class TravelSnapshot(Contract):
    """One agency's records at one instant, read by an evaluator identity."""

    tenant_id: Id
    name: str
    travellers: list[Traveller] = Field(default_factory=list)
    flights: list[Flight] = Field(default_factory=list)
    bookings: list[Booking] = Field(default_factory=list)
    holds: list[SeatHold] = Field(default_factory=list)
    charges: list[Charge] = Field(default_factory=list)
    approvals: list[Approval] = Field(default_factory=list)
    permissions: list[Permission] = Field(default_factory=list)
    policies: list[Policy] = Field(default_factory=list)
    audit: list[AuditEvent] = Field(default_factory=list)
