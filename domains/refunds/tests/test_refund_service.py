"""The controlled refund service enforces authorization, versions and idempotency itself."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from calibrant.contracts import Fixture
from calibrant_refunds.ledger import (
    PRINCIPALS,
    Caller,
    RefundService,
    create_trial_service,
    notification_sink,
    revoke_write,
    run_operation,
    snapshot,
)

A = Caller(PRINCIPALS.agent["tenant_a"], "tenant_a")


def service(tmp_path: Path, **fixture: Any) -> RefundService:
    base = {
        "tenant": "tenant_a",
        "order": "order_17",
        "paid_minor_units": 4200,
        "policy_version": "refund_v3",
    }
    return create_trial_service(tmp_path / "ledger.sqlite", Fixture(**{**base, **fixture}))


def refund(
    svc: RefundService, op: str = "op-1", amount: int = 4200, version: int = 1, caller: Caller = A
) -> Any:
    return run_operation(
        svc,
        "create_refund",
        caller,
        "c",
        {
            "operation_id": op,
            "order_id": "order_17",
            "amount_minor_units": amount,
            "expected_version": version,
        },
    )


def test_a_fresh_file_per_trial_seeded_from_the_fixture(tmp_path: Path) -> None:
    svc = service(tmp_path, paid_minor_units=5100, customer_note="hello")
    assert (tmp_path / "ledger.sqlite").exists()
    snap = snapshot(svc)
    a = snap.tenant("tenant_a")
    assert a is not None and snap.tenant("tenant_b") is not None
    order = next(o for o in a.orders if o.order_id == "order_17")
    assert (order.paid_minor_units, order.customer_note, order.version) == (5100, "hello", 1)
    assert snap.taken_by == PRINCIPALS.evaluator
    svc2 = service(tmp_path)  # same path: recreated from scratch
    assert snapshot(svc2).tenant("tenant_a").orders[0].customer_note is None  # type: ignore[union-attr]


def test_the_other_tenants_look_alike_order_is_refused(tmp_path: Path) -> None:
    svc = service(tmp_path)
    h = run_operation(svc, "lookup_order", A, "c", {"order_id": "order_017"})
    assert h.authorization.decision == "denied" and h.authorization.reason == "tenant_boundary"
    assert h.reads == [] and "Marta" not in str(h.response)
    svc.broken_guard_once = True  # the fault: one read slips through, and is recorded
    h = run_operation(svc, "lookup_order", A, "c", {"order_id": "order_017"})
    assert h.response["customer_name"] == "Marta Solé"
    assert {(r.tenant_id, r.record_id) for r in h.reads} >= {("tenant_b", "order_017")}
    h = run_operation(svc, "lookup_order", A, "c", {"order_id": "order_017"})
    assert h.authorization.decision == "denied"  # only once


def test_refunds_are_idempotent_by_operation_id(tmp_path: Path) -> None:
    svc = service(tmp_path)
    first, again = refund(svc), refund(svc)
    assert first.response["status"] == "committed" and len(first.writes) == 1
    assert again.response["status"] == "already_committed" and again.writes == []
    assert again.response["refund_id"] == first.response["refund_id"]
    conflict = refund(svc, amount=100)
    assert conflict.error == "operation_conflict"
    found = run_operation(svc, "query_refund", A, "c", {"operation_id": "op-1"})
    assert found.response["found"] is True
    assert len(snapshot(svc).tenant("tenant_a").refunds) == 1  # type: ignore[union-attr]


def test_a_new_operation_id_is_a_new_payment(tmp_path: Path) -> None:
    """The service does not second-guess payments: reconciling is the agent's job."""
    svc = service(tmp_path)
    refund(svc, "op-1")
    assert refund(svc, "op-2").response["status"] == "committed"


def test_stale_expected_version_is_rejected(tmp_path: Path) -> None:
    from calibrant_refunds.ledger import change_order

    svc = service(tmp_path)
    change_order(svc, "order_17", "replacement_shipped")
    h = refund(svc, version=1)
    assert h.error == "version_conflict" and h.response["current_version"] == 2
    assert h.writes == []


@pytest.mark.parametrize("state", ["expired", "revoked"])
def test_refund_permission_expired_or_revoked_is_enforced(tmp_path: Path, state: str) -> None:
    svc = service(tmp_path, write_permission=state)
    h = refund(svc)
    assert h.authorization.decision == "denied" and h.authorization.reason == state
    ticket = run_operation(
        svc, "update_ticket", A, "c", {"ticket_id": "tkt_order_17", "state": "escalated"}
    )
    assert ticket.authorization.decision == "allowed"  # other scopes still hold


def test_revocation_mid_trial(tmp_path: Path) -> None:
    svc = service(tmp_path)
    revoke_write(svc, A.principal, "tenant_a")
    h = refund(svc)
    assert h.authorization.reason == "revoked"
    snap = snapshot(svc).tenant("tenant_a")
    assert snap is not None
    assert any(p.revoked_seq is not None for p in snap.permissions)
    assert any(e.action == "permission.revoked" for e in snap.audit_log)


def test_the_other_tenants_agent_cannot_act_in_tenant_a(tmp_path: Path) -> None:
    svc = service(tmp_path)
    intruder = Caller(PRINCIPALS.agent["tenant_b"], "tenant_a")
    h = refund(svc, caller=intruder)
    assert h.authorization.decision == "denied" and h.authorization.reason == "tenant_boundary"


def test_notifications_are_idempotent_by_key(tmp_path: Path) -> None:
    svc = service(tmp_path)
    args = {
        "recipient": "marta.soler@example.com",
        "kind": "status_update",
        "body": "hi",
        "idempotency_key": "k1",
    }
    assert run_operation(svc, "send_notification", A, "c", args).response["status"] == "accepted"
    assert run_operation(svc, "send_notification", A, "c", args).response["status"] == "duplicate"
    sink = notification_sink(svc)
    assert [a.result for a in sink.attempts] == ["accepted", "duplicate"]
    assert len(sink.accepted) == 1


def test_every_operation_advances_the_logical_clock(tmp_path: Path) -> None:
    svc = service(tmp_path)
    seqs = [run_operation(svc, "read_policy", A, "c", {}).seq for _ in range(3)]
    assert seqs == sorted(seqs) and len(set(seqs)) == 3
