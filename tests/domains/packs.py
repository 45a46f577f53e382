"""Domain packs written to a folder as a pip install would leave them: a module and a dist-info
declaring its `calibrant.domains` entry point. The tours pack has records of its own."""

from __future__ import annotations

from pathlib import Path

from tests.support.domains import write_distribution

__all__ = ["TOURS", "write_pack"]

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


def write_pack(folder: Path, module: str, source: str, entry: str, *, dist: str = "") -> None:
    """`folder/module.py` holding `source`, and a distribution declaring `entry` =
    "name = module:object" (its name `dist`, else the module's)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{module}.py").write_text(source, encoding="utf-8")
    name, value = (s.strip() for s in entry.split("=", 1))
    write_distribution(folder, dist or module, {name: value})
