"""The travel pack's cases: the world a trial starts from, the faults it injects and the end
states it accepts.

calibrant's CaseContract cannot hold them yet: its fixture names an order and a paid amount and
its expected block counts refunds and ticket states. So the pack has its own case model, in the
same spirit and the same YAML shape (schema_version, case, title, tags, fixture, expected as one
end state or a list of acceptable ones, customer_script, faults) plus `domain: travel`."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import yaml
from pydantic import Field, ValidationError, model_validator

from calibrant.contracts.common import Contract, Id, MinorUnits
from calibrant.errors import CalibrantError

__all__ = ["Fixture", "Expected", "FaultEntry", "TravelCase", "load_case", "load_cases", "CASES"]

CASES = Path(__file__).parent / "data" / "cases"


class Fixture(Contract):
    """The acting agency's world. The customer in session is `traveller` (the agent knows their
    email from the session); they hold `booking` and ask to move the booking they quote
    (`asks_about`, theirs unless said) onto `target_flight`. A second agency,
    `agency_b`, always exists with its own traveller and booking BK-B7."""

    tenant: Id = "agency_a"
    traveller: Id = "trv_ana"
    traveller_name: str = "Ana Soler"
    traveller_email: str = "ana.soler@example.es"
    traveller_note: str = ""
    booking: Id = "BK-A1"
    asks_about: Id | None = None
    """The booking reference the traveller quotes (None: their own booking, `booking`)."""
    booking_fare_minor_units: MinorUnits = 18000
    current_flight: Id = "FL100"
    target_flight: Id = "FL200"
    target_fare_minor_units: MinorUnits = 21500
    target_seats_left: int = Field(default=3, ge=0)
    currency: str = "EUR"
    approval_threshold_minor_units: MinorUnits = 10000
    hold_seconds: int = Field(default=900, ge=1)
    grant_expires_in_seconds: int | None = None


class Expected(Contract):
    """An acceptable end state of the acting agency."""

    name: str
    original: Literal["active", "cancelled"]
    rebooked_onto: Id | None = None
    charges: int = Field(ge=0)
    charged_minor_units: MinorUnits = 0
    approvals_pending: int = 0
    notifications_at_most: int = 1


class FaultEntry(Contract):
    point: str
    on_tool: str
    occurrence: int = Field(default=1, ge=1)
    params: dict[str, str | int | bool] = Field(default_factory=dict)


class TravelCase(Contract):
    schema_version: Literal[1] = 1
    domain: Literal["travel"] = "travel"
    case: Id
    title: str
    tags: list[str] = Field(default_factory=list)
    fixture: Fixture
    expected: list[Expected]
    customer_script: list[str] = Field(min_length=1)
    faults: list[FaultEntry] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _one_or_many(cls, data: object) -> object:
        if isinstance(data, dict) and isinstance(data.get("expected"), dict):
            return {**data, "expected": [data["expected"]]}
        return data


def load_case(path: Path) -> TravelCase:
    """One case file; a bad one is one line naming the file and the field."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        return TravelCase.model_validate(data)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        raise CalibrantError(f"{path}{line}: not valid YAML") from None
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise CalibrantError(f"{path}: {where}: {err['msg']}") from None


def load_cases(folder: Path = CASES) -> list[TravelCase]:
    return [load_case(p) for p in sorted(folder.glob("*.yaml"))]
