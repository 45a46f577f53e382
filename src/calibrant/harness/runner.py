"""The trial runner: clean fixtures, the same customer script and fault schedule every trial,
crash and resume, evaluator snapshots, one Transcript per trial."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .. import __version__
from ..contracts import (
    CaseContract,
    Metrics,
    Provenance,
    Sampling,
    Transcript,
    Turn,
    content_hash,
)
from ..domains import AgentCall, PackAgent
from ..engine import Service
from ..ledger import PRINCIPALS, Caller, advance, at, create_trial_service, notification_sink
from ..ledger import snapshot as take_snapshot
from .agents import Agent, AgentContext, Usage, make_agent
from .checkpoint import CheckpointStore
from .toolbox import AgentCrash, Recorder, ToolBox
from .toolspec import TOOL_SCHEMA_VERSION

__all__ = [
    "HARNESS_VERSION",
    "run_trial",
    "transcript_filename",
    "MAX_RESUMES",
    "agent_reply",
    "trial_metrics",
    "trial_provenance",
]

HARNESS_VERSION = f"calibrant-harness/{__version__}"
MAX_RESUMES = 3


def transcript_filename(transcript_id: str) -> str:
    """A file name for a transcript id (':' and '/' are not safe in file names)."""
    return re.sub(r"[^A-Za-z0-9_.@+-]", "-", transcript_id) + ".json"


def _default_script(case: CaseContract) -> list[str]:
    return [f"Hi, my order {case.refunds_fixture.order} arrived damaged. Can I get a refund?"]


def run_trial(
    case: CaseContract,
    agent_name: str,
    *,
    trial: int,
    seed: int,
    workdir: Path,
    agent_factory: Callable[[str], Agent] = make_agent,
) -> Transcript:
    """Run one trial of `agent_name` on `case` from a fresh SQLite file in `workdir`."""
    started, t0 = datetime.now(UTC), time.perf_counter()
    transcript_id = f"{case.case}:{agent_name}:s{seed}:t{trial}"
    tag = transcript_filename(f"{case.case}-{agent_name}-s{seed}-t{trial}")[:-5]
    workdir.mkdir(parents=True, exist_ok=True)
    svc = create_trial_service(workdir / f"{tag}.ledger.sqlite", case.refunds_fixture)
    ckpt_path = workdir / f"{tag}.checkpoints.sqlite"
    ckpt_path.unlink(missing_ok=True)
    before = take_snapshot(svc)
    tenant = case.refunds_fixture.tenant
    agent_id = PRINCIPALS.agent[tenant]
    snap = before.tenant(tenant)
    assert snap is not None
    order = next(o for o in snap.orders if o.order_id == case.refunds_fixture.order)
    customer = next(c for c in snap.customers if c.customer_id == order.customer_id)
    ticket = next(t for t in snap.tickets if t.order_id == case.refunds_fixture.order)
    rec = Recorder()
    tools = ToolBox(svc, Caller(agent_id, tenant), case.faults, rec, order_id=order.order_id)
    ctx = AgentContext(
        tools=tools,
        tenant_id=tenant,
        ticket_id=ticket.ticket_id,
        order_id=order.order_id,
        customer_id=customer.customer_id,
        customer_name=customer.name,
        customer_email=customer.email,
        checkpoints=CheckpointStore(ckpt_path),
        rng=random.Random(f"{seed}:{case.case}:{trial}"),
        escalation_person=PRINCIPALS.staff[tenant],
        trial_id=transcript_id,
    )
    agent = agent_factory(agent_name)
    turns: list[Turn] = []

    def turn(role: str, text: str) -> None:
        seq = advance(svc)
        turns.append(
            Turn(turn_id=f"turn_{len(turns) + 1:02d}", seq=seq, at=at(seq), role=role, text=text)
        )

    for message in case.customer_script or _default_script(case):
        turn("customer", message)
        reply = agent_reply(agent, agent_name, agent_factory, ctx, message, rec, svc)
        if reply is None:
            break
        turn("agent", reply)
    after = take_snapshot(svc)
    svc.engine.dispose()
    ctx.checkpoints.close()
    return Transcript(
        domain=case.domain,  # a trial is of its case's domain
        transcript_id=transcript_id,
        case_id=case.case,
        trial=trial,
        tags=list(case.tags),
        acting_tenant=tenant,
        agent_principal=agent_id,
        operation_ids=sorted(
            {
                str(c.arguments["operation_id"])
                for c in rec.calls
                if c.tool == "create_refund"
                and c.arguments.get("operation_id")
                and c.error != "invalid_argument"  # never an operation: refused before any write
            }
        ),
        provenance=trial_provenance(
            agent,
            agent_name,
            case,
            seed=seed,
            started=started,
            policy_version=case.refunds_fixture.policy_version,
            tool_schema_version=TOOL_SCHEMA_VERSION,
            harness_version=HARNESS_VERSION,
        ),
        case=case,
        conversation=turns,
        tool_calls=rec.calls,
        notifications=notification_sink(svc),
        events=rec.events,
        ledger_before=before,
        ledger_after=after,
        metrics=trial_metrics(t0, len(rec.calls), ctx.usage),
    )


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
