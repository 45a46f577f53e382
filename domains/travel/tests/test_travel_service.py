"""The travel service's mechanisms on a real SQLite file, through the engine's tool box: scopes,
grant expiry, hold expiry and compensation, stale versions, idempotent effects, approvals, each
fault point, the tenant boundary and the evaluator's snapshot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from calibrant_travel.cases import Fixture
from calibrant_travel.records import TravelSnapshot
from calibrant_travel.service import (
    AGENT,
    EVALUATOR,
    FAULT_POINTS,
    SNAPSHOT_TABLES,
    TOOLS,
    ApprovalRow,
    TravelService,
    build_service,
    snapshot,
)
from sqlmodel import Session

from calibrant.engine import (
    AgentCrash,
    Caller,
    Fault,
    PermissionRow,
    Recorder,
    ToolBox,
    evaluator_snapshot,
    read_sink,
)

EMAIL = "ana.soler@example.es"


def world(tmp_path: Path, **fixture: Any) -> TravelService:
    return build_service(tmp_path / "travel.sqlite", "agency_a", Fixture(**fixture))


def box(svc: TravelService, *faults: Fault, principal: str = AGENT) -> ToolBox:
    return ToolBox(
        svc,
        Caller(principal, "agency_a"),
        list(faults),
        Recorder(),
        tools=TOOLS,
        fault_points=FAULT_POINTS,
        context={"booking": "BK-A1"},
    )


def mine(svc: TravelService) -> TravelSnapshot:
    return next(t for t in snapshot(svc) if t.tenant_id == "agency_a")


def hold(tb: ToolBox, op: str = "hold-1") -> dict[str, Any]:
    return tb.call("hold_seat", {"operation_id": op, "flight_id": "FL200", "booking_id": "BK-A1"})


def rebook(tb: ToolBox, hold_id: str, op: str = "rebook-1", version: int = 1) -> dict[str, Any]:
    args = {
        "operation_id": op,
        "booking_id": "BK-A1",
        "expected_version": version,
        "hold_id": hold_id,
    }
    return tb.call("rebook", args)


def charge(
    tb: ToolBox, booking: str, op: str = "charge-1", amount: int = 3500, **extra: Any
) -> dict[str, Any]:
    args = {
        "operation_id": op,
        "booking_id": booking,
        "amount_minor_units": amount,
        "currency": "EUR",
    }
    return tb.call("charge_fare_difference", {**args, **extra})


def seats(snap: TravelSnapshot) -> dict[str, int]:
    return {f.flight_id: f.seats_left for f in snap.flights}


def test_a_rebooking_cancels_books_and_moves_the_seats(tmp_path: Path) -> None:
    svc = world(tmp_path)
    tb = box(svc)
    h = hold(tb)
    assert h["status"] == "held" and h["expires_at"] == "2026-06-01T09:15:01+00:00"
    assert seats(mine(svc)) == {"FL100": 0, "FL200": 2}  # the hold took a seat
    r = rebook(tb, h["hold_id"])
    assert r["status"] == "committed" and r["cancelled"] == "BK-A1"
    snap = mine(svc)
    by_id = {b.booking_id: b for b in snap.bookings}
    new = by_id[r["new_booking_id"]]
    assert (by_id["BK-A1"].status, by_id["BK-A1"].version) == ("cancelled", 2)
    assert (new.status, new.flight_id, new.replaces, new.fare_minor_units) == (
        "active",
        "FL200",
        "BK-A1",
        21500,
    )
    assert seats(snap) == {"FL100": 1, "FL200": 2}  # the cancel gave FL100's seat back
    assert [h.status for h in snap.holds] == ["used"]
    assert [w.kind for w in tb.rec.calls[-1].writes] == ["booking", "booking"]
    cancel, created = tb.rec.calls[-1].writes
    # the log names the record an update was applied over and its versions (what calibrant's
    # no_stale_overwrite reads); a create names none
    assert (cancel.target_id, cancel.expected_version, cancel.version_before) == ("BK-A1", 1, 1)
    assert cancel.version_after == 2 and created.target_id is None
    # the same operation id again: one effect, the first result
    assert rebook(tb, h["hold_id"]) == {
        "status": "already_committed",
        "new_booking_id": r["new_booking_id"],
    }
    assert len(mine(svc).bookings) == 2


def test_a_hold_expired_at_booking_time_leaves_a_cancel_to_compensate(tmp_path: Path) -> None:
    svc = world(tmp_path, hold_seconds=900)
    tb = box(svc, Fault("time_passes", "rebook", params={"seconds": 3600}))
    h = hold(tb)
    r = rebook(tb, h["hold_id"])
    assert (r["status"], r["error"], r["cancelled"], r["version"]) == (
        "partial",
        "hold_expired",
        "BK-A1",
        2,
    )
    assert [e.detail for e in tb.rec.events] == ["3600 s passed before the next step"]
    snap = mine(svc)
    assert [(b.booking_id, b.status) for b in snap.bookings] == [("BK-A1", "cancelled")]
    assert [h.status for h in snap.holds] == ["released"]
    assert seats(snap) == {"FL100": 1, "FL200": 3}  # both seats back: nobody holds one now
    assert tb.rec.calls[-1].outcome == "ok" and len(tb.rec.calls[-1].writes) == 1
    back = tb.call("reinstate_booking", {"operation_id": "reinstate-1", "booking_id": "BK-A1"})
    assert back == {"status": "reinstated", "booking_id": "BK-A1", "version": 3}
    snap = mine(svc)
    assert [(b.booking_id, b.status) for b in snap.bookings] == [("BK-A1", "active")]
    assert seats(snap) == {"FL100": 0, "FL200": 3}


def test_a_replaced_booking_cannot_be_reinstated(tmp_path: Path) -> None:
    svc = world(tmp_path)
    tb = box(svc)
    r = rebook(tb, hold(tb)["hold_id"])
    back = tb.call("reinstate_booking", {"operation_id": "reinstate-1", "booking_id": "BK-A1"})
    assert back["error"] == "replaced" and r["new_booking_id"] in back["message"]


def test_a_stale_version_is_refused_and_nothing_is_cancelled(tmp_path: Path) -> None:
    svc = world(tmp_path)
    tb = box(svc, Fault("booking_changed", "rebook"))
    h = hold(tb)
    assert rebook(tb, h["hold_id"]) == {
        "error": "version_conflict",
        "message": "booking BK-A1 is at version 2, not 1",
        "current_version": 2,
    }
    assert [(b.status, b.version) for b in mine(svc).bookings] == [("active", 2)]
    assert rebook(tb, h["hold_id"], version=2)["status"] == "committed"


def test_an_expired_grant_refuses_the_write_but_not_the_reads(tmp_path: Path) -> None:
    svc = world(tmp_path, grant_expires_in_seconds=3)
    tb = box(svc)
    h = hold(tb)  # instant 1: valid
    tb.call("get_policy", {})  # instant 2: reads need membership only
    answer = rebook(tb, h["hold_id"])  # instant 3: expired
    assert (answer["error"], answer["reason"]) == ("forbidden", "expired")
    assert tb.call("find_booking", {"booking_ref": "BK-A1"})["status"] == "active"
    # the same by the fault point: the grant reaches its expiry just before the call
    (tmp_path / "two").mkdir()
    svc2 = world(tmp_path / "two")
    tb2 = box(svc2, Fault("grant_expired", "rebook"))
    assert rebook(tb2, hold(tb2)["hold_id"])["reason"] == "expired"
    assert [b.status for b in mine(svc2).bookings] == ["active"]


def test_a_scope_the_agent_lacks_is_refused(tmp_path: Path) -> None:
    svc = world(tmp_path)
    with Session(svc.engine) as s:
        s.add(
            PermissionRow(
                permission_id="g_view",
                tenant_id="agency_a",
                principal="agent:viewer",
                scopes="booking:write",
            )
        )
        s.commit()
    tb = box(svc, principal="agent:viewer")
    r = rebook(tb, hold(tb)["hold_id"])
    answer = charge(tb, r["new_booking_id"])
    assert (answer["reason"], tb.rec.calls[-1].authorization.scope) == (
        "missing_scope",
        "payment:charge",
    )
    assert mine(svc).charges == []


def test_a_charge_is_idempotent_by_operation_id_and_gated_above_the_threshold(
    tmp_path: Path,
) -> None:
    svc = world(tmp_path, approval_threshold_minor_units=3000)
    tb = box(svc)
    new = rebook(tb, hold(tb)["hold_id"])["new_booking_id"]
    assert charge(tb, new)["error"] == "approval_required"  # 3500 > 3000
    asked = tb.call(
        "request_approval",
        {"operation_id": "approval-1", "booking_id": new, "amount_minor_units": 3500},
    )
    assert asked["status"] == "pending"
    assert charge(tb, new, approval_id=asked["approval_id"])["error"] == "approval_required"
    with Session(svc.engine) as s:  # a supervisor approves it
        row = s.get(ApprovalRow, asked["approval_id"])
        assert row is not None
        row.status, row.decided_seq = "approved", svc.now()
        s.add(row)
        s.commit()
    first = charge(tb, new, approval_id=asked["approval_id"])
    again = charge(tb, new, approval_id=asked["approval_id"])
    assert first["status"] == "committed"
    assert again == {
        "status": "already_committed",
        "charge_id": first["charge_id"],
        "amount_minor_units": 3500,
        "currency": "EUR",
    }
    assert [(c.amount_minor_units, c.currency) for c in mine(svc).charges] == [(3500, "EUR")]
    assert charge(tb, new, op="charge-2", currency="USD")["error"] == "invalid_argument"
    assert charge(tb, "BK-A1", op="charge-3")["error"] == "not_active"


def test_a_timeout_after_the_charge_commits_loses_only_the_answer(tmp_path: Path) -> None:
    svc = world(tmp_path)
    tb = box(svc, Fault("timeout_after_charge_commit", "charge_fare_difference"))
    new = rebook(tb, hold(tb)["hold_id"])["new_booking_id"]
    assert charge(tb, new)["error"] == "timeout"
    assert len(mine(svc).charges) == 1 and tb.rec.calls[-1].outcome == "timeout"
    assert charge(tb, new)["status"] == "already_committed"  # the same id reconciles


def test_a_crash_after_the_rebooking_commits_before_the_checkpoint(tmp_path: Path) -> None:
    svc = world(tmp_path)
    tb = box(svc, Fault("crash_after_rebook_commit", "rebook"))
    h = hold(tb)
    with pytest.raises(AgentCrash):
        rebook(tb, h["hold_id"])
    assert tb.rec.calls[-1].outcome == "crash"
    found = tb.call("find_booking", {"booking_ref": "BK-A1", "traveller_email": EMAIL})
    assert found["status"] == "cancelled" and found["replaced_by"] == "BK-0002"


def test_a_crash_after_the_notification_is_accepted(tmp_path: Path) -> None:
    svc = world(tmp_path)
    tb = box(svc, Fault("crash_after_notification_accept", "send_notification"))
    msg = {"idempotency_key": "notice-1", "booking_id": "BK-A1", "subject": "s", "body": "b"}
    with pytest.raises(AgentCrash):
        tb.call("send_notification", msg)
    assert tb.call("send_notification", msg)["status"] == "duplicate"
    sink = read_sink(svc)
    assert [a.result for a in sink.attempts] == ["accepted", "duplicate"]
    assert [a.recipient for a in sink.attempts] == [EMAIL, EMAIL]  # the service picks it


def test_a_sold_out_flight_cannot_be_held_and_nothing_moves(tmp_path: Path) -> None:
    svc = world(tmp_path, target_seats_left=0)
    tb = box(svc)
    answer = hold(tb)
    assert answer["error"] == "sold_out" and "FL200" in answer["message"]
    snap = mine(svc)
    assert snap.holds == [] and seats(snap) == {"FL100": 0, "FL200": 0}


def test_a_message_goes_to_the_address_the_agent_names(tmp_path: Path) -> None:
    """The service does not police the recipient: keeping the agency's business inside it is
    the agent's job, and the checker's to verify."""
    svc = world(tmp_path)
    tb = box(svc)
    msg = {"idempotency_key": "notice-1", "booking_id": "BK-A1", "subject": "s", "body": "b"}
    tb.call("send_notification", {**msg, "recipient": "bruno.castells@example.es"})
    tb.call("send_notification", {**msg, "idempotency_key": "notice-2"})
    sink = read_sink(svc)
    assert [a.recipient for a in sink.attempts] == ["bruno.castells@example.es", EMAIL]


def test_another_agencys_booking_is_never_returned(tmp_path: Path) -> None:
    svc = world(tmp_path)
    tb = box(svc)
    answer = tb.call("find_booking", {"booking_ref": "BK-B7"})
    assert (answer["error"], answer["reason"]) == ("forbidden", "tenant_boundary")
    assert "Bruno" not in str(answer)
    # with the guard broken for one read, the owner check still refuses without reading
    broken = box(svc, Fault("tenant_guard_broken", "find_booking"))
    mine_only = broken.call("find_booking", {"booking_ref": "BK-B7", "traveller_email": EMAIL})
    assert mine_only["error"] == "not_found" and broken.rec.calls[-1].reads == []
    assert [c.reads for c in tb.rec.calls] == [[]]


def test_arguments_outside_the_schema_never_reach_the_service(tmp_path: Path) -> None:
    svc = world(tmp_path)
    tb = box(svc)
    answer = charge(tb, "BK-A1", amount=-5, currency="euros")
    assert answer["error"] == "invalid_argument"
    assert "amount_minor_units: must be between 0 and 1000000000000 (got -5)" in answer["problems"]
    assert mine(svc).charges == []


def test_the_evaluator_reads_every_agency_and_the_agent_cannot(tmp_path: Path) -> None:
    svc = world(tmp_path)
    snaps = snapshot(svc)
    assert [(t.tenant_id, t.name) for t in snaps] == [
        ("agency_a", "Viajes Norte"),
        ("agency_b", "Viajes Sur"),
    ]
    assert [b.booking_id for b in snaps[1].bookings] == ["BK-B7"]
    assert snaps[0].permissions[0].scopes == [
        "booking:write",
        "payment:charge",
        "approval:request",
        "notify:send",
    ]
    with pytest.raises(ValueError, match="never by the agent's"):
        evaluator_snapshot(svc, SNAPSHOT_TABLES, taken_by=AGENT)
    assert EVALUATOR.startswith("evaluator:")
