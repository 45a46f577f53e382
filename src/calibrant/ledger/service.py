"""The controlled refund service: the checks production would apply, enforced here, not in any
prompt — tenant boundary, scopes, expiry, revocation, optimistic concurrency, idempotency."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, event
from sqlmodel import Session, SQLModel, create_engine, select

from ..contracts import Authorization, CommittedWrite, RecordRef
from .dataset import BASE_TIME
from .tables import (
    AuditRow,
    Meta,
    OrderRow,
    PermissionRow,
)

__all__ = ["Caller", "Handled", "Denied", "RefundService", "open_engine", "at"]


def at(seq: int) -> datetime:
    """Simulated time of a logical instant."""
    return BASE_TIME + timedelta(seconds=seq)


def open_engine(path: Path) -> Engine:
    """A SQLite engine on `path` for one trial's scratch database (foreign keys on, no fsync:
    the file is rebuilt from its fixture for every trial and read back by the evaluator)."""
    engine = create_engine(f"sqlite:///{path}", connect_args={"check_same_thread": False})

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_conn: Any, _: Any) -> None:
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA foreign_keys=ON")
        # a trial database is scratch, rebuilt from its fixture for every trial: no fsync
        cur.execute("PRAGMA synchronous=OFF")
        cur.execute("PRAGMA journal_mode=MEMORY")
        cur.close()

    from .tables import LEDGER_TABLES

    SQLModel.metadata.create_all(engine, tables=[t.__table__ for t in LEDGER_TABLES])
    return engine


@dataclass(frozen=True)
class Caller:
    """Who is calling, in which tenant."""

    principal: str
    tenant_id: str


@dataclass
class Handled:
    """What the service did for one request: the decision, reads, committed writes, answer."""

    authorization: Authorization
    response: dict[str, Any]
    reads: list[RecordRef] = field(default_factory=list)
    writes: list[CommittedWrite] = field(default_factory=list)
    error: str | None = None
    seq: int = 0


class Denied(Exception):
    """Raised inside the service when authorization fails."""

    def __init__(self, reason: str, scope: str | None, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.scope = scope
        self.message = message


class RefundService:
    """Low-level service primitives shared by the tool operations (see ops.py)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.broken_guard_once = False  # fault: let one cross-tenant read through

    # --- clock --------------------------------------------------------------------------
    def tick(self, s: Session) -> int:
        row = s.get(Meta, "seq")
        assert row is not None
        value = int(row.value) + 1
        row.value = str(value)
        s.add(row)
        return value

    def now(self) -> int:
        with Session(self.engine) as s:
            row = s.get(Meta, "seq")
            assert row is not None
            return int(row.value)

    # --- authorization ------------------------------------------------------------------
    def member(self, s: Session, caller: Caller) -> None:
        """The caller must hold some grant in the tenant it claims."""
        grants = s.exec(
            select(PermissionRow).where(
                PermissionRow.principal == caller.principal,
                PermissionRow.tenant_id == caller.tenant_id,
            )
        ).all()
        if not grants:
            raise Denied(
                "tenant_boundary", None, f"{caller.principal} has no access to {caller.tenant_id}"
            )

    def guard_tenant(self, caller: Caller, owner_tenant: str, what: str) -> None:
        """A record of another tenant is never returned (unless the broken-guard fault fires)."""
        if owner_tenant == caller.tenant_id:
            return
        if self.broken_guard_once:
            self.broken_guard_once = False
            return
        raise Denied("tenant_boundary", None, f"{what} is not accessible")

    def grant_for(self, s: Session, caller: Caller, scope: str, seq: int) -> PermissionRow:
        """A valid grant of `scope`, or Denied with the most specific reason."""
        grants = s.exec(
            select(PermissionRow).where(
                PermissionRow.principal == caller.principal,
                PermissionRow.tenant_id == caller.tenant_id,
            )
        ).all()
        if not grants:
            raise Denied("tenant_boundary", scope, f"no access to {caller.tenant_id}")
        scoped = [g for g in grants if scope in g.scopes.split()]
        if not scoped:
            raise Denied("missing_scope", scope, f"permission '{scope}' is not granted")
        now = at(seq)
        reason = "revoked"
        for g in scoped:
            if g.revoked_seq is not None and g.revoked_seq <= seq:
                reason = "revoked"
                continue
            if (
                g.expires_offset_s is not None
                and BASE_TIME + timedelta(seconds=g.expires_offset_s) <= now
            ):
                reason = "expired"
                continue
            return g
        raise Denied(reason, scope, f"permission '{scope}' is {reason}")

    # --- helpers ------------------------------------------------------------------------
    def audit(
        self,
        s: Session,
        *,
        tenant_id: str,
        seq: int,
        actor: str,
        action: str,
        record_kind: str,
        record_id: str,
        operation_id: str | None = None,
        call_id: str | None = None,
        version_after: int | None = None,
    ) -> None:
        s.add(
            AuditRow(
                event_id=f"aud_{seq:04d}_{action.replace('.', '_')}",
                tenant_id=tenant_id,
                seq=seq,
                actor=actor,
                action=action,
                record_kind=record_kind,
                record_id=record_id,
                operation_id=operation_id,
                call_id=call_id,
                version_after=version_after,
            )
        )

    def order(self, s: Session, order_id: str) -> OrderRow | None:
        return s.get(OrderRow, order_id)
