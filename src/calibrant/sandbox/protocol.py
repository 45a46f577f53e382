"""What an external agent can call, and the one dispatcher both transports (MCP, HTTP) share.

The nine business tools are the in-process agents' tools, with the same JSON schemas
(`harness.toolspec`). Two conversation tools carry the customer's side: `trial_start` gives the
customer's message waiting for an answer (and the trial's context), `trial_reply` sends the
agent's answer and gives the next message. Only the business tools are for the agent's model."""

from __future__ import annotations

from typing import Any

from ..harness.toolspec import TOOL_SCHEMA_VERSION, TOOL_SPECS, tool_names
from .channel import Channel, agent_info

__all__ = ["TRIAL_TOOLS", "business_tools", "dispatch", "all_tools"]

_USAGE = {
    "type": "object",
    "description": "Model usage since the last reply (added to the trial's metrics).",
    "properties": {
        "model_calls": {"type": "integer", "minimum": 0},
        "input_tokens": {"type": "integer", "minimum": 0},
        "output_tokens": {"type": "integer", "minimum": 0},
        "cached_tokens": {"type": "integer", "minimum": 0},
        "cost_usd": {"type": "number", "minimum": 0},
    },
    "additionalProperties": False,
}

TRIAL_TOOLS: list[dict[str, Any]] = [
    {
        "name": "trial_start",
        "description": "Start (or, after a restart, resume) the current trial: returns the "
        "customer's message waiting for your answer and the trial's context (tenant, ticket, "
        "order, authenticated customer), and a `session` key for your durable checkpoint; or "
        "status all_finished. Not a tool for your model.",
        "parameters": {
            "type": "object",
            "properties": {
                "agent_model": {"type": "string", "maxLength": 200},
                "agent_version": {"type": "string", "minLength": 1, "maxLength": 200},
                "instructions_hash": {"type": "string", "maxLength": 200},
                "sampling": {
                    "type": "object",
                    "properties": {
                        "temperature": {"type": "number", "minimum": 0},
                        "top_p": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
                        "max_tokens": {"type": "integer", "minimum": 1},
                        "seed": {"type": "integer"},
                    },
                    "additionalProperties": False,
                },
            },
            "additionalProperties": False,
        },
    },
    {
        "name": "trial_reply",
        "description": "Send your reply to the customer; returns the customer's next message, "
        "or status trial_finished (then call trial_start for the next trial). Not a tool for "
        "your model.",
        "parameters": {
            "type": "object",
            "properties": {"text": {"type": "string"}, "usage": _USAGE},
            "required": ["text"],
            "additionalProperties": False,
        },
    },
]


def business_tools() -> list[dict[str, Any]]:
    """The agent's tools as (name, description, JSON schema of the arguments)."""
    return [
        {
            "name": t["function"]["name"],
            "description": t["function"]["description"],
            "parameters": t["function"]["parameters"],
        }
        for t in TOOL_SPECS
    ]


def all_tools() -> list[dict[str, Any]]:
    return business_tools() + TRIAL_TOOLS


def _usage(value: Any) -> dict[str, Any] | str:
    if value is None:
        return {}
    if not isinstance(value, dict):
        return "usage: must be an object"
    unknown = sorted(set(value) - set(_USAGE["properties"]))
    if unknown:
        return f"usage: unknown field(s) {', '.join(unknown)}"
    return value


def dispatch(channel: Channel, name: str, args: Any) -> dict[str, Any]:
    """Run one call of an external agent (blocking: call it from a worker thread).

    `args` is the decoded JSON object, or the JSON text itself (then a business tool answers
    malformed JSON with `invalid_argument`, exactly like the in-process adapter)."""
    if name in tool_names():
        return channel.call(name, args)
    if isinstance(args, str):
        return _invalid(name, "arguments must be a JSON object")
    if name == "trial_start":
        info = agent_info(args)
        if isinstance(info, str):
            return _invalid(name, info)
        return {**channel.start(info), "tool_schema_version": TOOL_SCHEMA_VERSION}
    if name == "trial_reply":
        if not isinstance(args, dict) or not isinstance(args.get("text"), str):
            return _invalid(name, "text: required, a string")
        extra = sorted(set(args) - {"text", "usage"})
        if extra:
            return _invalid(name, f"unknown argument(s) {', '.join(extra)}")
        usage = _usage(args.get("usage"))
        if isinstance(usage, str):
            return _invalid(name, usage)
        return channel.reply(args["text"], usage)
    return channel.call(name, args)  # unknown: the tool box answers and logs invalid_argument


def _invalid(name: str, problem: str) -> dict[str, Any]:
    return {"error": "invalid_argument", "message": f"{name}: {problem}", "problems": [problem]}
