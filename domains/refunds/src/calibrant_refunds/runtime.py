"""The refund shop's runtime (`calibrant.domains.PackRuntime`): its scripted and LLM agents,
one trial on its controlled ledger, the tools an external agent is served, its self-test plan.
Imported only when a run needs it (`pack().runtime`), so listing packs imports no service; and
each part is imported by the method that needs it, so a run that only asks for the pack's
invariants (`calibrant score`'s safety check) imports no agent, ledger or trial runner."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from calibrant.contracts import CaseContract, Transcript
from calibrant.contracts.wire import ToolSpec
from calibrant.domains import AgentCall, PackAgent, PackInvariant, SelftestEntry

__all__ = ["RefundsRuntime"]


class RefundsRuntime:
    """calibrant.domains.PackRuntime for the refund shop."""

    def agent_names(self) -> Sequence[str]:
        from .agents import agent_names

        return [n for n in agent_names() if n.startswith("scripted:")]

    def make_agent(self, name: str, *, api_base: str | None = None) -> PackAgent:
        from .agents import make_agent

        return make_agent(name, api_base=api_base)

    def case_problems(self, case: CaseContract) -> Sequence[tuple[tuple[int | str, ...], str]]:
        from .cases import refund_case_problems

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
        from .runner import run_trial

        return run_trial(
            case,
            agent_name,
            trial=trial,
            seed=seed,
            workdir=workdir,
            agent_factory=agent_factory,  # type: ignore[arg-type]  # an Agent by shape
        )

    def tool_specs(self) -> Sequence[ToolSpec]:
        from .toolspec import TOOL_SPECS

        return TOOL_SPECS

    def tool_schema_version(self) -> str | None:
        from .toolspec import TOOL_SCHEMA_VERSION

        return TOOL_SCHEMA_VERSION

    def service_name(self) -> str | None:
        return "refund service"

    def invariants(self) -> Sequence[PackInvariant]:
        return ()  # its safety is calibrant's invariants, read by the roles it declares

    def selftest_plan(self) -> Sequence[SelftestEntry]:
        from .selftest import REFUND_PLAN

        return REFUND_PLAN
