"""The refund shop's agents behind one protocol: scripted reference agents and an LLM agent via
litellm."""

from __future__ import annotations

from .base import Agent, AgentContext, Usage
from .scripted import BEHAVIOURS, ScriptedAgent
from .wording import STYLES

__all__ = [
    "BEHAVIOURS",
    "STYLES",
    "Agent",
    "AgentContext",
    "ScriptedAgent",
    "Usage",
    "make_agent",
    "agent_names",
]


def agent_names() -> list[str]:
    """Names `make_agent` accepts (LLM agents take any litellm model string)."""
    return [f"scripted:{b}" for b in BEHAVIOURS] + ["llm:<litellm model string>"]


def make_agent(name: str, *, api_base: str | None = None) -> Agent:
    """Build an agent from its name: scripted:<behaviour>[/<style>] or llm:<model> (an LLM
    agent may use an OpenAI-compatible endpoint at `api_base`)."""
    from calibrant.errors import ConfigError

    kind, _, rest = name.partition(":")
    if kind == "scripted":
        behaviour, _, style = rest.partition("/")
        if behaviour not in BEHAVIOURS:
            raise ConfigError(f"unknown agent '{name}'; known: {', '.join(agent_names())}")
        if style and style not in STYLES:
            raise ConfigError(f"unknown style '{style}' in '{name}'; styles: {', '.join(STYLES)}")
        return ScriptedAgent(behaviour, style or None)
    if kind == "llm":
        from .llm import LLMAgent

        return LLMAgent(rest or None, api_base=api_base)
    raise ConfigError(f"unknown agent '{name}'; known: {', '.join(agent_names())}")
