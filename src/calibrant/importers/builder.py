"""One parsed trace + the team's system-of-record snapshots -> one calibrant transcript.

The trusted parts come only from the snapshots (read by an evaluator identity): the ledger before
and after, the writes each tool call committed (the refunds and audit events that name its call
id) and the records a call returned (the system's records whose ids appear in what the call
returned). What the agent's tools answered is kept verbatim as the call's response — what the
agent saw — and never becomes evidence of what happened.

A trace of another domain than the refund shop gets its snapshots as `snapshot_before` /
`snapshot_after` and its calls' reads, writes and messages through its pack's roles
(`importers.records`)."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from pydantic import JsonValue

from .. import __version__
from ..contracts import (
    Authorization,
    CaseContract,
    CommittedWrite,
    DomainSnapshot,
    HarnessEvent,
    LedgerSnapshot,
    Metrics,
    NotificationAttempt,
    NotificationSink,
    Provenance,
    RecordRef,
    ToolCall,
    Transcript,
    Turn,
    content_hash,
)
from ..domains import DomainPack, default_domain
from ..errors import InputError
from .model import ATTR_CASE, ATTR_PRINCIPAL, ATTR_TENANT, ParsedTrace, TraceCall, TraceTurn
from .records import DomainRecords

__all__ = ["IMPORT_VERSION", "WRITE_SCOPES", "build_transcript", "transcript_id_of"]

IMPORT_VERSION = f"calibrant-import/{__version__}"
WRITE_SCOPES = {
    "create_refund": "refund:write",
    "update_ticket": "ticket:write",
    "assign_ticket": "ticket:write",
    "request_approval": "approval:request",
    "send_notification": "notification:send",
}
"""The scope each write tool of the refund shop needs (its grant is looked up in the snapshot)."""

_ID = re.compile(r"^[A-Za-z0-9_.:\-/@+]{1,200}$")
_ID_HELP = "use only letters, digits and _ . : - / @ + (at most 200)"
_NOTE_KINDS = ("refund_confirmation", "status_update", "escalation_notice", "other")
_CREATED = ("create", "created", "committed", "requested")
NO_RECIPIENT = "not in the trace"
"""Another domain's message recipient when the call named none (its service resolves it)."""


def transcript_id_of(case_id: str, trace_id: str) -> str:
    return f"{case_id}:import:{trace_id}"


def _id(value: object) -> str | None:
    return value if isinstance(value, str) and _ID.match(value) else None


def _attr(
    trace: ParsedTrace, option: str | None, key: str, flag: str, default: str | None = None
) -> str:
    """The option, else the trace's attribute, else `default`."""
    value = option or trace.attributes.get(key) or default
    if not value:
        raise InputError(
            trace.where,
            f"no {flag[2:].replace('-', ' ')}: give {flag} or set the attribute {key} in the "
            "trace's metadata",
        )
    if _id(value) is None:
        raise InputError(trace.where, f"{value!r} is not an identifier; {_ID_HELP}", field=key)
    return value


