"""The controlled service's mechanisms, whatever its domain: the logical clock, the tenant
boundary, authorization by named scopes against grants valid at call time, optimistic
concurrency, idempotent effects and the audit log. A pack's service subclasses `Service` and
adds its own record helpers; its tools' handlers raise `Denied` or `Fail` to refuse."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, event
from sqlmodel import Session, SQLModel, create_engine, select

from ..contracts import Authorization, CommittedWrite, RecordRef
from .tables import AuditRow, Meta, PermissionRow

__all__ = [
    "Caller",
    "Handled",
    "Denied",
    "Fail",
    "Service",
    "ok",
    "open_engine",
    "fresh_database",
    "advance",
    "revoke",
    "check_version",
    "prior_effect",
    "owned",
]


def open_engine(path: Path, tables: Sequence[Any]) -> Engine:
    """A SQLite engine on `path` for one trial's scratch database, with `tables` created
    (foreign keys on, no fsync: the file is rebuilt from its fixture for every trial and read
    back by the evaluator)."""
    engine = create_engine(f"sqlite:///{path}", connect_args={"check_same_thread": False})

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_conn: Any, _: Any) -> None:
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA foreign_keys=ON")
        # a trial database is scratch, rebuilt from its fixture for every trial: no fsync
        cur.execute("PRAGMA synchronous=OFF")
        cur.execute("PRAGMA journal_mode=MEMORY")
        cur.close()

    SQLModel.metadata.create_all(engine, tables=[t.__table__ for t in tables])
    return engine


def fresh_database(path: Path, tables: Sequence[Any], rows: Sequence[object]) -> Engine:
    """A fresh SQLite file at `path` (an old one is replaced) seeded with `rows`; the logical
    clock starts at 0 unless the rows set it."""
    if path.exists():
        path.unlink()
    engine = open_engine(path, tables)
    with Session(engine) as s:
        if not any(isinstance(r, Meta) and r.key == "seq" for r in rows):
            s.add(Meta(key="seq", value="0"))
        for row in rows:
            s.add(row)
        s.commit()
    return engine


@dataclass(frozen=True)
class Caller:
    """Who is calling, in which tenant."""

    principal: str
    tenant_id: str


@dataclass
class Handled:
    """What the service did for one request: the decision, reads, committed writes, answer.
    `accepted`: the id of the message the notification sink accepted, if the call sent one."""

    response: dict[str, Any]
    authorization: Authorization = field(default_factory=lambda: Authorization(decision="allowed"))
    reads: list[RecordRef] = field(default_factory=list)
    writes: list[CommittedWrite] = field(default_factory=list)
    error: str | None = None
    seq: int = 0
    accepted: str | None = None

    @property
    def committed(self) -> bool:
        """The call took effect: it committed a write, or a message was accepted."""
        return bool(self.writes) or self.accepted is not None


class Denied(Exception):
    """Raised inside the service when authorization fails (recorded as `denied`)."""

    def __init__(self, reason: str, scope: str | None, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.scope = scope
        self.message = message


class Fail(Exception):
    """Raised inside the service when an allowed call is refused (a stale version, a missing
    record, a bad argument): the answer is `{"error": code, "message": ..., **extra}`."""

    def __init__(self, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.code, self.message, self.extra = code, message, extra


def ok(
    response: dict[str, Any],
    *,
    reads: list[RecordRef] | None = None,
    writes: list[CommittedWrite] | None = None,
    accepted: str | None = None,
) -> Handled:
    """A handler's answer; the engine adds the authorization decision and the instant."""
    return Handled(response=response, reads=reads or [], writes=writes or [], accepted=accepted)


