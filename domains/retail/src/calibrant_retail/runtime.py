"""How calibrant runs the retail domain (`calibrant.domains.PackRuntime`): its scripted agents,
one trial of an agent on a case (a fresh shop, the customer script one message at a time, the
evaluator's snapshots) written as a calibrant `Transcript`, the tools an external agent is
served, and the pack's own invariants.

Imported only when a run needs it (`pack().runtime`), so listing packs imports no service."""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from calibrant import __version__
from calibrant.contracts.wire import ToolSpec
from calibrant.pack import (
    AgentCall,
    CaseContract,
    CheckpointStore,
    ConfigError,
    DomainFixture,
    DomainSnapshot,
    PackAgent,
    PackInvariant,
    SelftestEntry,
    ToolBox,
    Transcript,
    Usage,
    evaluator_snapshot,
    fault_tool_problems,
    run_service_trial,
)

from .agents import BEHAVIOURS, RetailAgent
from .cases import Fixture, fixture_of
from .invariants import INVARIANTS
from .service import AGENT, EVALUATOR, SHOP, SNAPSHOT_TABLES, TOOLS, RetailService, build_service
from .world import WORLD

__all__ = ["HARNESS_VERSION", "POLICY_VERSION", "RetailContext", "RetailRuntime", "domain_snapshot"]

HARNESS_VERSION = f"calibrant-retail-harness/{__version__}"
TOOL_SCHEMA_VERSION = "retail_tools_v1"
POLICY_VERSION = "tau2_retail_policy"


class RetailContext:
    """What a retail agent may use in one trial: its tools, what it is told about the trial
    (the shop only: who the customer is, it must find out), a durable checkpoint, a seeded
    random source and the model usage it reports."""

    def __init__(
        self, *, tools: ToolBox, checkpoints: CheckpointStore, rng: random.Random, trial_id: str
    ) -> None:
        self.tools, self.checkpoints, self.rng, self.trial_id = tools, checkpoints, rng, trial_id
        self.usage = Usage()
        self.thread = "main"

    def public_context(self) -> dict[str, Any]:
        return {"tenant_id": SHOP, "customer": "unknown until authenticated"}

    def save(self, state: dict[str, Any]) -> None:
        self.checkpoints.save(self.thread, state)

    def load(self) -> dict[str, Any]:
        return self.checkpoints.load(self.thread) or {}


def domain_snapshot(svc: RetailService) -> DomainSnapshot:
    """The shop's records by kind, read by the evaluator identity (never the agent's)."""
    return evaluator_snapshot(svc, SNAPSHOT_TABLES, taken_by=EVALUATOR).generic()


class RetailRuntime:
    """The retail pack's `PackRuntime`."""

    def agent_names(self) -> Sequence[str]:
        return [f"scripted:retail-{b}" for b in BEHAVIOURS]

    def make_agent(self, name: str, *, api_base: str | None = None) -> PackAgent:
        known = ", ".join(self.agent_names())
        kind, _, behaviour = name.partition(":")
        if kind != "scripted" or behaviour.removeprefix("retail-") not in BEHAVIOURS:
            raise ConfigError(f"unknown agent '{name}' for domain retail; known: {known}")
        if not behaviour.startswith("retail-"):
            raise ConfigError(f"unknown agent '{name}' for domain retail; known: {known}")
        return RetailAgent(behaviour.removeprefix("retail-"))

    def case_problems(self, case: CaseContract) -> Sequence[tuple[tuple[int | str, ...], str]]:
        fx = case.fixture
        if not isinstance(fx, DomainFixture):
            return [(("fixture",), "a retail case's fixture is the shop and its params")]
        problems: list[tuple[tuple[int | str, ...], str]] = []
        if fx.tenant != SHOP:
            problems.append((("fixture", "tenant"), f"the shop is the one tenant: '{SHOP}'"))
        if fx.records:
            problems.append(
                (
                    ("fixture", "records"),
                    "retail cases start from the pack's shop; records are not read",
                )
            )
        try:
            params = Fixture.model_validate(fx.params)
        except ValidationError as exc:
            err = exc.errors(include_url=False)[0]
            return [*problems, (("fixture", "params", *err["loc"]), err["msg"])]
        orders = {o.order_id for o in WORLD.orders}
        for order_id in params.order_status:
            if order_id not in orders:
                problems.append(
                    (
                        ("fixture", "params", "order_status", order_id),
                        f"no order {order_id} in the shop (order ids without '#')",
                    )
                )
        return problems + fault_tool_problems(case, TOOLS.names())

    def run_trial(
        self,
        case: CaseContract,
        agent_name: str,
        *,
        trial: int,
        seed: int,
        workdir: Path,
        agent_factory: AgentCall,
    ) -> Transcript:
        tenant, fx = fixture_of(case)
        return run_service_trial(
            case,
            agent_name,
            trial=trial,
            seed=seed,
            workdir=workdir,
            agent_factory=agent_factory,
            service=partial(build_service, fx=fx),
            database="retail",
            snapshot=domain_snapshot,
            tenant=tenant,
            agent_principal=AGENT,
            tools=TOOLS,
            context=RetailContext,
            opening="Hello.",
            versions=(POLICY_VERSION, TOOL_SCHEMA_VERSION, HARNESS_VERSION),
        )

    def tool_specs(self) -> Sequence[ToolSpec]:
        return TOOLS.specs()

    def tool_schema_version(self) -> str | None:
        return TOOL_SCHEMA_VERSION

    def service_name(self) -> str | None:
        return "shop service (retail, after tau2-bench)"

    def invariants(self) -> Sequence[PackInvariant]:
        return list(INVARIANTS)

    def selftest_plan(self) -> Sequence[SelftestEntry]:
        from .selftest import PLAN

        return PLAN
