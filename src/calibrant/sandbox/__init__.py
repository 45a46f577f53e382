"""The controlled service as a server for an agent in another process (MCP and HTTP), driven
by the same trial runner as in-process agents. Importing this package starts nothing and does
not import the MCP SDK; `serve_trials` does, when called. Exports load on first use (see
calibrant.lazy): an agent in another process (a pack's scripted client) imports the guard,
not the service it talks to."""

from __future__ import annotations

from typing import TYPE_CHECKING

from calibrant.lazy import lazy_exports

if TYPE_CHECKING:
    from .channel import EXTERNAL_VERSION, AgentInfo, Channel, ExternalAgent, Stopped, session_key
    from .protocol import all_tools, business_tools, dispatch, trial_tools
    from .run import Transport, serve_trials

_HOME = {
    "EXTERNAL_VERSION": "channel",
    "AgentInfo": "channel",
    "Channel": "channel",
    "ExternalAgent": "channel",
    "Stopped": "channel",
    "session_key": "channel",
    "all_tools": "protocol",
    "business_tools": "protocol",
    "dispatch": "protocol",
    "trial_tools": "protocol",
    "Transport": "run",
    "serve_trials": "run",
}
__getattr__, __dir__ = lazy_exports(__name__, globals(), _HOME)

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
