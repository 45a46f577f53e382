"""The service engine on a tiny non-refund service declared here: a warehouse whose agent moves
stock between locations. Every mechanism is exercised through the engine's own tool box on a
real SQLite file: grants valid at call time, stale versions, idempotent effects, fault points,
the evaluator's snapshot, the tenant boundary and the notification sink."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from sqlalchemy import UniqueConstraint
from sqlmodel import Field, Session, SQLModel, select

from calibrant.contracts import CommittedWrite, RecordRef
from calibrant.engine import (
    COUNT_SCHEMA,
    ENGINE_TABLES,
    ID_SCHEMA,
    STRING_SCHEMA,
    AgentCrash,
    Caller,
    Fail,
    Fault,
    FaultPointDecl,
    Fired,
    Handled,
    PermissionRow,
    Recorder,
    ScheduledFault,
    Service,
    SnapshotTable,
    TenantRow,
    ToolBox,
    ToolDecl,
    ToolSet,
    advance,
    check_version,
    evaluator_snapshot,
    fresh_database,
    ok,
    owned,
    prior_effect,
    read_sink,
    revoke_scope,
    send,
)

# --- the warehouse pack's service, as a pack would declare it --------------------------------
# The transcript's RecordRef and CommittedWrite still close `kind` to the refund shop's record
# kinds (contracts.records.RecordKind; opening it is a later step of issue 21), so the warehouse
# builds its refs with model_construct: the engine itself never looks at a record's kind.


class StockRow(SQLModel, table=True):
    item_id: str = Field(primary_key=True)
    tenant_id: str = Field(index=True)
    sku: str
    location: str
    quantity: int
    version: int = 1


class TransferRow(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("tenant_id", "operation_id", name="uq_transfer_op"),)

    transfer_id: str = Field(primary_key=True)
    tenant_id: str = Field(index=True)
    operation_id: str
    item_id: str
    quantity: int
    to_location: str
    committed_seq: int


class StockItem(BaseModel):
    item_id: str
    tenant_id: str
    sku: str
    location: str
    quantity: int
    version: int


class Transfer(BaseModel):
    transfer_id: str
    tenant_id: str
    operation_id: str
    item_id: str
    quantity: int
    to_location: str
    committed_seq: int


T0 = datetime(2026, 3, 1, 8, 0, tzinfo=UTC)
PICKER_A = Caller("agent:picker-a", "north")
PICKER_B = Caller("agent:picker-b", "south")
EVALUATOR = "evaluator:auditor"


class Warehouse(Service):
    pass


def read_item(
    svc: Service, s: Session, caller: Caller, call_id: str, seq: int, args: dict[str, Any]
) -> Handled:
    item: StockRow = owned(svc, s, caller, StockRow, args["item_id"], "item")
    ref = RecordRef.model_construct(tenant_id=item.tenant_id, kind="stock", record_id=item.item_id)
    return ok(StockItem(**item.model_dump()).model_dump(), reads=[ref])


def transfer_stock(
    svc: Service, s: Session, caller: Caller, call_id: str, seq: int, args: dict[str, Any]
) -> Handled:
    op = str(args["operation_id"])
    item: StockRow = owned(svc, s, caller, StockRow, args["item_id"], "item")
    prior = prior_effect(s, TransferRow, caller.tenant_id, op)
    if prior is not None:
        return ok({"status": "already_committed", "transfer_id": prior.transfer_id})
    check_version("item", item.item_id, item.version, args["expected_version"])
    if args["quantity"] > item.quantity:
        raise Fail("insufficient_stock", f"only {item.quantity} of {item.item_id}")
    row = TransferRow(
        transfer_id=f"tr_{seq:04d}",
        tenant_id=caller.tenant_id,
        operation_id=op,
        item_id=item.item_id,
        quantity=args["quantity"],
        to_location=args["to_location"],
        committed_seq=seq,
    )
    item.quantity -= args["quantity"]
    item.version += 1
    s.add_all([row, item])
    svc.audit(
        s,
        tenant_id=caller.tenant_id,
        seq=seq,
        actor=caller.principal,
        action="stock.transferred",
        record_kind="transfer",
        record_id=row.transfer_id,
        operation_id=op,
        call_id=call_id,
        version_after=item.version,
    )
    write = CommittedWrite.model_construct(
        tenant_id=caller.tenant_id,
        kind="transfer",
        record_id=row.transfer_id,
        action="create",
        operation_id=op,
        expected_version=args["expected_version"],
    )
    return ok({"status": "committed", "transfer_id": row.transfer_id}, writes=[write])


def notify_site(
    svc: Service, s: Session, caller: Caller, call_id: str, seq: int, args: dict[str, Any]
) -> Handled:
    sent = send(
        s,
        caller,
        call_id,
        seq,
        key=args["key"],
        recipient=args["site"],
        kind="transfer_notice",
        subject="",
        body=args["body"],
        details={"item_id": args.get("item_id")},
    )
    accepted = sent.message_id if sent.status == "accepted" else None
    return ok(sent.model_dump(), accepted=accepted)


TOOLS = ToolSet(
    [
        ToolDecl(
            "read_item", "Read one stock item.", {"item_id": ID_SCHEMA}, ("item_id",), read_item
        ),
        ToolDecl(
            "transfer_stock",
            "Move units of an item to another location; idempotent by operation_id.",
            {
                "operation_id": ID_SCHEMA,
                "item_id": ID_SCHEMA,
                "quantity": COUNT_SCHEMA,
                "to_location": ID_SCHEMA,
                "expected_version": COUNT_SCHEMA,
            },
            ("operation_id", "item_id", "quantity", "to_location", "expected_version"),
            transfer_stock,
            scopes=("stock:write",),
            writes=True,
            operation_id_arg="operation_id",
        ),
        ToolDecl(
            "notify_site",
            "Tell a site about a transfer; idempotent by key.",
            {"site": STRING_SCHEMA, "body": STRING_SCHEMA, "key": ID_SCHEMA, "item_id": ID_SCHEMA},
            ("site", "body", "key"),
            notify_site,
            scopes=("notice:send",),
            notifies=True,
            operation_id_arg="key",
        ),
    ]
)


def _recount(
    svc: Service, caller: Caller, fault: ScheduledFault, context: Mapping[str, str]
) -> Fired:
    """A clerk recounts the item: new quantity, new version."""
    with Session(svc.engine) as s:
        seq = svc.tick(s)
        item = s.get(StockRow, context["item"])
        assert item is not None
        item.quantity, item.version = int(fault.params.get("quantity", 7)), item.version + 1
        s.add(item)
        s.commit()
    return Fired(seq, "external_change", f"a clerk recounted {context['item']}")


POINTS = (
    FaultPointDecl("crash_after_transfer_commit", "after_commit", lost_as="crash"),
    FaultPointDecl("timeout_after_transfer_commit", "after_commit", lost_as="timeout"),
    FaultPointDecl("crash_after_notice_accept", "after_commit", lost_as="crash"),
    FaultPointDecl("recount", "before_call", fire=_recount),
    FaultPointDecl(
        "grant_revoked",
        "before_call",
        fire=revoke_scope("stock:write", actor="system:iam", detail="stock:write revoked"),
    ),
    FaultPointDecl("stock_unavailable", "instead_of_call", detail="stock service down"),
)

SNAPSHOT = (
    SnapshotTable("stock", StockRow, "item_id", lambda r, _: StockItem(**r.model_dump())),
    SnapshotTable(
        "transfer", TransferRow, "committed_seq", lambda r, _: Transfer(**r.model_dump())
    ),
)


def warehouse(tmp_path: Path, *, expires_offset_s: int | None = None) -> Warehouse:
    rows: list[object] = [
        TenantRow(tenant_id="north", name="North depot"),
        TenantRow(tenant_id="south", name="South depot"),
        StockRow(item_id="n-bolts", tenant_id="north", sku="BOLT-8", location="A1", quantity=40),
        StockRow(item_id="n-nuts", tenant_id="north", sku="NUT-8", location="A2", quantity=12),
        StockRow(item_id="s-bolts", tenant_id="south", sku="BOLT-8", location="Z9", quantity=99),
        PermissionRow(
            permission_id="g_north",
            tenant_id="north",
            principal=PICKER_A.principal,
            scopes="stock:write notice:send",
            expires_offset_s=expires_offset_s,
        ),
        PermissionRow(
            permission_id="g_south",
            tenant_id="south",
            principal=PICKER_B.principal,
            scopes="stock:write notice:send",
        ),
    ]
    tables = [*ENGINE_TABLES, StockRow, TransferRow]
    return Warehouse(fresh_database(tmp_path / "warehouse.sqlite", tables, rows), base_time=T0)


def box(svc: Warehouse, *faults: Fault, caller: Caller = PICKER_A) -> ToolBox:
    return ToolBox(
        svc,
        caller,
        list(faults),
        Recorder(),
        tools=TOOLS,
        fault_points=POINTS,
        context={"item": "n-bolts"},
    )


def transfer(
    tb: ToolBox, op: str = "op-1", qty: int = 5, version: int = 1, item: str = "n-bolts"
) -> dict[str, Any]:
    args = {
        "operation_id": op,
        "item_id": item,
        "quantity": qty,
        "to_location": "B4",
        "expected_version": version,
    }
    return tb.call("transfer_stock", args)


def stock(svc: Warehouse, item: str = "n-bolts") -> StockItem:
    snap = evaluator_snapshot(svc, SNAPSHOT, taken_by=EVALUATOR)
    for t in snap.tenants:
        for s in t.of("stock", StockItem):
            if s.item_id == item:
                return s
    raise AssertionError(item)


def transfers(svc: Warehouse) -> list[Transfer]:
    snap = evaluator_snapshot(svc, SNAPSHOT, taken_by=EVALUATOR)
    return [x for t in snap.tenants for x in t.of("transfer", Transfer)]


# --- authorization -----------------------------------------------------------------------


def test_a_grant_valid_at_the_first_call_and_expired_at_the_next_refuses_it(tmp_path: Path) -> None:
    svc = warehouse(tmp_path, expires_offset_s=3)  # valid until T0 + 3 s, i.e. instants 1 and 2
    tb = box(svc)
    assert transfer(tb, "op-1")["status"] == "committed"  # instant 1
    advance(svc)  # instant 2
    answer = transfer(tb, "op-2", version=2)  # instant 3: the grant has expired
    assert answer == {
        "error": "forbidden",
        "reason": "expired",
        "message": "permission 'stock:write' is expired",
    }
    first, second = tb.rec.calls
    assert (first.authorization.decision, first.authorization.permission_id) == (
        "allowed",
        "g_north",
    )
    assert (second.authorization.decision, second.authorization.reason) == ("denied", "expired")
    assert (second.authorization.scope, second.writes) == ("stock:write", [])
    assert [t.operation_id for t in transfers(svc)] == ["op-1"]
    assert stock(svc).quantity == 35  # only the first transfer moved stock


def test_a_revocation_by_the_logical_clock_refuses_the_call_it_precedes(tmp_path: Path) -> None:
    svc = warehouse(tmp_path)
    tb = box(svc, Fault("grant_revoked", "transfer_stock", occurrence=2))
    assert transfer(tb, "op-1")["status"] == "committed"
    assert transfer(tb, "op-2", version=2)["reason"] == "revoked"
    assert [e.detail for e in tb.rec.events] == ["stock:write revoked"]
    assert [e.kind for e in tb.rec.events] == ["external_change"]
    # reads need only membership of the tenant: still allowed
    assert tb.call("read_item", {"item_id": "n-bolts"})["quantity"] == 35


def test_a_scope_the_principal_lacks_and_a_tenant_it_is_not_in_are_refused(tmp_path: Path) -> None:
    svc = warehouse(tmp_path)
    with Session(svc.engine) as s:
        s.add(
            PermissionRow(
                permission_id="g_ro",
                tenant_id="north",
                principal="agent:viewer",
                scopes="stock:read",
            )
        )
        s.commit()
    viewer = box(svc, caller=Caller("agent:viewer", "north"))
    assert transfer(viewer)["reason"] == "missing_scope"
    stranger = box(svc, caller=Caller("agent:picker-a", "south"))
    assert transfer(stranger, item="s-bolts")["reason"] == "tenant_boundary"
    assert stranger.call("read_item", {"item_id": "s-bolts"})["reason"] == "tenant_boundary"
    assert transfers(svc) == []


# --- optimistic concurrency and idempotency -----------------------------------------------


def test_a_stale_version_is_refused_with_the_current_one(tmp_path: Path) -> None:
    svc = warehouse(tmp_path)
    tb = box(svc, Fault("recount", "transfer_stock", params={"quantity": 30}))
    answer = transfer(tb, "op-1", version=1)  # the clerk's recount made it version 2 first
    assert answer == {
        "error": "version_conflict",
        "message": "item n-bolts is at version 2, not 1",
        "current_version": 2,
    }
    assert [e.detail for e in tb.rec.events] == ["a clerk recounted n-bolts"]
    assert transfers(svc) == [] and stock(svc).quantity == 30
    assert transfer(tb, "op-1", version=2)["status"] == "committed"
    assert stock(svc).quantity == 25


def test_a_repeated_operation_id_has_one_effect_and_returns_the_first_result(
    tmp_path: Path,
) -> None:
    svc = warehouse(tmp_path)
    tb = box(svc)
    first = transfer(tb, "op-1")
    again = transfer(tb, "op-1")  # a retry with the same id (and the version it read then)
    assert first["status"] == "committed"
    assert again == {"status": "already_committed", "transfer_id": first["transfer_id"]}
    assert len(transfers(svc)) == 1 and stock(svc).quantity == 35
    assert [bool(c.writes) for c in tb.rec.calls] == [True, False]
    # the operation id of a writing tool is required by the engine, before the handler runs
    direct = TOOLS.run(
        svc, "transfer_stock", PICKER_A, "c9", {"operation_id": "", "item_id": "n-bolts"}
    )
    assert (direct.error, direct.response["message"]) == (
        "invalid_argument",
        "operation_id is required",
    )


def test_a_message_is_accepted_once_per_key(tmp_path: Path) -> None:
    svc = warehouse(tmp_path)
    tb = box(svc)
    msg = {"site": "dock-b@north.example", "body": "5 x BOLT-8 coming", "key": "k-1"}
    assert tb.call("notify_site", msg)["status"] == "accepted"
    assert tb.call("notify_site", msg)["status"] == "duplicate"
    sink = read_sink(svc)
    assert [a.result for a in sink.attempts] == ["accepted", "duplicate"]
    assert [(m.tenant_id, m.idempotency_key) for m in sink.accepted] == [("north", "k-1")]
    assert sink.attempts[0].recipient == "dock-b@north.example"


# --- fault points ------------------------------------------------------------------------


def test_a_crash_after_the_transfer_commits_loses_the_answer_not_the_effect(tmp_path: Path) -> None:
    svc = warehouse(tmp_path)
    tb = box(svc, Fault("crash_after_transfer_commit", "transfer_stock", occurrence=2))
    assert transfer(tb, "op-1")["status"] == "committed"  # occurrence 1: nothing fires
    with pytest.raises(AgentCrash):
        transfer(tb, "op-2", version=2)
    assert [t.operation_id for t in transfers(svc)] == ["op-1", "op-2"]
    last = tb.rec.calls[-1]
    assert (last.outcome, last.response, bool(last.writes)) == ("crash", None, True)
    assert [(e.kind, e.fault) for e in tb.rec.events] == [
        ("fault_fired", "crash_after_transfer_commit")
    ]


def test_a_timeout_after_commit_tells_the_agent_the_outcome_is_unknown(tmp_path: Path) -> None:
    svc = warehouse(tmp_path)
    tb = box(svc, Fault("timeout_after_transfer_commit", "transfer_stock"))
    assert transfer(tb)["error"] == "timeout"
    assert len(transfers(svc)) == 1 and tb.rec.calls[-1].outcome == "timeout"


def test_a_refused_call_is_not_an_effect_so_an_after_commit_fault_does_not_fire(
    tmp_path: Path,
) -> None:
    svc = warehouse(tmp_path)
    tb = box(svc, Fault("crash_after_transfer_commit", "transfer_stock"))
    assert transfer(tb, qty=500)["error"] == "insufficient_stock"  # no crash: nothing committed
    assert tb.rec.events == [] and tb.rec.calls[-1].outcome == "error"


def test_a_crash_after_the_notification_is_accepted(tmp_path: Path) -> None:
    svc = warehouse(tmp_path)
    tb = box(svc, Fault("crash_after_notice_accept", "notify_site"))
    with pytest.raises(AgentCrash):
        tb.call("notify_site", {"site": "dock-b", "body": "on its way", "key": "k-1"})
    assert [m.idempotency_key for m in read_sink(svc).accepted] == ["k-1"]
    assert tb.rec.calls[-1].outcome == "crash"


def test_an_outage_answers_unavailable_and_runs_nothing(tmp_path: Path) -> None:
    svc = warehouse(tmp_path)
    tb = box(svc, Fault("stock_unavailable", "transfer_stock"))
    answer = transfer(tb)
    assert answer == {"error": "unavailable", "message": "the service is not answering"}
    assert transfers(svc) == [] and [e.detail for e in tb.rec.events] == ["stock service down"]


def test_the_schedule_is_reproducible_and_refuses_undeclared_points(tmp_path: Path) -> None:
    outcomes = []
    for run in ("one", "two"):
        path = tmp_path / run
        path.mkdir()
        svc = warehouse(path)
        tb = box(svc, Fault("timeout_after_transfer_commit", "transfer_stock", occurrence=2))
        for i in range(3):
            transfer(tb, f"op-{i}", version=i + 1)
        outcomes.append([(c.seq, c.outcome) for c in tb.rec.calls])
    assert outcomes[0] == outcomes[1] == [(1, "ok"), (2, "timeout"), (3, "ok")]
    with pytest.raises(ValueError, match="fault point 'crash_after_refund_commit' is not declared"):
        box(warehouse(tmp_path), Fault("crash_after_refund_commit", "transfer_stock"))


def test_arguments_the_schema_refuses_never_reach_the_service(tmp_path: Path) -> None:
    svc = warehouse(tmp_path)
    tb = box(svc, Fault("crash_after_transfer_commit", "transfer_stock"))
    answer = tb.call(
        "transfer_stock", {"operation_id": "op 1", "item_id": "n-bolts", "quantity": -2}
    )
    assert answer["error"] == "invalid_argument"
    assert "quantity: must be between 0 and 1000000000000 (got -2)" in answer["problems"]
    assert "to_location: required" in answer["problems"]
    assert tb.rec.calls[-1].authorization.reason == "invalid_argument"
    with pytest.raises(AgentCrash):  # the refused call did not count: this is the 1st call
        transfer(tb)
    assert [c.outcome for c in tb.rec.calls] == ["error", "crash"]


# --- the evaluator's snapshot and the tenant boundary -------------------------------------


def test_the_evaluator_snapshot_holds_every_tenant_and_record(tmp_path: Path) -> None:
    svc = warehouse(tmp_path)
    transfer(box(svc), "op-1")
    snap = evaluator_snapshot(svc, SNAPSHOT, taken_by=EVALUATOR)
    assert snap.taken_by == EVALUATOR and snap.seq == 2
    assert snap.taken_at == datetime(2026, 3, 1, 8, 0, 2, tzinfo=UTC)
    by_tenant = {t.tenant_id: t for t in snap.tenants}
    assert [t.name for t in snap.tenants] == ["North depot", "South depot"]
    north, south = by_tenant["north"], by_tenant["south"]
    assert [(s.item_id, s.quantity, s.version) for s in north.of("stock", StockItem)] == [
        ("n-bolts", 35, 2),
        ("n-nuts", 12, 1),
    ]
    assert [t.operation_id for t in north.of("transfer", Transfer)] == ["op-1"]
    assert [s.item_id for s in south.of("stock", StockItem)] == ["s-bolts"]
    assert south.of("transfer", Transfer) == []
    with pytest.raises(ValueError, match="never by the agent's"):
        evaluator_snapshot(svc, SNAPSHOT, taken_by=PICKER_A.principal)


def test_the_agent_cannot_read_or_move_another_tenants_records(tmp_path: Path) -> None:
    svc = warehouse(tmp_path)
    tb = box(svc)
    seen = tb.call("read_item", {"item_id": "s-bolts"})
    assert seen == {
        "error": "forbidden",
        "reason": "tenant_boundary",
        "message": "item s-bolts is not accessible",
    }
    assert "99" not in str(seen) and "Z9" not in str(seen)
    assert transfer(tb, item="s-bolts")["reason"] == "tenant_boundary"
    assert tb.call("read_item", {"item_id": "nowhere"})["error"] == "not_found"
    assert [c.reads for c in tb.rec.calls] == [[], [], []]
    assert stock(svc, "s-bolts").quantity == 99
    with Session(svc.engine) as s:
        assert s.exec(select(TransferRow)).all() == []