def build_transcript(
    trace: ParsedTrace,
    *,
    fmt: str,
    case: CaseContract | None,
    before: LedgerSnapshot | DomainSnapshot | None,
    after: LedgerSnapshot | DomainSnapshot | None,
    missing: dict[str, str],
    tenant: str | None,
    principal: str | None,
    agent: str | None,
    pack: DomainPack | None = None,
) -> Transcript:
    """The transcript of `trace`; `missing` names the snapshots that were not given. `pack`:
    another domain's pack, its snapshots DomainSnapshots; None for the refund shop, its
    snapshots LedgerSnapshots."""
    case_id = case.case if case else trace.attributes.get(ATTR_CASE)
    if case and trace.attributes.get(ATTR_CASE) not in (None, case.case):
        raise InputError(
            trace.where,
            f"the trace names case {trace.attributes[ATTR_CASE]}, --case is {case.case}; give "
            "the case it ran (or --cases DIR to match each trace's own)",
            field=ATTR_CASE,
        )
    if not case_id:
        raise InputError(
            trace.where,
            f"no case: give --case or --cases, set the attribute {ATTR_CASE}, or import "
            "with --no-contract",
        )
    if _id(case_id) is None:
        raise InputError(
            trace.where, f"{case_id!r} is not an identifier; {_ID_HELP}", field=ATTR_CASE
        )
    if _id(trace.trace_id) is None:
        raise InputError(
            trace.where,
            f"trace id {trace.trace_id!r} is not an identifier; {_ID_HELP}",
            field="id",
        )
    default_tenant = case.fixture.tenant if case else None
    acting = _attr(trace, tenant, ATTR_TENANT, "--tenant", default_tenant)
    agent_id = _attr(trace, principal, ATTR_PRINCIPAL, "--agent-principal")
    ledger: tuple[LedgerSnapshot | None, LedgerSnapshot | None] = (None, None)
    records: DomainRecords | None = None
    domain = default_domain() if pack is None else pack.name
    if pack is None:
        assert not isinstance(before, DomainSnapshot) and not isinstance(after, DomainSnapshot)
        ledger = (before, after)
    else:
        assert not isinstance(before, LedgerSnapshot) and not isinstance(after, LedgerSnapshot)
        records = DomainRecords(pack, before, after)
    base_seq = before.seq if before else 0
    base_at = (before.taken_at if before else None) or trace.started or _fallback_time(trace)
    turns: list[Turn] = []
    calls: list[ToolCall] = []
    attempts: list[NotificationAttempt] = []
    seen_ids: set[str] = set()
    for i, ev in enumerate(trace.events, start=1):
        seq = base_seq + i
        when = ev.time or base_at + timedelta(seconds=i)
        if isinstance(ev, TraceTurn):
            turns.append(
                Turn(
                    turn_id=f"turn_{len(turns) + 1:02d}",
                    seq=seq,
                    at=when,
                    role=ev.role,
                    text=ev.text,
                    message_id=ev.message_id,
                    with_tool_call=ev.with_tool_call or None,
                    seen_by_customer=ev.seen_by_customer,
                )
            )
            continue
        if _id(ev.call_id) is None:
            raise InputError(
                ev.where, f"tool call id {ev.call_id!r} is not an identifier; {_ID_HELP}"
            )
        if ev.call_id in seen_ids:
            raise InputError(
                ev.where,
                f"tool call id {ev.call_id} repeats; give each tool call its own id",
                field="id",
            )
        seen_ids.add(ev.call_id)
        call = _tool_call(ev, seq, when, acting, agent_id, ledger, records)
        calls.append(call)
        if call.tool == "send_notification":
            if (made := _attempt(call, refunds=records is None)) is not None:
                attempts.append(made)
    if records is None:
        operation_ids = {
            op
            for c in calls
            if c.tool == "create_refund" and (op := _id(c.arguments.get("operation_id")))
        }
    else:
        made_by = records.writes(calls)
        for c in calls:
            c.writes = made_by.get(c.call_id, [])
        operation_ids = {w.operation_id for c in calls for w in c.writes if w.operation_id}
    what = "the ledger" if records is None else "the records"
    events = [
        HarnessEvent(
            event_id=f"ev_{n:03d}",
            seq=base_seq,
            kind="harness_error",
            detail=f"the system-of-record snapshot {which} the trace is missing ({where}): "
            f"nothing about {what} can be established",
        )
        for n, (which, where) in enumerate(missing.items(), start=1)
    ]
    last = base_seq + len(trace.events)
    if after is not None and after.seq < last:
        events.append(
            HarnessEvent(
                event_id=f"ev_{len(events) + 1:03d}",
                seq=last,
                kind="harness_error",
                detail=f"the 'after' snapshot (seq {after.seq}) was taken before the trace ended "
                f"(seq {last}): its seq must follow the trace's events",
            )
        )
    start = trace.started or base_at
    finish = trace.finished or (after.taken_at if after else start)
    policy = (
        getattr(case.fixture, "policy_version", None)
        if case and records is None
        else trace.attributes.get("calibrant.policy")
    )
    # the unnamed files' pack's snapshots are given in its own model (its form reads them)
    generic: dict[str, Any] = {"ledger_before": ledger[0], "ledger_after": ledger[1]}
    if records is not None:
        generic = {"domain": domain, "snapshot_before": before, "snapshot_after": after}
    return Transcript(
        transcript_id=transcript_id_of(case_id, trace.trace_id),
        case_id=case_id,
        trial=trace.trial or 1,
        tags=list(case.tags) if case else [],
        acting_tenant=acting,
        agent_principal=agent_id,
        operation_ids=sorted(operation_ids),
        provenance=Provenance(
            agent=agent or f"imported:{fmt}",
            agent_model=trace.model,
            agent_version="imported",
            instructions_hash=content_hash(trace.instructions) if trace.instructions else None,
            tool_schema_version=f"imported:{fmt}",
            policy_version=_id(policy) or "unknown",
            harness_version=f"{IMPORT_VERSION}: imported from {fmt} {trace.where}",
            case_hash=content_hash(case) if case else None,
            started_at=start,
            finished_at=max(finish, start),
            benchmark_reward=trace.reward,
        ),
        case=case,
        conversation=turns,
        tool_calls=calls,
        notifications=NotificationSink(attempts=attempts),
        events=events,
        metrics=Metrics(
            latency_ms=trace.latency_ms or 0.0,
            tool_calls=len(calls),
            model_calls=trace.model_calls,
            input_tokens=trace.input_tokens,
            output_tokens=trace.output_tokens,
            cached_tokens=trace.cached_tokens,
            cost_usd=None,
        ),
        **generic,
    )


