"""How calibrant runs the travel domain (`calibrant.domains.PackRuntime`): its scripted agents,
one trial of an agent on a case (a fresh service, the customer script one message at a time,
crash and resume from the trial's durable checkpoint, the evaluator's snapshots) written as a
calibrant `Transcript`, the tools an external agent is served, and the pack's own invariants.

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
    MAX_RESUMES,
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

from .agents import BEHAVIOURS, TravelAgent
from .cases import Fixture, fixture_of
from .invariants import INVARIANTS
from .service import (
    AGENT,
    EVALUATOR,
    FAULT_POINTS,
    OTHER_AGENCY,
    SNAPSHOT_TABLES,
    TOOLS,
    TravelService,
    build_service,
)
from .wording import STYLES

__all__ = [
    "ESCALATION",
    "HARNESS_VERSION",
    "MAX_RESUMES",
    "POLICY_VERSION",
    "TOOL_SCHEMA_VERSION",
    "TravelContext",
    "TravelRuntime",
    "domain_snapshot",
]

HARNESS_VERSION = f"calibrant-travel-harness/{__version__}"
TOOL_SCHEMA_VERSION = "travel_tools_v2"
"""v2: send_notification takes an optional `recipient`."""
POLICY_VERSION = "change_v2"
ESCALATION = "person:travel.supervisor"


class TravelContext:
    """What a travel agent may use in one trial: its tools (the engine's tool box, with
    `call` and `call_json`), what it is told about the trial (`public_context`), a durable
    checkpoint that survives a crash within the trial (`save`/`load`), a seeded random source
    (for wording only) and the model usage it reports."""

    def __init__(
        self,
        *,
        tools: ToolBox,
        tenant_id: str,
        fixture: Fixture,
        checkpoints: CheckpointStore,
        rng: random.Random,
        trial_id: str,
        escalation_person: str = ESCALATION,
    ) -> None:
        self.tools, self.tenant_id, self.fixture = tools, tenant_id, fixture
        self.checkpoints, self.rng, self.trial_id = checkpoints, rng, trial_id
        self.escalation_person = escalation_person
        self.usage = Usage()
        self.thread = "main"

    def public_context(self) -> dict[str, Any]:
        """What an external agent needs: the agency, the traveller in session (their own
        booking, id, name and email) and the person to hand over to."""
        fx = self.fixture
        return {
            "tenant_id": self.tenant_id,
            "booking": fx.booking,
            "traveller": {
                "traveller_id": fx.traveller,
                "name": fx.traveller_name,
                "email": fx.traveller_email,
            },
            "escalation_person": self.escalation_person,
        }

    def save(self, state: dict[str, Any]) -> None:
        self.checkpoints.save(self.thread, state)

    def load(self) -> dict[str, Any]:
        return self.checkpoints.load(self.thread) or {}


def domain_snapshot(svc: TravelService) -> DomainSnapshot:
    """Every agency's records by kind, read by the evaluator identity (never the agent's)."""
    return evaluator_snapshot(svc, SNAPSHOT_TABLES, taken_by=EVALUATOR).generic()


class TravelRuntime:
    """The travel pack's `PackRuntime`."""

    def agent_names(self) -> Sequence[str]:
        """Every scripted agent, the correct one first; each takes a style suffix
        (`/excellent`, `/ordinary`, `/terse`, `/misleading`)."""
        return [f"scripted:travel-{b}" for b in BEHAVIOURS]

    def make_agent(self, name: str, *, api_base: str | None = None) -> PackAgent:
        kind, _, rest = name.partition(":")
        behaviour, _, style = rest.partition("/")
        known = ", ".join(self.agent_names())
        if kind != "scripted" or not behaviour.startswith("travel-"):
            raise ConfigError(f"unknown agent '{name}' for domain travel; known: {known}")
        behaviour = behaviour.removeprefix("travel-")
        if behaviour not in BEHAVIOURS:
            raise ConfigError(f"unknown agent '{name}' for domain travel; known: {known}")
        if style and style not in STYLES:
            raise ConfigError(f"unknown style '{style}' in '{name}'; styles: {', '.join(STYLES)}")
        return TravelAgent(behaviour, style or None)

    def case_problems(self, case: CaseContract) -> Sequence[tuple[tuple[int | str, ...], str]]:
        """What keeps a travel case from running on the pack's service (the file itself was
        checked against the pack when it was loaded)."""
        fx = case.fixture
        if not isinstance(fx, DomainFixture):
            return [(("fixture",), "a travel case's fixture is a tenant and its params")]
        problems: list[tuple[tuple[int | str, ...], str]] = []
        if fx.records:
            problems.append(
                (
                    ("fixture", "records"),
                    "travel cases build the agency from fixture.params; records are not read",
                )
            )
        if fx.tenant == OTHER_AGENCY:
            problems.append(
                (
                    ("fixture", "tenant"),
                    f"{OTHER_AGENCY} is the second agency every trial has; the acting agency "
                    "needs another id",
                )
            )
        try:
            params = Fixture.model_validate(fx.params)
        except ValidationError as exc:
            err = exc.errors(include_url=False)[0]
            loc = ("fixture", "params", *err["loc"])
            return [*problems, (loc, err["msg"])]
        if params.target_flight == params.current_flight:
            problems.append(
                (
                    ("fixture", "params", "target_flight"),
                    f"{params.target_flight} is the flight booking {params.booking} is on",
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
        """One trial of `agent_name` on the travel `case` from a fresh SQLite file in `workdir`
        (see `calibrant.domains.PackRuntime.run_trial`)."""
        tenant, fx = fixture_of(case)
        return run_service_trial(
            case,
            agent_name,
            trial=trial,
            seed=seed,
            workdir=workdir,
            agent_factory=agent_factory,
            service=partial(build_service, tenant=tenant, fx=fx),
            database="travel",
            snapshot=domain_snapshot,
            tenant=tenant,
            agent_principal=AGENT,
            tools=TOOLS,
            fault_points=FAULT_POINTS,
            tool_context={"booking": fx.booking},
            context=partial(TravelContext, tenant_id=tenant, fixture=fx),
            opening=f"Hello, I'd like to change my booking {fx.booking}.",
            versions=(POLICY_VERSION, TOOL_SCHEMA_VERSION, HARNESS_VERSION),
        )

    def tool_specs(self) -> Sequence[ToolSpec]:
        return TOOLS.specs()

    def tool_schema_version(self) -> str | None:
        return None  # named by a hash of the schemas

    def service_name(self) -> str | None:
        return None  # "service (Travel rebooking)"

    def invariants(self) -> Sequence[PackInvariant]:
        return list(INVARIANTS)

    def selftest_plan(self) -> Sequence[SelftestEntry]:
        from .selftest import PLAN

        return PLAN
