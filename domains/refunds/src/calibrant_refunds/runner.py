"""The refund shop's trial runner: a clean ledger from the case's fixture, the customer script
one message at a time with crash and resume (the core's `converse`), the evaluator's ledger
snapshots, one Transcript per trial."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from calibrant.contracts import CaseContract, Transcript
from calibrant.harness.checkpoint import CheckpointStore
from calibrant.harness.runner import (
    HARNESS_VERSION,
    converse,
    transcript_filename,
    trial_transcript,
)

from .agents import Agent, AgentContext, make_agent
from .case_models import refunds_fixture
from .form import generic
from .ledger import PRINCIPALS, Caller, create_trial_service
from .ledger import snapshot as take_snapshot
from .toolbox import Recorder, ToolBox
from .toolspec import TOOL_SCHEMA_VERSION

__all__ = ["run_trial"]


def _default_script(case: CaseContract) -> list[str]:
    return [f"Hi, my order {refunds_fixture(case).order} arrived damaged. Can I get a refund?"]


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
    svc = create_trial_service(workdir / f"{tag}.ledger.sqlite", refunds_fixture(case))
    ckpt_path = workdir / f"{tag}.checkpoints.sqlite"
    ckpt_path.unlink(missing_ok=True)
    before = take_snapshot(svc)
    tenant = refunds_fixture(case).tenant
    agent_id = PRINCIPALS.agent[tenant]
    snap = before.tenant(tenant)
    assert snap is not None
    order = next(o for o in snap.orders if o.order_id == refunds_fixture(case).order)
    customer = next(c for c in snap.customers if c.customer_id == order.customer_id)
    ticket = next(t for t in snap.tickets if t.order_id == refunds_fixture(case).order)
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
    script = case.customer_script or _default_script(case)
    turns = converse(agent, agent_name, agent_factory, ctx, script, rec, svc)
    after = take_snapshot(svc)
    svc.engine.dispose()
    ctx.checkpoints.close()
    return trial_transcript(
        case,
        agent,
        agent_name,
        trial=trial,
        seed=seed,
        started=started,
        t0=t0,
        tenant=tenant,
        agent_principal=agent_id,
        svc=svc,
        rec=rec,
        turns=turns,
        before=generic(before),
        after=generic(after),
        usage=ctx.usage,
        versions=(refunds_fixture(case).policy_version, TOOL_SCHEMA_VERSION, HARNESS_VERSION),
        operation_tools=("create_refund",),
    )
