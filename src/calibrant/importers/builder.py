"""One parsed trace + the team's system-of-record snapshots -> one calibrant transcript.

The trusted parts come only from the snapshots (read by an evaluator identity), carried as
`snapshot_before` / `snapshot_after` (each tenant's records by kind) and read through the pack's
roles and import rules (`importers.records`, `DomainPack.imports`): the records a call returned
(those whose ids appear in what it returned), the writes each call committed and the grant its
tool needs. What the agent's tools answered is kept verbatim as the call's response — what the
agent saw — and never becomes evidence of what happened. Every pack is imported this way; its
files' own spelling is its form's business when the transcript is written."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Literal

from pydantic import JsonValue

from .. import __version__
from ..contracts import (
    Authorization,
    CaseContract,
    DomainSnapshot,
    HarnessEvent,
    Metrics,
    NotificationAttempt,
    NotificationSink,
    Provenance,
    ToolCall,
    Transcript,
    Turn,
    content_hash,
)
from ..domains import DomainPack
from ..errors import InputError
from .model import ATTR_CASE, ATTR_PRINCIPAL, ATTR_TENANT, ParsedTrace, TraceCall, TraceTurn
from .records import DomainRecords

__all__ = ["IMPORT_VERSION", "NO_RECIPIENT", "build_transcript", "transcript_id_of"]

IMPORT_VERSION = f"calibrant-import/{__version__}"
_ID = re.compile(r"^[A-Za-z0-9_.:\-/@+]{1,200}$")
_ID_HELP = "use only letters, digits and _ . : - / @ + (at most 200)"
NO_RECIPIENT = "not in the trace"
"""A message's recipient when the call named none (its service resolves it)."""


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
    before: DomainSnapshot | None,
    after: DomainSnapshot | None,
    missing: dict[str, str],
    tenant: str | None,
    principal: str | None,
    agent: str | None,
    pack: DomainPack,
) -> Transcript:
    """The transcript of `trace`, a trace of `pack`'s domain; `missing` names the snapshots that
    were not given."""
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
        call = _tool_call(ev, seq, when, acting, agent_id, records)
        calls.append(call)
        if call.tool == "send_notification" and (made := _attempt(call, pack)) is not None:
            attempts.append(made)
    rules = pack.imports
    made_by = rules.writes(calls, before, after) if rules.writes else records.writes(calls)
    for c in calls:
        c.writes = made_by.get(c.call_id, [])
    events = [
        HarnessEvent(
            event_id=f"ev_{n:03d}",
            seq=base_seq,
            kind="harness_error",
            detail=f"the system-of-record snapshot {which} the trace is missing ({where}): "
            f"nothing about {rules.unknown} can be established",
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
    fixed = getattr(case.fixture, "policy_version", None) if case else None
    policy = fixed or trace.attributes.get("calibrant.policy")
    return Transcript(
        transcript_id=transcript_id_of(case_id, trace.trace_id),
        case_id=case_id,
        trial=trace.trial or 1,
        tags=list(case.tags) if case else [],
        acting_tenant=acting,
        agent_principal=agent_id,
        operation_ids=sorted(_operation_ids(pack, calls)),
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
        domain=pack.name,
        snapshot_before=before,
        snapshot_after=after,
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
    ev: TraceCall, seq: int, when: datetime, acting: str, principal: str, records: DomainRecords
) -> ToolCall:
    """One call, its reads and grant from the snapshots through the pack (its writes are set
    once every call is known). The trace does not hold the service's authorization decision:
    it is `allowed`, with the grant the pack's rules say the tool needs (if any)."""
    outcome, error = _outcome(ev)
    scope = records.pack.imports.scopes.get(ev.tool)
    grant = records.grant(acting, principal, scope, when)
    return ToolCall(
        call_id=ev.call_id,
        seq=seq,
        at=when,
        tool=ev.tool,
        principal=principal,
        tenant_id=acting,
        arguments=ev.arguments,
        authorization=Authorization(decision="allowed", scope=scope, permission_id=grant),
        reads=records.reads(ev.result, acting) if outcome == "ok" else [],
        writes=[],
        outcome=outcome,
        error=error,
        response=ev.result if ev.answered else None,
        message_id=ev.message_id,
    )


def _operation_ids(pack: DomainPack, calls: list[ToolCall]) -> set[str]:
    """The operation ids of the trace: those the effects' tools sent, when the pack's rules say
    so (`ImportRules.sent_operations`); else those of the writes tied to a call."""
    if not pack.imports.sent_operations:
        return {w.operation_id for c in calls for w in c.writes if w.operation_id}
    return {
        op
        for c in calls
        for e in pack.effects
        if c.tool in e.tools and (op := _id(c.arguments.get(e.operation_argument)))
    }


def _message(arguments: dict[str, JsonValue]) -> dict[str, JsonValue]:
    """A message's fields by the roles alone: its recipient (NO_RECIPIENT when the call named
    none) and its kind when it is an id."""
    recipient = arguments.get("recipient")
    return {
        "recipient": recipient if isinstance(recipient, str) and recipient else NO_RECIPIENT,
        "kind": _id(arguments.get("kind")) or "other",
    }


def _attempt(call: ToolCall, pack: DomainPack) -> NotificationAttempt | None:
    """What the agent asked the receiver to send. The receiver's records are not in a trace:
    the attempt counts as sent (the conservative reading: a false confirmation the agent tried
    to send is a violation whether or not it was delivered). Its recipient, kind, and the
    record and amount it names come from the pack's rules (`ImportRules.message`)."""
    a = call.arguments
    body = a.get("body")
    if not isinstance(body, str):
        return None
    rule = pack.imports.message
    fields = rule(a) if rule is not None else _message(a)
    if fields is None:
        return None
    key = a.get("idempotency_key")
    return NotificationAttempt(
        attempt_id=f"att_{call.call_id}"[:200],
        seq=call.seq,
        at=call.at,
        call_id=call.call_id,
        tenant_id=call.tenant_id,
        idempotency_key=key if isinstance(key, str) and key else call.call_id,
        subject=str(a.get("subject") or ""),
        body=body,
        result="accepted",
        **fields,
    )
