"""What every domain's trial runner shares: the harness version, transcript file names, the
conversation loop (`converse`: the customer script, the agent's replies with crash and resume,
at most MAX_RESUMES), the operation ids, a trial's provenance and metrics. A pack's runtime
runs its trials with them (`calibrant.domains.PackRuntime.run_trial`): it supplies the service,
the agent's context and the snapshots."""

from __future__ import annotations

import re
import time
from collections.abc import Collection, Sequence
from datetime import UTC, datetime
from typing import Any

from .. import __version__
from ..contracts import (
    CaseContract,
    DomainSnapshot,
    Metrics,
    Provenance,
    Sampling,
    Transcript,
    Turn,
    content_hash,
)
from ..domains import AgentCall, PackAgent
from ..engine import AgentCrash, Recorder, Service, advance, notification_sink
from .agents import Usage

__all__ = [
    "HARNESS_VERSION",
    "transcript_filename",
    "MAX_RESUMES",
    "agent_reply",
    "converse",
    "operation_ids",
    "trial_metrics",
    "trial_provenance",
    "trial_transcript",
]

HARNESS_VERSION = f"calibrant-harness/{__version__}"
MAX_RESUMES = 3


def transcript_filename(transcript_id: str) -> str:
    """A file name for a transcript id (':' and '/' are not safe in file names)."""
    return re.sub(r"[^A-Za-z0-9_.@+-]", "-", transcript_id) + ".json"


def trial_provenance(
    agent: PackAgent,
    agent_name: str,
    case: CaseContract,
    *,
    seed: int,
    started: datetime,
    policy_version: str,
    tool_schema_version: str,
    harness_version: str,
) -> Provenance:
    """What produced a trial of `case`: the agent (its name, model, version, instructions and
    sampling: none for an agent that declares none), the tools, policy and harness versions,
    the case's faults and content hash, the seed, and when it ran (until now)."""
    sampling = getattr(agent, "sampling", None)
    return Provenance(
        agent=agent_name,
        agent_model=agent.model,
        agent_version=agent.version,
        instructions_hash=agent.instructions_hash,
        tool_schema_version=tool_schema_version,
        policy_version=policy_version,
        harness_version=harness_version,
        sampling=sampling if isinstance(sampling, Sampling) else Sampling(),
        fault_schedule=list(case.faults),
        case_hash=content_hash(case),
        seed=seed,
        started_at=started,
        finished_at=datetime.now(UTC),
    )


def trial_metrics(t0: float, tool_calls: int, usage: Usage) -> Metrics:
    """A trial's metrics: wall time since `t0` (`time.perf_counter()`), its tool calls and the
    model usage its agent reported."""
    return Metrics(
        latency_ms=(time.perf_counter() - t0) * 1000,
        tool_calls=tool_calls,
        model_calls=usage.model_calls,
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cached_tokens=usage.cached_tokens,
        # no model call costs nothing; a model call with an unknown price stays unknown
        cost_usd=usage.cost_usd if usage.model_calls else 0.0,
    )


def converse(
    agent: PackAgent,
    agent_name: str,
    factory: AgentCall,
    ctx: Any,
    script: Sequence[str],
    rec: Recorder,
    svc: Service,
) -> list[Turn]:
    """The conversation of one trial, the loop every domain's runner shares: each message of
    the customer `script` in turn, then the agent's reply (`agent_reply`: crash and resume),
    each turn one instant of the service's logical clock. It stops after the customer's message
    the harness failed to answer (the failure is an event in `rec`, never dropped)."""
    turns: list[Turn] = []

    def turn(role: str, text: str) -> None:
        seq = advance(svc)
        tid = f"turn_{len(turns) + 1:02d}"
        turns.append(Turn(turn_id=tid, seq=seq, at=svc.at(seq), role=role, text=text))

    for message in script:
        turn("customer", message)
        reply = agent_reply(agent, agent_name, factory, ctx, message, rec, svc)
        if reply is None:
            break
        turn("agent", reply)
    return turns


