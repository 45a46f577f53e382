"""Agents, the tool adapter with fault injection, checkpoints, and the trial runner.

Exports load on first use (see calibrant.lazy): an agent in another process
(`calibrant.sandbox.scripted_client`) needs the scripted agent and its checkpoints, not the
case loader, the store and the trial runner beside them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from calibrant.lazy import lazy_exports

if TYPE_CHECKING:
    from .agents import (
        BEHAVIOURS,
        STYLES,
        Agent,
        AgentContext,
        ScriptedAgent,
        agent_names,
        make_agent,
    )
    from .cases import case_problems, load_runnable_cases
    from .runfolder import MARKER, check_out_folder
    from .runner import HARNESS_VERSION, run_trial, transcript_filename
    from .toolspec import TOOL_SCHEMA_VERSION, TOOL_SPECS
    from .trials import TrialRun, run_trials

_HOME = {
    "BEHAVIOURS": "agents",
    "STYLES": "agents",
    "Agent": "agents",
    "AgentContext": "agents",
    "ScriptedAgent": "agents",
    "agent_names": "agents",
    "make_agent": "agents",
    "case_problems": "cases",
    "load_runnable_cases": "cases",
    "MARKER": "runfolder",
    "check_out_folder": "runfolder",
    "HARNESS_VERSION": "runner",
    "run_trial": "runner",
    "transcript_filename": "runner",
    "TOOL_SCHEMA_VERSION": "toolspec",
    "TOOL_SPECS": "toolspec",
    "TrialRun": "trials",
    "run_trials": "trials",
}
__getattr__, __dir__ = lazy_exports(__name__, globals(), _HOME)

__all__ = [
    "BEHAVIOURS",
    "HARNESS_VERSION",
    "MARKER",
    "STYLES",
    "TOOL_SCHEMA_VERSION",
    "TOOL_SPECS",
    "Agent",
    "AgentContext",
    "ScriptedAgent",
    "TrialRun",
    "agent_names",
    "case_problems",
    "check_out_folder",
    "load_runnable_cases",
    "make_agent",
    "run_trial",
    "run_trials",
    "transcript_filename",
]
