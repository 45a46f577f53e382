"""The controlled service's engine, whatever the domain: what a pack builds its service on.

- authorization: a tool needs named scopes, checked against the caller's grants valid at the
  call's instant (expiry, revocation by logical clock), per tenant; a refusal is recorded as
  `denied` with its reason (service.Service.authorize);
- optimistic concurrency: a write names the version it read; a stale one is refused
  (check_version);
- idempotency: an effect keyed by an operation id happens once (prior_effect; tools declare
  their operation-id argument), messages once per idempotency key (sink.send);
- fault injection: named points fired by a reproducible schedule (faults, toolbox);
- evaluator snapshots: every tenant's records read by an evaluator identity (snapshot);
- the notification sink (sink), a logical clock and an audit log (service);
- tool declarations: name, JSON schema of arguments, scopes, whether it writes, its operation-id
  argument (tools).

The engine names no domain: every pack's controlled service is built on it."""

from .faults import (
    Fault,
    FaultPointDecl,
    FaultSchedule,
    Fired,
    ScheduledFault,
    break_tenant_guard,
    revoke_scope,
)
from .service import (
    Caller,
    Denied,
    Fail,
    Handled,
    Service,
    advance,
    check_version,
    fresh_database,
    ok,
    open_engine,
    owned,
    prior_effect,
    revoke,
)
from .sink import Sent, Sink, SinkAttempt, SinkMessage, notification_sink, read_sink, send
from .snapshot import ServiceSnapshot, SnapshotTable, TenantRecords, evaluator_snapshot
from .tables import (
    ENGINE_TABLES,
    AcceptedRow,
    AttemptRow,
    AuditRow,
    Meta,
    PermissionRow,
    TenantRow,
)
from .toolbox import AgentCrash, Recorder, ToolBox
from .tools import COUNT_SCHEMA, ID_SCHEMA, STRING_SCHEMA, Handler, ToolDecl, ToolSet

__all__ = [
    "COUNT_SCHEMA",
    "ENGINE_TABLES",
    "ID_SCHEMA",
    "STRING_SCHEMA",
    "AcceptedRow",
    "AgentCrash",
    "AttemptRow",
    "AuditRow",
    "Caller",
    "Denied",
    "Fail",
    "Fault",
    "FaultPointDecl",
    "FaultSchedule",
    "Fired",
    "Handled",
    "Handler",
    "Meta",
    "PermissionRow",
    "Recorder",
    "ScheduledFault",
    "Sent",
    "Service",
    "ServiceSnapshot",
    "Sink",
    "SinkAttempt",
    "SinkMessage",
    "SnapshotTable",
    "TenantRecords",
    "TenantRow",
    "ToolBox",
    "ToolDecl",
    "ToolSet",
    "advance",
    "break_tenant_guard",
    "check_version",
    "evaluator_snapshot",
    "fresh_database",
    "notification_sink",
    "ok",
    "open_engine",
    "owned",
    "prior_effect",
    "read_sink",
    "revoke",
    "revoke_scope",
    "send",
]
