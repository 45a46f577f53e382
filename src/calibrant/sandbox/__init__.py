"""The controlled service as a server for an agent in another process (MCP and HTTP), driven
by the same trial runner as in-process agents. Importing this package starts nothing and does
not import the MCP SDK; `serve_trials` does, when called."""

from .channel import EXTERNAL_VERSION, AgentInfo, Channel, ExternalAgent, Stopped, session_key
from .protocol import all_tools, business_tools, dispatch, trial_tools
from .run import Transport, serve_trials

__all__ = [
    "EXTERNAL_VERSION",
    "AgentInfo",
    "Channel",
    "ExternalAgent",
    "Stopped",
    "Transport",
    "all_tools",
    "business_tools",
    "dispatch",
    "serve_trials",
    "session_key",
    "trial_tools",
]