class Service:
    """Low-level primitives shared by a service's tool handlers. Time is logical: every call,
    refusal and outside change takes one instant (`seq`), shown as `base_time + seq` seconds."""

    def __init__(self, engine: Engine, *, base_time: datetime) -> None:
        self.engine = engine
        self.base_time = base_time
        self.broken_guard_once = False  # fault: let one cross-tenant read through

    # --- clock --------------------------------------------------------------------------
    def at(self, seq: int) -> datetime:
        """Simulated time of a logical instant."""
        return self.base_time + timedelta(seconds=seq)

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
    @staticmethod
    def _grants(s: Session, caller: Caller) -> list[PermissionRow]:
        """Every grant of the caller in its tenant (valid or not)."""
        stmt = select(PermissionRow).where(
            PermissionRow.principal == caller.principal,
            PermissionRow.tenant_id == caller.tenant_id,
        )
        return list(s.exec(stmt).all())

    def member(self, s: Session, caller: Caller) -> None:
        """The caller must hold some grant in the tenant it claims."""
        if not self._grants(s, caller):
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
        """A grant of `scope` valid at instant `seq` (not revoked by then, not expired by its
        time), or Denied with the most specific reason."""
        grants = self._grants(s, caller)
        if not grants:
            raise Denied("tenant_boundary", scope, f"no access to {caller.tenant_id}")
        scoped = [g for g in grants if scope in g.scopes.split()]
        if not scoped:
            raise Denied("missing_scope", scope, f"permission '{scope}' is not granted")
        now = self.at(seq)
        reason = "revoked"
        for g in scoped:
            if g.revoked_seq is not None and g.revoked_seq <= seq:
                reason = "revoked"
                continue
            if (
                g.expires_offset_s is not None
                and self.base_time + timedelta(seconds=g.expires_offset_s) <= now
            ):
                reason = "expired"
                continue
            return g
        raise Denied(reason, scope, f"permission '{scope}' is {reason}")

    def authorize(
        self, s: Session, caller: Caller, scopes: Sequence[str], seq: int
    ) -> Authorization:
        """A call needing no scope needs membership of the tenant (recorded as scope `read`);
        one needing scopes needs a valid grant of each (recorded with the first one's grant)."""
        if not scopes:
            self.member(s, caller)
            return Authorization(decision="allowed", scope="read")
        grants = [self.grant_for(s, caller, scope, seq) for scope in scopes]
        return Authorization(
            decision="allowed", permission_id=grants[0].permission_id, scope=scopes[0]
        )

    # --- audit --------------------------------------------------------------------------
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


def advance(svc: Service) -> int:
    """Advance the logical clock by one and return the new instant (a conversation turn)."""
    with Session(svc.engine) as s:
        seq = svc.tick(s)
        s.commit()
    return seq


def revoke(svc: Service, principal: str, tenant_id: str, scope: str, *, actor: str) -> int:
    """Revoke the principal's grants holding `scope` in the tenant, at a new instant (audited
    as `permission.revoked` by `actor`). A call at that instant or later is refused."""
    with Session(svc.engine) as s:
        seq = svc.tick(s)
        for g in s.exec(
            select(PermissionRow).where(
                PermissionRow.principal == principal, PermissionRow.tenant_id == tenant_id
            )
        ):
            if scope in g.scopes.split() and g.revoked_seq is None:
                g.revoked_seq = seq
                s.add(g)
                svc.audit(
                    s,
                    tenant_id=tenant_id,
                    seq=seq,
                    actor=actor,
                    action="permission.revoked",
                    record_kind="permission",
                    record_id=g.permission_id,
                )
        s.commit()
    return seq


def check_version(kind: str, record_id: str, current: int, expected: Any) -> None:
    """Optimistic concurrency: a write names the version it read; a stale one is refused with
    `version_conflict` (and the current version, so the caller can re-read)."""
    if expected != current:
        raise Fail(
            "version_conflict",
            f"{kind} {record_id} is at version {current}, not {expected}",
            current_version=current,
        )


def prior_effect(
    s: Session, table: Any, tenant_id: str, operation_id: str, *, column: str = "operation_id"
) -> Any | None:
    """Idempotency: the row an earlier call with this operation id committed in the tenant, or
    None (then the effect has not happened yet)."""
    stmt = select(table).where(table.tenant_id == tenant_id, getattr(table, column) == operation_id)
    return s.exec(stmt).first()


def owned(svc: Service, s: Session, caller: Caller, table: Any, record_id: Any, what: str) -> Any:
    """The caller's record `record_id` of `table`: `not_found` if there is none, `denied`
    (tenant_boundary) if another tenant owns it."""
    row = s.get(table, str(record_id))
    if row is None:
        raise Fail("not_found", f"no {what} {record_id}")
    svc.guard_tenant(caller, row.tenant_id, f"{what} {record_id}")
    return row
