"""What happens outside the agent: seeding a trial database, staff and system changes (fault
points), and the independent evaluator's snapshots."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from sqlmodel import Session

from calibrant.contracts import NotificationSink
from calibrant.engine import (
    Service,
    SnapshotTable,
    advance,
    evaluator_snapshot,
    fresh_database,
    revoke,
)
from calibrant.engine import notification_sink as engine_notification_sink

from ..case_models import Fixture
from ..records import (
    Approval,
    AuditEvent,
    Customer,
    LedgerSnapshot,
    Order,
    Permission,
    PolicyDocument,
    Refund,
    TenantSnapshot,
    Ticket,
)
from .dataset import PRINCIPALS, base_rows, fixture_rows
from .service import RefundService
from .tables import (
    LEDGER_TABLES,
    ApprovalRow,
    AuditRow,
    CustomerRow,
    OrderRow,
    PermissionRow,
    PolicyRow,
    RefundRow,
    TicketRow,
)

__all__ = [
    "SNAPSHOT_TABLES",
    "create_trial_service",
    "change_order",
    "revoke_write",
    "decide_approval",
    "snapshot",
    "notification_sink",
    "advance",
]


def create_trial_service(path: Path, fixture: Fixture) -> RefundService:
    """A fresh SQLite file at `path`, seeded from the fixture's dataset plus its overrides."""
    rows = fixture_rows(fixture, base_rows(fixture.dataset))
    return RefundService(fresh_database(path, LEDGER_TABLES, rows))


def change_order(svc: RefundService, order_id: str, status: str) -> int:
    """A colleague changes the order (fault point order_version_change): new version."""
    with Session(svc.engine) as s:
        seq = svc.tick(s)
        o = s.get(OrderRow, order_id)
        if o is None:
            raise ValueError(f"no order {order_id}")
        o.status = status
        o.version += 1
        s.add(o)
        svc.audit(
            s,
            tenant_id=o.tenant_id,
            seq=seq,
            actor=PRINCIPALS.staff[o.tenant_id],
            action="order.changed",
            record_kind="order",
            record_id=order_id,
            version_after=o.version,
        )
        s.commit()
    return seq


def revoke_write(svc: RefundService, principal: str, tenant_id: str) -> int:
    """Revoke the principal's refund:write grants (fault point permission_revoked)."""
    return revoke(svc, principal, tenant_id, "refund:write", actor=PRINCIPALS.system)


def decide_approval(svc: RefundService, approval_id: str, *, approve: bool) -> int:
    """A support lead decides a review request."""
    with Session(svc.engine) as s:
        seq = svc.tick(s)
        a = s.get(ApprovalRow, approval_id)
        if a is None:
            raise ValueError(f"no approval {approval_id}")
        a.status = "approved" if approve else "rejected"
        a.decided_by = PRINCIPALS.staff[a.tenant_id]
        a.decided_seq = seq
        s.add(a)
        svc.audit(
            s,
            tenant_id=a.tenant_id,
            seq=seq,
            actor=a.decided_by,
            action="approval.decided",
            record_kind="approval",
            record_id=approval_id,
        )
        s.commit()
    return seq


def _permission(r: PermissionRow, svc: Service) -> Permission:
    return Permission(
        permission_id=r.permission_id,
        tenant_id=r.tenant_id,
        principal=r.principal,
        scopes=r.scopes.split(),
        revoked_seq=r.revoked_seq,
        expires_at=None
        if r.expires_offset_s is None
        else svc.base_time + timedelta(seconds=r.expires_offset_s),
    )


def _policy(r: PolicyRow, svc: Service) -> PolicyDocument:
    return PolicyDocument(
        policy_id=r.policy_id,
        tenant_id=r.tenant_id,
        title=r.title,
        text=r.text,
        refundable_statuses=r.refundable_statuses.split(),
        approval_threshold_minor_units=r.approval_threshold_minor_units,
    )


SNAPSHOT_TABLES = (
    SnapshotTable("customer", CustomerRow, "customer_id", lambda r, _: Customer(**r.model_dump())),
    SnapshotTable("order", OrderRow, "order_id", lambda r, _: Order(**r.model_dump())),
    SnapshotTable(
        "refund",
        RefundRow,
        "committed_seq",
        lambda r, svc: Refund(**r.model_dump(), committed_at=svc.at(r.committed_seq)),
    ),
    SnapshotTable("ticket", TicketRow, "ticket_id", lambda r, _: Ticket(**r.model_dump())),
    SnapshotTable(
        "approval", ApprovalRow, "requested_seq", lambda r, _: Approval(**r.model_dump())
    ),
    SnapshotTable("permission", PermissionRow, "permission_id", _permission),
    SnapshotTable("policy", PolicyRow, "policy_id", _policy),
    SnapshotTable(
        "audit", AuditRow, "seq", lambda r, svc: AuditEvent(**r.model_dump(), at=svc.at(r.seq))
    ),
)
"""What the evaluator reads of every tenant, in the order the snapshot lists it."""


def snapshot(svc: RefundService, *, taken_by: str = PRINCIPALS.evaluator) -> LedgerSnapshot:
    """Every tenant's records, read directly by the evaluator identity (not the agent's tools)."""
    snap = evaluator_snapshot(svc, SNAPSHOT_TABLES, taken_by=taken_by)
    tenants = [
        TenantSnapshot(
            tenant_id=t.tenant_id,
            name=t.name,
            customers=t.of("customer", Customer),
            orders=t.of("order", Order),
            refunds=t.of("refund", Refund),
            tickets=t.of("ticket", Ticket),
            approvals=t.of("approval", Approval),
            permissions=t.of("permission", Permission),
            policies=t.of("policy", PolicyDocument),
            audit_log=t.of("audit", AuditEvent),
        )
        for t in snap.tenants
    ]
    return LedgerSnapshot(
        taken_by=snap.taken_by, seq=snap.seq, taken_at=snap.taken_at, tenants=tenants
    )


def notification_sink(svc: RefundService) -> NotificationSink:
    """The receiver's records: every attempt, and the accepted messages apart."""
    return engine_notification_sink(svc)
