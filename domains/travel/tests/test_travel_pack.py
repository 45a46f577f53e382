"""The pack's declaration: found by calibrant's registry through a real entry point (a
dist-info on sys.path, as pip leaves it: see conftest), every role naming a field of its
record, its runtime built lazily, its cases loading as calibrant case contracts, the rubric
loading as a calibrant rubric of the travel domain, and a bad case file said in one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from calibrant_travel import DATA, pack
from calibrant_travel.cases import Expected, Fixture
from calibrant_travel.invariants import INVARIANTS
from calibrant_travel.records import Booking, Charge, Flight, TravelSnapshot
from calibrant_travel.runtime import TravelRuntime
from calibrant_travel.service import FAULT_POINTS, TOOLS

from calibrant import domains
from calibrant.errors import CalibrantError
from calibrant.files import load_case, load_rubric
from calibrant.safety import registered


def test_the_pack_loads_through_its_entry_point() -> None:
    found = domains.get("travel")
    assert found.entry_point == "travel = calibrant_travel:pack"
    assert found.distribution == "calibrant-travel-test 0.1"
    assert not [b for b in domains.broken() if "travel" in b.entry_point]
    p = found.pack
    assert (p.name, p.title) == ("travel", "Travel rebooking")
    assert p.snapshot is not None and p.snapshot.model is TravelSnapshot
    assert (p.case_fixture, p.case_outcome) == (Fixture, Expected)
    assert p.correct_agent == "scripted:travel-correct" and len(p.faulty_agents) == 6
    runtime = domains.runtime("travel")
    assert isinstance(runtime, TravelRuntime)
    assert list(runtime.agent_names()) == list(p.agents)


def test_listing_the_pack_imports_no_service_code() -> None:
    code = (
        "import sys, calibrant_travel; calibrant_travel.pack(); "
        "print(sorted(m for m in sys.modules if m.startswith('calibrant_travel.')))"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    loaded = done.stdout.strip()
    assert "service" not in loaded and "runtime" not in loaded and "agents" not in loaded, loaded


def test_the_runtime_serves_the_tools_and_invariants() -> None:
    specs = list(TravelRuntime().tool_specs())
    assert [s["function"]["name"] for s in specs] == TOOLS.names()
    assert all(s["type"] == "function" and s["function"]["parameters"] for s in specs)
    notify = next(s for s in specs if s["function"]["name"] == "send_notification")
    assert "recipient" in notify["function"]["parameters"]["properties"]
    names = [inv.name for inv in TravelRuntime().invariants()]
    assert len(names) == len(set(names)) == len(INVARIANTS) >= 5
    core = {inv.name for inv in registered()}
    assert not set(names) & core, "a pack invariant would shadow one of calibrant's"
    # the rules calibrant states by role are not written again here (issue 32)
    mirrors = {"charges_within_approval", "claims_match_commits", "no_foreign_reads"}
    mirrors |= {"notifications_within_contract"}  # the core's, by the pack's message_cap
    assert not set(names) & mirrors
    assert all(inv.summary and "\n" not in inv.summary for inv in INVARIANTS)


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
    assert traveller.customer_text_fields == ("note",)
    assert ("state", "status") in booking.roles() and ("state", "expires_at") in p.record(
        "seat_hold"
    ).roles()
    assert p.record("seat_hold").quantity_fields == ("seats",)
    assert p.fault_points == tuple(fp.name for fp in FAULT_POINTS)  # named without importing it
    assert {"timeout_after_charge_commit", "crash_after_rebook_commit"} <= set(p.fault_points)


def test_the_rubric_and_cases_ship_in_the_package() -> None:
    p = pack()
    rubric = load_rubric(p.rubrics / "rebooking_communication.yaml")
    assert rubric.domain == "travel" and len(rubric.criteria) == 4
    assert p.cases == DATA / "cases"
    cases = [load_case(f) for f in sorted(p.cases.glob("*.yaml"))]
    assert len(cases) >= 12 and {c.domain for c in cases} == {"travel"}
    assert len({c.case for c in cases}) == len(cases)
    for c in cases:
        assert c.customer_script and c.domain_outcomes(), c.case


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ("booking_fare_minor_units: 18000", "booking_fare_minor_units: -1", "fixture.params"),
        ("notifications_at_most: 1", "notification_cap: 1", "expected.0.params"),
        ("- {booking_id: BK-A1, status: cancelled}", "- {booking: BK-A1}", "expected.0.records"),
        ("booking: 1, charge: 1", "bookings: 1, charge: 1", "expected.0.created"),
    ],
)
def test_a_bad_case_file_is_one_line_naming_file_and_field(
    old: str, new: str, field: str, tmp_path: Path
) -> None:
    text = (DATA / "cases" / "rebook_correct.yaml").read_text(encoding="utf-8")
    assert old in text
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace(old, new), encoding="utf-8")
    with pytest.raises(CalibrantError) as caught:
        load_case(bad)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(f"{bad}:"), message
    assert field in message, message


def test_a_file_that_is_not_yaml_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("case: [unclosed\n", encoding="utf-8")
    with pytest.raises(CalibrantError, match=r"bad.yaml:\d+: malformed YAML"):
        load_case(bad)
