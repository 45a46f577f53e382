"""What happens outside the agent: seeding a trial database, staff and system changes (fault
points), and the independent evaluator's snapshots."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlmodel import Session, col, select

from ..contracts import (
    AcceptedMessage,
    Approval,
    AuditEvent,
    Customer,
    Fixture,
    LedgerSnapshot,
    NotificationAttempt,
    NotificationSink,
    Order,
    Permission,
    PolicyDocument,
    Refund,
    TenantSnapshot,
    Ticket,
)
from .dataset import BASE_TIME, PRINCIPALS, base_rows, fixture_rows
from .service import RefundService, at, open_engine
from .tables import (
    AcceptedRow,
    ApprovalRow,
    AttemptRow,
    AuditRow,
    CustomerRow,
    OrderRow,
    PermissionRow,
    PolicyRow,
    RefundRow,
    TenantRow,
    TicketRow,
)

__all__ = [
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
    if path.exists():
        path.unlink()
    engine = open_engine(path)
    with Session(engine) as s:
        for row in fixture_rows(fixture, base_rows(fixture.dataset)):
            s.add(row)
        s.commit()
    return RefundService(engine)


def advance(svc: RefundService) -> int:
    """Advance the logical clock by one and return the new instant (a conversation turn)."""
    with Session(svc.engine) as s:
        seq = svc.tick(s)
        s.commit()
    return seq


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
    with Session(svc.engine) as s:
        seq = svc.tick(s)
        for g in s.exec(
            select(PermissionRow).where(
                PermissionRow.principal == principal, PermissionRow.tenant_id == tenant_id
            )
        ):
            if "refund:write" in g.scopes.split() and g.revoked_seq is None:
                g.revoked_seq = seq
                s.add(g)
                svc.audit(
                    s,
                    tenant_id=tenant_id,
                    seq=seq,
                    actor=PRINCIPALS.system,
                    action="permission.revoked",
                    record_kind="permission",
                    record_id=g.permission_id,
                )
        s.commit()
    return seq


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


def snapshot(svc: RefundService, *, taken_by: str = PRINCIPALS.evaluator) -> LedgerSnapshot:
    """Every tenant's records, read directly by the evaluator identity (not the agent's tools)."""
    with Session(svc.engine) as s:
        seq = svc.tick(s)
        s.commit()
        tenants = []
        for t in s.exec(select(TenantRow).order_by(TenantRow.tenant_id)):
            tid = t.tenant_id

            def rows(table: Any, order: str, tid: str = tid) -> list[Any]:
                stmt = select(table).where(table.tenant_id == tid).order_by(getattr(table, order))
                return list(s.exec(stmt))

            tenants.append(
                TenantSnapshot(
                    tenant_id=tid,
                    name=t.name,
                    customers=[
                        Customer(**r.model_dump()) for r in rows(CustomerRow, "customer_id")
                    ],
                    orders=[Order(**r.model_dump()) for r in rows(OrderRow, "order_id")],
                    refunds=[
                        Refund(**r.model_dump(), committed_at=at(r.committed_seq))
                        for r in rows(RefundRow, "committed_seq")
                    ],
                    tickets=[Ticket(**r.model_dump()) for r in rows(TicketRow, "ticket_id")],
                    approvals=[
                        Approval(**r.model_dump()) for r in rows(ApprovalRow, "requested_seq")
                    ],
                    permissions=[
                        Permission(
                            permission_id=r.permission_id,
                            tenant_id=r.tenant_id,
                            principal=r.principal,
                            scopes=r.scopes.split(),
                            revoked_seq=r.revoked_seq,
                            expires_at=None
                            if r.expires_offset_s is None
                            else BASE_TIME + timedelta(seconds=r.expires_offset_s),
                        )
                        for r in rows(PermissionRow, "permission_id")
                    ],
                    policies=[
                        PolicyDocument(
                            policy_id=r.policy_id,
                            tenant_id=r.tenant_id,
                            title=r.title,
                            text=r.text,
                            refundable_statuses=r.refundable_statuses.split(),
                            approval_threshold_minor_units=r.approval_threshold_minor_units,
                        )
                        for r in rows(PolicyRow, "policy_id")
                    ],
                    audit_log=[
                        AuditEvent(**r.model_dump(), at=at(r.seq)) for r in rows(AuditRow, "seq")
                    ],
                )
            )
    return LedgerSnapshot(taken_by=taken_by, seq=seq, taken_at=at(seq), tenants=tenants)


def notification_sink(svc: RefundService) -> NotificationSink:
    """The receiver's records: every attempt, and the accepted messages apart."""
    with Session(svc.engine) as s:
        attempts = s.exec(select(AttemptRow).order_by(col(AttemptRow.seq))).all()
        accepted = s.exec(select(AcceptedRow).order_by(col(AcceptedRow.seq))).all()
        return NotificationSink(
            attempts=[NotificationAttempt(**a.model_dump(), at=at(a.seq)) for a in attempts],
            accepted=[
                AcceptedMessage(
                    message_id=m.message_id,
                    attempt_id=m.attempt_id,
                    idempotency_key=m.idempotency_key,
                    seq=m.seq,
                )
                for m in accepted
            ],
        )
