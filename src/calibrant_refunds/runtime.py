"""The refund shop's runtime: what runs its trials, the tools served to an external agent and
its own invariants. Its service, scripted agents and invariants still live in calibrant's core
(calibrant.harness, calibrant.ledger, calibrant.safety); this class is the pack's face over them,
the same face every other pack shows, so the core reaches the refund shop the way it reaches any
domain."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from calibrant.contracts import CaseContract, Transcript
from calibrant.domains import AgentCall, PackAgent, PackInvariant, SelftestEntry
from calibrant.harness import TOOL_SPECS, agent_names, make_agent
from calibrant.harness.runner import run_trial

__all__ = ["RefundsRuntime"]


class RefundsRuntime:
    """calibrant.domains.PackRuntime for the refund shop."""

    def agent_names(self) -> Sequence[str]:
        return [n for n in agent_names() if n.startswith("scripted:")]

    def make_agent(self, name: str, *, api_base: str | None = None) -> PackAgent:
        return make_agent(name, api_base=api_base)

    def case_problems(self, case: CaseContract) -> Sequence[tuple[tuple[int | str, ...], str]]:
        from calibrant.harness.cases import refund_case_problems

        return refund_case_problems(case)

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
        return run_trial(
            case,
            agent_name,
            trial=trial,
            seed=seed,
            workdir=workdir,
            agent_factory=agent_factory,  # type: ignore[arg-type]  # an Agent by shape
        )

    def tool_specs(self) -> Sequence[dict[str, Any]]:
        return TOOL_SPECS

    def invariants(self) -> Sequence[PackInvariant]:
        return ()  # the refund shop's invariants are still registered by the core

    def selftest_plan(self) -> Sequence[SelftestEntry]:
        from calibrant.selftest import REFUND_PLAN

        return REFUND_PLAN