def operation_ids(rec: Recorder, tools: Collection[str] | None = None) -> list[str]:
    """The operation ids of a trial's calls (of `tools` only, when given), sorted: each call's
    `operation_id` argument, but for a call refused as an invalid argument (never an
    operation: refused before any write)."""
    return sorted(
        {
            str(c.arguments["operation_id"])
            for c in rec.calls
            if (tools is None or c.tool in tools)
            and c.arguments.get("operation_id")
            and c.error != "invalid_argument"
        }
    )


def _resume_detail(agent: PackAgent, ctx: Any) -> str:
    """What the resume event says: an external agent keeps its own checkpoint, out of sight."""
    if getattr(agent, "own_checkpoint", False):
        return "agent asked to restart; it resumes from its own durable checkpoint"
    return f"fresh agent resumed from checkpoint phase '{ctx.load().get('phase', 'none')}'"


def agent_reply(
    agent: PackAgent,
    agent_name: str,
    factory: AgentCall,
    ctx: Any,
    message: str,
    rec: Recorder,
    svc: Service,
) -> str | None:
    """The agent's reply to one message, resuming a fresh instance (`factory`) after each crash,
    at most MAX_RESUMES times. None: the harness failed (recorded as a harness_error event,
    never dropped). Any domain's runner uses it: `ctx` is its agent context (`load()` gives the
    checkpoint the resume event names), `svc` its controlled service."""
    for _ in range(MAX_RESUMES + 1):
        try:
            return agent.respond(ctx, message)
        except AgentCrash as crash:
            rec.event(svc.now(), "crash", str(crash))
            agent = factory(agent_name)
            rec.event(svc.now(), "resume", _resume_detail(agent, ctx))
        except Exception as exc:  # the agent or its model failed: a harness incident
            rec.event(svc.now(), "harness_error", _scrubbed(agent, exc)[:500])
            return None
    rec.event(svc.now(), "harness_error", f"agent crashed more than {MAX_RESUMES} times")
    return None


def _scrubbed(agent: PackAgent, exc: Exception) -> str:
    """The agent's error for the transcript, without credentials: URLs in it masked, and the
    endpoint's user, password and tokens (and secret environment values) replaced by ***, as
    the judge does with its own errors."""
    from ..contracts.judgment import mask_urls_in, url_secrets
    from ..judge.client import redact_secrets

    secrets = url_secrets(getattr(agent, "api_base", None))
    return redact_secrets(mask_urls_in(f"{type(exc).__name__}: {exc}"), secrets)


def trial_transcript(
    case: CaseContract,
    agent: PackAgent,
    agent_name: str,
    *,
    trial: int,
    seed: int,
    started: datetime,
    t0: float,
    tenant: str,
    agent_principal: str,
    svc: Service,
    rec: Recorder,
    turns: list[Turn],
    before: DomainSnapshot,
    after: DomainSnapshot,
    usage: Usage,
    versions: tuple[str, str, str],
    operation_tools: Collection[str] | None = None,
) -> Transcript:
    """The transcript of one finished trial of `agent_name` on `case` (id
    `{case}:{agent_name}:s{seed}:t{trial}`), as every pack's `run_trial` writes it: the
    conversation `turns`, the service's tool-call log and harness events (`rec`), the messages
    its notification sink accepted, the evaluator's snapshots `before` and `after`, the
    operation ids (of `operation_tools` only, when given), the provenance (`versions`: the
    policy, tool schema and harness versions, in that order) and the metrics since `t0`."""
    policy_version, tool_schema_version, harness_version = versions
    return Transcript(
        domain=case.domain,  # a trial is of its case's domain
        transcript_id=f"{case.case}:{agent_name}:s{seed}:t{trial}",
        case_id=case.case,
        trial=trial,
        tags=list(case.tags),
        acting_tenant=tenant,
        agent_principal=agent_principal,
        operation_ids=operation_ids(rec, operation_tools),
        provenance=trial_provenance(
            agent,
            agent_name,
            case,
            seed=seed,
            started=started,
            policy_version=policy_version,
            tool_schema_version=tool_schema_version,
            harness_version=harness_version,
        ),
        case=case,
        conversation=turns,
        tool_calls=rec.calls,
        notifications=notification_sink(svc),
        events=rec.events,
        snapshot_before=before,
        snapshot_after=after,
        metrics=trial_metrics(t0, len(rec.calls), usage),
    )