def _fallback_time(trace: ParsedTrace) -> datetime:
    """No time in the trace and no snapshot: the trace file's modification time."""
    return datetime.fromtimestamp(trace.source.stat().st_mtime, UTC)


def _error_of(result: JsonValue) -> str | None:
    if isinstance(result, dict) and "error" in result:
        err = result["error"]
        if isinstance(err, str) and err:
            return err[:200]
        if isinstance(err, dict) and isinstance(err.get("code"), str):
            return str(err["code"])[:200]
        return "error"
    return None


def _outcome(ev: TraceCall) -> tuple[Literal["ok", "error", "timeout"], str | None]:
    """The call's outcome and error code, from what came back to the agent."""
    error = _error_of(ev.result) if ev.answered else None
    # no answer, or a timeout answer: the agent never learned the outcome
    if not ev.answered or error == "timeout":
        return "timeout", error
    return ("error" if error else "ok"), error


def _tool_call(
    ev: TraceCall,
    seq: int,
    when: datetime,
    acting: str,
    principal: str,
    ledger: tuple[LedgerSnapshot | None, LedgerSnapshot | None],
    records: DomainRecords | None,
) -> ToolCall:
    """One call: the refund shop's from its ledger (`records` None); another domain's through
    its pack's roles, its writes set once every call is known (`DomainRecords.writes`). The
    trace does not hold the service's authorization decision; another domain's grant is not
    looked up (calibrant does not know which scope its tools need)."""
    outcome, error = _outcome(ev)
    if records is None:
        before, after = ledger
        scope = WRITE_SCOPES.get(ev.tool)
        grant = _grant(before, acting, principal, scope, when)
        authorization = Authorization(decision="allowed", scope=scope, permission_id=grant)
        reads = _reads(ev.result, acting, before, after) if outcome == "ok" else []
        writes = _writes(ev, before, after)
    else:
        authorization = Authorization(decision="allowed")
        reads = records.reads(ev.result, acting) if outcome == "ok" else []
        writes = []
    return ToolCall(
        call_id=ev.call_id,
        seq=seq,
        at=when,
        tool=ev.tool,
        principal=principal,
        tenant_id=acting,
        arguments=ev.arguments,
        authorization=authorization,
        reads=reads,
        writes=writes,
        outcome=outcome,
        error=error,
        response=ev.result if ev.answered else None,
        message_id=ev.message_id,
    )


def _grant(
    before: LedgerSnapshot | None, tenant: str, principal: str, scope: str | None, when: datetime
) -> str | None:
    """The agent's grant for `scope` in the 'before' snapshot (one valid at `when` if any)."""
    snap = before.tenant(tenant) if before and scope else None
    grants = [p for p in (snap.permissions if snap else []) if p.principal == principal]
    grants = [p for p in grants if scope in p.scopes]
    valid = [
        p for p in grants if p.revoked_seq is None and (p.expires_at is None or p.expires_at > when)
    ]
    chosen = (valid or grants)[:1]
    return chosen[0].permission_id if chosen else None


def _mentions(text: str, value: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(value)}(?![A-Za-z0-9_])", text) is not None


