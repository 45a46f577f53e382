"""The pack's declaration: found by calibrant's registry through a real entry point (a
dist-info on sys.path, as pip leaves it), every role naming a field of its record, the rubric
loading as a calibrant rubric of the travel domain, and a bad case file said in one line."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from calibrant_travel import DATA, pack
from calibrant_travel.cases import load_case
from calibrant_travel.records import Booking, Charge, Flight, TravelSnapshot
from calibrant_travel.service import FAULT_POINTS

from calibrant import domains
from calibrant.errors import CalibrantError
from calibrant.files import load_rubric


@pytest.fixture
def entry_point(tmp_path: Path) -> Iterator[None]:
    info = tmp_path / "calibrant_travel_test-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: calibrant-travel-test\nVersion: 0.1\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        "[calibrant.domains]\ntravel = calibrant_travel:pack\n", encoding="utf-8"
    )
    sys.path.append(str(tmp_path))
    domains.refresh()
    try:
        yield
    finally:
        sys.path.remove(str(tmp_path))
        domains.refresh()


def test_the_pack_loads_through_its_entry_point(entry_point: None) -> None:
    found = domains.get("travel")
    assert found.entry_point == "travel = calibrant_travel:pack"
    assert found.distribution == "calibrant-travel-test 0.1"
    assert not [b for b in domains.broken() if "travel" in b.entry_point]
    p = found.pack
    assert (p.name, p.title) == ("travel", "Travel rebooking")
    assert p.snapshot is not None and p.snapshot.model is TravelSnapshot
    assert p.correct_agent == "scripted:travel-correct" and len(p.faulty_agents) == 5


def test_every_role_is_declared_on_the_right_field() -> None:
    p = pack()
    booking, flight, charge = p.record("booking"), p.record("flight"), p.record("charge")
    assert booking.model is Booking and flight.model is Flight and charge.model is Charge
    assert ("version", "version") in booking.roles() and (
        "protected",
        "booking_id",
    ) in booking.roles()
    assert flight.quantity_fields == ("seats_left",) and flight.version_field == "version"
    assert [(m.amount, m.currency) for m in charge.money_fields] == [
        ("amount_minor_units", "currency")
    ]
    assert (charge.operation_id_fields, charge.key_fields) == (("operation_id",), ("booking_id",))
    traveller = p.record("traveller")
    assert set(traveller.protected_fields) >= {"name", "email"}
    assert (traveller.name_fields, traveller.address_fields) == (("name",), ("email",))
    assert p.record("seat_hold").quantity_fields == ("seats",)
    assert p.fault_points == tuple(fp.name for fp in FAULT_POINTS)
    assert {"timeout_after_charge_commit", "crash_after_rebook_commit"} <= set(p.fault_points)


def test_the_rubric_and_cases_ship_in_the_package() -> None:
    p = pack()
    rubric = load_rubric(p.rubrics / "rebooking_communication.yaml")
    assert rubric.domain == "travel" and len(rubric.criteria) == 4
    assert len(list(p.cases.glob("*.yaml"))) >= 8
    assert p.cases == DATA / "cases"


def test_a_bad_case_file_is_one_line_naming_file_and_field(tmp_path: Path) -> None:
    text = (DATA / "cases" / "rebook_correct.yaml").read_text(encoding="utf-8")
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace("charges: 1", "charges: -1"), encoding="utf-8")
    with pytest.raises(CalibrantError) as caught:
        load_case(bad)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{bad}: expected.0.charges:")
    bad.write_text("case: [unclosed\n", encoding="utf-8")
    with pytest.raises(CalibrantError, match=r"bad.yaml:\d+: not valid YAML"):
        load_case(bad)
