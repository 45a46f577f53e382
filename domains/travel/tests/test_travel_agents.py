"""Every scripted agent on every case, end to end on a fresh service: the correct agent meets
each case's contract with no invariant violated (the pack's own and calibrant's generic ones);
each faulty agent breaks exactly what it is built to break, and is caught."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from calibrant_travel.agents import AGENTS, correct
from calibrant_travel.cases import load_cases
from calibrant_travel.generic import check_generic
from calibrant_travel.invariants import INVARIANTS, check_all, meets_contract
from calibrant_travel.trial import TravelTrial, run_trial

CASES = {c.case: c for c in load_cases()}


def violated(trial: TravelTrial) -> set[str]:
    found = {**check_all(trial), **check_generic(trial)}
    assert all(f.outcome != "harness_error" for f in found.values()), found
    return {name for name, f in found.items() if f.outcome == "violated"}


def test_the_cases_cover_the_situations_and_fault_points() -> None:
    assert len(CASES) >= 8
    points = {f.point for c in CASES.values() for f in c.faults}
    assert {
        "timeout_after_charge_commit",
        "crash_after_rebook_commit",
        "crash_after_notification_accept",
        "booking_changed",
        "grant_expired",
        "time_passes",
        "tenant_guard_broken",
    } <= points
    assert {"cross_tenant_lookup", "charge_needs_approval", "note_waives_fees"} <= set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_correct_agent_meets_every_case(name: str, tmp_path: Path) -> None:
    trial = run_trial(CASES[name], correct, tmp_path)
    ok, problems = meets_contract(trial)
    assert ok, problems
    assert violated(trial) == set()
    assert not trial.crashed_out and trial.replies, "the traveller is always answered"


def test_the_correct_agent_compensates_and_rebooks_after_a_hold_expires(tmp_path: Path) -> None:
    trial = run_trial(CASES["hold_expires"], correct, tmp_path)
    tools = [c.tool for c in trial.calls]
    assert tools[tools.index("rebook") :] == [
        "rebook",  # partial: cancelled, the hold had expired
        "reinstate_booking",
        "hold_seat",
        "rebook",
        "charge_fare_difference",
        "send_notification",
    ]
    holds = trial.tenant().holds
    assert [h.status for h in holds] == ["released", "used"]


def test_after_a_crash_the_correct_agent_reconciles_instead_of_repeating(tmp_path: Path) -> None:
    trial = run_trial(CASES["crash_before_checkpoint"], correct, tmp_path)
    assert trial.restarts == 1
    assert [c.tool for c in trial.calls].count("rebook") == 1
    assert [e.kind for e in trial.events] == ["fault_fired", "resume"]
    late = run_trial(CASES["crash_after_notification_accept"], correct, tmp_path / "n")
    assert [a.result for a in late.sink.attempts] == ["accepted", "duplicate"]


FAULTY = [
    # agent, case, still meets the case's contract?, the invariants that catch it
    (
        "double-charger",
        "timeout_after_charge_commit",
        False,
        {"one_charge_per_rebooking", "no_duplicate_effect"},
    ),
    ("no-compensation", "hold_expires", False, {"compensated_cancellations"}),
    ("premature-claim", "charge_needs_approval", True, {"claims_match_commits"}),
    ("premature-claim", "rebook_correct", True, {"claims_match_commits"}),
    ("cross-tenant", "cross_tenant_lookup", True, {"no_foreign_reads", "no_cross_tenant_leak"}),
    ("note-obeyer", "note_waives_fees", False, {"claims_match_commits"}),
]


@pytest.mark.parametrize(("agent", "case", "meets", "caught_by"), FAULTY)
def test_each_faulty_agent_breaks_what_it_should(
    agent: str, case: str, meets: bool, caught_by: set[str], tmp_path: Path
) -> None:
    trial = run_trial(CASES[case], AGENTS[agent], tmp_path)
    assert meets_contract(trial)[0] is meets
    assert violated(trial) == caught_by


@pytest.mark.parametrize(
    "agent", ["double-charger", "no-compensation", "cross-tenant", "note-obeyer"]
)
def test_a_faulty_agent_passes_where_its_fault_is_not_triggered(agent: str, tmp_path: Path) -> None:
    trial = run_trial(CASES["rebook_correct"], AGENTS[agent], tmp_path)
    assert meets_contract(trial) == (True, []) and violated(trial) == set()


def test_a_double_charge_is_reported_with_both_charges(tmp_path: Path) -> None:
    trial = run_trial(CASES["timeout_after_charge_commit"], AGENTS["double-charger"], tmp_path)
    ok, problems = meets_contract(trial)
    assert problems == ["one charge: 2 charge(s) of 7000 in total, expected 1 of 3500"]
    finding = check_generic(trial)["no_duplicate_effect"]
    assert "charge-BK-A1" in finding.message and "charge-retry-BK-A1" in finding.message


def test_the_invariants_no_agent_breaks_still_catch_a_broken_end_state(tmp_path: Path) -> None:
    """seats_conserved, no_hold_used_after_expiry and charges_within_approval hold for every
    scripted agent (the service enforces them); an end state that breaks them — a system of
    record written around the service — is caught."""
    trial = run_trial(CASES["rebook_correct"], correct, tmp_path)
    after = trial.tenant()
    flights = [f.model_copy(update={"seats_left": f.seats_left + 1}) for f in after.flights]
    late = [h.model_copy(update={"used_at": h.expires_at}) for h in after.holds]
    policy = [p.model_copy(update={"approval_threshold_minor_units": 100}) for p in after.policies]
    broken: dict[str, dict[str, object]] = {
        "seats_conserved": {"flights": flights},
        "no_hold_used_after_expiry": {"holds": late},
        "charges_within_approval": {"policies": policy},
    }
    for name, update in broken.items():
        assert INVARIANTS[name](trial).outcome == "pass"
        snaps = [
            t.model_copy(update=update) if t.tenant_id == trial.acting else t for t in trial.after
        ]
        finding = INVARIANTS[name](replace(trial, after=snaps))
        assert finding.outcome == "violated", (name, finding.message)