def _reads(
    result: JsonValue, acting: str, before: LedgerSnapshot | None, after: LedgerSnapshot | None
) -> list[RecordRef]:
    """The system's records a call returned: those whose id (or a customer's email) appears in
    what came back. The ids are the system of record's; the response only says which came back."""
    text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
    out: dict[tuple[str, str], RecordRef] = {}
    own: set[str] = set()  # ids the acting tenant holds: shared ids (a policy) count as its own
    tenants = [t for snap in (before, after) for t in (snap.tenants if snap else [])]
    tenants.sort(key=lambda t: t.tenant_id != acting)
    for t in tenants:
        found: list[tuple[Any, str, tuple[str, ...]]] = [
            *(("order", o.order_id, (o.order_id,)) for o in t.orders),
            *(("customer", c.customer_id, (c.customer_id, c.email)) for c in t.customers),
            *(("refund", r.refund_id, (r.refund_id,)) for r in t.refunds),
            *(("policy", p.policy_id, (p.policy_id,)) for p in t.policies),
            *(("ticket", k.ticket_id, (k.ticket_id,)) for k in t.tickets),
        ]
        for kind, rid, keys in found:
            if t.tenant_id == acting:
                own.add(rid)
            elif rid in own:
                continue
            if (t.tenant_id, rid) not in out and any(_mentions(text, k) for k in keys):
                out[(t.tenant_id, rid)] = RecordRef(tenant_id=t.tenant_id, kind=kind, record_id=rid)
    return list(out.values())


def _writes(
    ev: TraceCall, before: LedgerSnapshot | None, after: LedgerSnapshot | None
) -> list[CommittedWrite]:
    """What the system of record says this call committed: new refunds and new audit events
    that name its call id."""
    if after is None:
        return []
    out: list[CommittedWrite] = []
    expected = ev.arguments.get("expected_version")
    for t in after.tenants:
        old = before.tenant(t.tenant_id) if before else None
        old_refunds = {r.refund_id for r in old.refunds} if old else set()
        old_events = {e.event_id for e in old.audit_log} if old else set()
        mine = [r for r in t.refunds if r.call_id == ev.call_id and r.refund_id not in old_refunds]
        for r in mine:
            out.append(
                CommittedWrite(
                    tenant_id=r.tenant_id,
                    kind="refund",
                    record_id=r.refund_id,
                    action="create",
                    operation_id=r.operation_id,
                    target_id=r.order_id,
                    expected_version=expected if isinstance(expected, int) else None,
                    amount_minor_units=r.amount_minor_units,
                )
            )
        refund_ids = {r.refund_id for r in mine}
        for e in t.audit_log:
            if e.call_id != ev.call_id or e.event_id in old_events or e.record_id in refund_ids:
                continue
            created = e.action.rsplit(".", 1)[-1] in _CREATED
            out.append(
                CommittedWrite(
                    tenant_id=e.tenant_id,
                    kind=e.record_kind,
                    record_id=e.record_id,
                    action="create" if created else "update",
                    operation_id=e.operation_id,
                )
            )
    return out


def _attempt(call: ToolCall, *, refunds: bool) -> NotificationAttempt | None:
    """What the agent asked the receiver to send. The receiver's records are not in a trace:
    the attempt counts as sent (the conservative reading: a false confirmation the agent tried
    to send is a violation whether or not it was delivered). A refund shop message names its
    recipient; another domain's service may resolve it (the booking's traveller): without a
    `recipient` argument it is NO_RECIPIENT, and its order and amount fields stay empty."""
    a = call.arguments
    recipient, body = a.get("recipient"), a.get("body")
    if not isinstance(body, str):
        return None
    if not isinstance(recipient, str) or not recipient:
        if refunds:
            return None
        recipient = NO_RECIPIENT
    amount = a.get("amount_minor_units")
    if refunds:
        kind = a.get("kind") if a.get("kind") in _NOTE_KINDS else "other"
        order_id = _id(a.get("order_id"))
        if not isinstance(amount, int) or isinstance(amount, bool) or amount < 0:
            amount = None
    else:
        kind = _id(a.get("kind")) or "other"
        order_id = amount = None
    key = a.get("idempotency_key")
    return NotificationAttempt(
        attempt_id=f"att_{call.call_id}"[:200],
        seq=call.seq,
        at=call.at,
        call_id=call.call_id,
        tenant_id=call.tenant_id,
        idempotency_key=key if isinstance(key, str) and key else call.call_id,
        recipient=recipient,
        kind=kind,
        order_id=order_id,
        amount_minor_units=amount,
        subject=str(a.get("subject") or ""),
        body=body,
        result="accepted",
    )
