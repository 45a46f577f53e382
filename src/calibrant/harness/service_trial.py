"""One trial of a pack's agent on a pack's controlled service, set up the way every simulating
pack sets it up (`run_service_trial`): a fresh SQLite file, the evaluator's snapshot before, the
agent's tool box and context, the customer script through `converse`, the snapshot after, the
transcript. A pack's `PackRuntime.run_trial` passes what is its own: the service, the
snapshot, the tools and fault points, the agent's context and the opening message."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol, TypeVar

from ..contracts import CaseContract, DomainSnapshot, Transcript
from ..domains import AgentCall
from ..engine import Caller, FaultPointDecl, Recorder, Service, ToolBox, ToolSet
from .checkpoint import CheckpointStore
from .runner import converse, transcript_filename, trial_transcript

__all__ = ["AgentContextFactory", "run_service_trial"]

S = TypeVar("S", bound=Service)


class AgentContextFactory(Protocol):
    """What makes the agent's context for one trial (a pack's context class, or a
    `functools.partial` of it binding what else it needs): called with the trial's tool box,
    its checkpoint store, its seeded random source and the transcript id."""

    def __call__(
        self, *, tools: ToolBox, checkpoints: CheckpointStore, rng: random.Random, trial_id: str
    ) -> Any: ...


def run_service_trial(
    case: CaseContract,
    agent_name: str,
    *,
    trial: int,
    seed: int,
    workdir: Path,
    agent_factory: AgentCall,
    service: Callable[[Path], S],
    snapshot: Callable[[S], DomainSnapshot],
    tenant: str,
    agent_principal: str,
    tools: ToolSet,
    context: AgentContextFactory,
    opening: str,
    versions: tuple[str, str, str],
    fault_points: Sequence[FaultPointDecl] = (),
    tool_context: Mapping[str, str] | None = None,
    database: str = "service",
) -> Transcript:
    """One trial of `agent_name` on `case` (what `PackRuntime.run_trial` returns), from a fresh
    service: `service(path)` builds it on a new SQLite file `workdir/<trial>.<database>.sqlite`
    (`workdir` is made if missing), `snapshot(svc)` is the evaluator's snapshot, taken before
    the first message and after the last. The agent `agent_factory(agent_name)` acts as
    `agent_principal` of `tenant` through a `ToolBox` of `tools` (the case's faults scheduled on
    `fault_points`; `tool_context` is what fault points may read), with the context
    `context(tools=, checkpoints=, rng=, trial_id=)`: a fresh checkpoint store in `workdir`, a
    random source seeded by seed, case and trial. The case's customer script is sent one message
    at a time (`opening` alone when it has none), with crash and resume (`converse`). The
    transcript is `trial_transcript`'s, `versions` the policy, tool schema and harness
    versions, in that order."""
    started, t0 = datetime.now(UTC), time.perf_counter()
    transcript_id = f"{case.case}:{agent_name}:s{seed}:t{trial}"
    tag = transcript_filename(f"{case.case}-{agent_name}-s{seed}-t{trial}")[:-5]
    workdir.mkdir(parents=True, exist_ok=True)
    svc = service(workdir / f"{tag}.{database}.sqlite")
    ckpt_path = workdir / f"{tag}.checkpoints.sqlite"
    ckpt_path.unlink(missing_ok=True)
    before = snapshot(svc)
    rec = Recorder()
    box = ToolBox(
        svc,
        Caller(agent_principal, tenant),
        case.faults,
        rec,
        tools=tools,
        fault_points=fault_points,
        context=dict(tool_context or {}),
    )
    checkpoints = CheckpointStore(ckpt_path)
    ctx = context(
        tools=box,
        checkpoints=checkpoints,
        rng=random.Random(f"{seed}:{case.case}:{trial}"),
        trial_id=transcript_id,
    )
    agent = agent_factory(agent_name)
    script = case.customer_script or [opening]
    turns = converse(agent, agent_name, agent_factory, ctx, script, rec, svc)
    after = snapshot(svc)
    svc.engine.dispose()
    checkpoints.close()
    return trial_transcript(
        case,
        agent,
        agent_name,
        trial=trial,
        seed=seed,
        started=started,
        t0=t0,
        tenant=tenant,
        agent_principal=agent_principal,
        svc=svc,
        rec=rec,
        turns=turns,
        before=before,
        after=after,
        usage=ctx.usage,
        versions=versions,
    )
