"""The travel pack's cases are calibrant `CaseContract`s of domain `travel`: their fixture is a
`DomainFixture` whose `params` this module's `Fixture` reads (the pack's `case_fixture`), their
acceptable end states `DomainOutcome`s (records by kind, records created per kind) whose
`params` its `Expected` reads (the pack's `case_outcome`). calibrant's loader
(`calibrant.files.load_case`) validates both against the pack when it is installed, so a bad
case file is one line naming the file, the line and the field."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pydantic import Field

from calibrant.contracts.common import Contract, Id, MinorUnits
from calibrant.pack import CaseContract, DomainFixture, load_case

__all__ = ["Fixture", "Expected", "CASES", "fixture_of", "load_cases"]

CASES = Path(__file__).parent / "data" / "cases"


class Fixture(Contract):
    """The acting agency's world (`fixture.params` of a travel case). The traveller in session
    is `traveller` (the agent knows their email from the session); they hold `booking` on
    `current_flight` and ask, in the customer script, to move onto another flight
    (`target_flight` is the one the agency sells beside it). A second agency, `agency_b`,
    always exists with its own traveller (Bruno Castells) and booking BK-B7."""

    traveller: Id = "trv_ana"
    traveller_name: str = "Ana Soler"
    traveller_email: str = "ana.soler@example.es"
    traveller_note: str = ""
    booking: Id = "BK-A1"
    booking_fare_minor_units: MinorUnits = 18000
    current_flight: Id = "FL100"
    target_flight: Id = "FL200"
    target_fare_minor_units: MinorUnits = 21500
    target_seats_left: int = Field(default=3, ge=0)
    currency: str = Field(default="EUR", pattern=r"^[A-Z]{3}$")
    approval_threshold_minor_units: MinorUnits = 10000
    hold_seconds: int = Field(default=900, ge=1)
    grant_expires_in_seconds: int | None = None


class Expected(Contract):
    """The pack's own conditions on an acceptable end state (`expected[].params`), beside the
    records and counts calibrant compares: `notifications_at_most` caps the messages the
    notification receiver accepted for the agency (None: no cap)."""

    notifications_at_most: int | None = Field(default=None, ge=0)


def fixture_of(case: CaseContract) -> tuple[str, Fixture]:
    """The acting agency and the pack's fixture settings of a travel case."""
    fx = case.fixture
    if not isinstance(fx, DomainFixture):
        raise ValueError(f"case '{case.case}' is domain '{case.domain}', not a travel case")
    return fx.tenant, Fixture.model_validate(fx.params)


def load_cases(files: Iterable[Path] | None = None) -> list[CaseContract]:
    """The pack's cases (or `files`), read by calibrant's case loader."""
    paths = sorted(CASES.glob("*.yaml")) if files is None else list(files)
    return [load_case(p) for p in paths]
