"""One parsed trace + the team's system-of-record snapshots -> one calibrant transcript.

The trusted parts come only from the snapshots (read by an evaluator identity): the ledger before
and after, the writes each tool call committed (the refunds and audit events that name its call
id) and the records a call returned (the system's records whose ids appear in what the call
returned). What the agent's tools answered is kept verbatim as the call's response — what the
agent saw — and never becomes evidence of what happened."""

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
from ..errors import InputError
from .model import ATTR_CASE, ATTR_PRINCIPAL, ATTR_TENANT, ParsedTrace, TraceCall, TraceTurn

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
_NOTE_KINDS = ("refund_confirmation", "status_update", "escalation_notice", "other")
_CREATED = ("create", "created", "committed", "requested")


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
            trace.where, f"no {flag[2:].replace('-', ' ')}: give {flag} or set the attribute {key}"
        )
    if _id(value) is None:
        raise InputError(trace.where, f"{value!r} is not an identifier", field=key)
    return value


def build_transcript(
    trace: ParsedTrace,
    *,
    fmt: str,
    case: CaseContract | None,
    before: LedgerSnapshot | None,
    after: LedgerSnapshot | None,
    missing: dict[str, str],
    tenant: str | None,
    principal: str | None,
    agent: str | None,
) -> Transcript:
    """The transcript of `trace`; `missing` names the snapshots that were not given."""
    case_id = case.case if case else trace.attributes.get(ATTR_CASE)
    if case and trace.attributes.get(ATTR_CASE) not in (None, case.case):
        raise InputError(
            trace.where,
            f"the trace names case {trace.attributes[ATTR_CASE]}, --case is {case.case}",
            field=ATTR_CASE,
        )
    if not case_id:
        raise InputError(trace.where, f"no case: give --case or set the attribute {ATTR_CASE}")
    if _id(case_id) is None:
        raise InputError(trace.where, f"{case_id!r} is not an identifier", field=ATTR_CASE)
    if _id(trace.trace_id) is None:
        raise InputError(
            trace.where,
            f"trace id {trace.trace_id!r} is not an identifier (letters, digits, _.:-/@+)",
            field="id",
        )
    default_tenant = case.refunds_fixture.tenant if case else None
    acting = _attr(trace, tenant, ATTR_TENANT, "--tenant", default_tenant)
    agent_id = _attr(trace, principal, ATTR_PRINCIPAL, "--agent-principal")
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
                )
            )
            continue
        if _id(ev.call_id) is None:
            raise InputError(ev.where, f"tool call id {ev.call_id!r} is not an identifier")
        if ev.call_id in seen_ids:
            raise InputError(ev.where, f"tool call id {ev.call_id} repeats", field="id")
        seen_ids.add(ev.call_id)
        call = _tool_call(ev, seq, when, acting, agent_id, before, after)
        calls.append(call)
        if call.tool == "send_notification":
            if (attempt := _attempt(call)) is not None:
                attempts.append(attempt)
    events = [
        HarnessEvent(
            event_id=f"ev_{n:03d}",
            seq=base_seq,
            kind="harness_error",
            detail=f"the system-of-record snapshot {which} the trace is missing ({where}): "
            "nothing about the ledger can be established",
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
        case.refunds_fixture.policy_version if case else trace.attributes.get("calibrant.policy")
    )
    return Transcript(
        transcript_id=transcript_id_of(case_id, trace.trace_id),
        case_id=case_id,
        trial=1,
        tags=list(case.tags) if case else [],
        acting_tenant=acting,
        agent_principal=agent_id,
        operation_ids=sorted(
            {
                op
                for c in calls
                if c.tool == "create_refund" and (op := _id(c.arguments.get("operation_id")))
            }
        ),
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
        ),
        case=case,
        conversation=turns,
        tool_calls=calls,
        notifications=NotificationSink(attempts=attempts),
        events=events,
        ledger_before=before,
        ledger_after=after,
        metrics=Metrics(
            latency_ms=trace.latency_ms or 0.0,
            tool_calls=len(calls),
            model_calls=trace.model_calls,
            input_tokens=trace.input_tokens,
            output_tokens=trace.output_tokens,
            cached_tokens=trace.cached_tokens,
            cost_usd=None,
        ),
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


def _tool_call(
    ev: TraceCall,
    seq: int,
    when: datetime,
    acting: str,
    principal: str,
    before: LedgerSnapshot | None,
    after: LedgerSnapshot | None,
) -> ToolCall:
    error = _error_of(ev.result) if ev.answered else None
    # no answer, or a timeout answer: the agent never learned the outcome
    outcome: Literal["ok", "error", "timeout"] = (
        "timeout" if not ev.answered or error == "timeout" else "error" if error else "ok"
    )
    scope = WRITE_SCOPES.get(ev.tool)
    return ToolCall(
        call_id=ev.call_id,
        seq=seq,
        at=when,
        tool=ev.tool,
        principal=principal,
        tenant_id=acting,
        arguments=ev.arguments,
        authorization=Authorization(
            decision="allowed",
            scope=scope,
            permission_id=_grant(before, acting, principal, scope, when),
        ),
        reads=_reads(ev.result, acting, before, after) if outcome == "ok" else [],
        writes=_writes(ev, before, after),
        outcome=outcome,
        error=error,
        response=ev.result if ev.answered else None,
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
                    order_id=r.order_id,
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


def _attempt(call: ToolCall) -> NotificationAttempt | None:
    """What the agent asked the receiver to send. The receiver's records are not in a trace:
    the attempt counts as sent (the conservative reading: a false confirmation the agent tried
    to send is a violation whether or not it was delivered)."""
    a = call.arguments
    recipient, body = a.get("recipient"), a.get("body")
    if not isinstance(recipient, str) or not recipient or not isinstance(body, str):
        return None
    kind = a.get("kind") if a.get("kind") in _NOTE_KINDS else "other"
    amount = a.get("amount_minor_units")
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
        order_id=_id(a.get("order_id")),
        amount_minor_units=amount
        if isinstance(amount, int) and not isinstance(amount, bool) and amount >= 0
        else None,
        subject=str(a.get("subject") or ""),
        body=body,
        result="accepted",
    )
