"""Domain packs written to a folder as a pip install would leave them: a module and a dist-info
declaring its `calibrant.domains` entry point. The tours pack has records of its own; TOURS
declares no snapshot, TOURS_WITH_SNAPSHOT (a tour operator's tourists and bookings) does."""

from __future__ import annotations

from pathlib import Path

from tests.support.domains import write_distribution

__all__ = ["TOURS", "TOURS_WITH_SNAPSHOT", "write_pack"]

TOURS = """
from pathlib import Path

from pydantic import BaseModel

from calibrant.domains import DomainPack, MoneyField, RecordSpec

HERE = Path(__file__).parent


class Booking(BaseModel):
    booking_id: str
    tenant_id: str
    tourist: str
    seats: int
    fare_minor_units: int
    currency: str
    version: int
    operation_id: str


pack = DomainPack(
    name="tours",
    title="Tour rebooking",
    version="0.3",
    description="Cancel, book and charge the fare difference.",
    records=(
        RecordSpec(
            kind="booking",
            model=Booking,
            id_field="booking_id",
            tenant_field="tenant_id",
            protected_fields=("tourist",),
            money_fields=(MoneyField("fare_minor_units", "currency"),),
            quantity_fields=("seats",),
            version_field="version",
            operation_id_fields=("operation_id",),
            key_fields=("booking_id",),
        ),
    ),
    rubrics=HERE / "tours_rubrics",
    cases=HERE / "tours_cases",
    gold=None,
    correct_agent="scripted:tours-correct",
    faulty_agents=("scripted:double-booker",),
    fault_points=("after_effect_commit", "before_checkpoint"),
)
"""

TOURS_WITH_SNAPSHOT = """
from pathlib import Path

from pydantic import BaseModel

from calibrant.domains import DomainPack, MoneyField, RecordSpec, SnapshotSpec

HERE = Path(__file__).parent


class Tourist(BaseModel):
    tourist_id: str
    tenant_id: str
    name: str
    email: str


class Booking(BaseModel):
    booking_id: str
    tenant_id: str
    tourist_id: str
    tour: str
    seats: int
    fare_minor_units: int
    currency: str
    version: int
    operation_id: str | None = None


class Operator(BaseModel):
    tenant_id: str
    name: str
    tourists: list[Tourist] = []
    bookings: list[Booking] = []


pack = DomainPack(
    name="tours",
    title="Tour bookings",
    version="0.4",
    description="Book seats on guided tours for a tour operator's tourists.",
    records=(
        RecordSpec(
            kind="tourist",
            model=Tourist,
            id_field="tourist_id",
            tenant_field="tenant_id",
            protected_fields=("name", "email"),
            name_fields=("name",),
            address_fields=("email",),
        ),
        RecordSpec(
            kind="booking",
            model=Booking,
            id_field="booking_id",
            tenant_field="tenant_id",
            protected_fields=("booking_id",),
            money_fields=(MoneyField("fare_minor_units", "currency"),),
            quantity_fields=("seats",),
            version_field="version",
            operation_id_fields=("operation_id",),
            key_fields=("tourist_id", "tour"),
        ),
    ),
    rubrics=HERE / "tours_rubrics",
    cases=HERE / "tours_cases",
    fault_points=("timeout_after_booking_commit",),
    snapshot=SnapshotSpec(Operator, protected_fields=("name",)),
)
"""


def write_pack(folder: Path, module: str, source: str, entry: str, *, dist: str = "") -> None:
    """`folder/module.py` holding `source`, and a distribution declaring `entry` =
    "name = module:object" (its name `dist`, else the module's)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{module}.py").write_text(source, encoding="utf-8")
    name, value = (s.strip() for s in entry.split("=", 1))
    write_distribution(folder, dist or module, {name: value})
