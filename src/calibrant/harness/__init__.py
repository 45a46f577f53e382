"""Agents, the tool adapter with fault injection, checkpoints, and the trial runner."""

from .agents import BEHAVIOURS, STYLES, Agent, AgentContext, ScriptedAgent, agent_names, make_agent
from .cases import case_problems, load_runnable_cases
from .runfolder import MARKER, check_out_folder
from .runner import HARNESS_VERSION, run_trial, transcript_filename
from .toolspec import TOOL_SCHEMA_VERSION, TOOL_SPECS
from .trials import TrialRun, run_trials

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
