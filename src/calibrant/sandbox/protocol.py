"""What an external agent can call, and the one dispatcher both transports (MCP, HTTP) share.

The business tools are the in-process agents' tools of the trial's domain, with the same JSON
schemas (from the domain's pack: its runtime's `tool_specs()`). Two
conversation tools carry the customer's side: `trial_start` gives the customer's message waiting
for an answer (and the trial's context), `trial_reply` sends the agent's answer and gives the
next message. Only the business tools are for the agent's model."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, Field, ValidationError

from ..contracts.common import Contract
from ..contracts.wire import FunctionSpec, ToolAnswer
from ..domains import default_domain
from .channel import AgentInfo, Answer, Channel, ServedTools

__all__ = ["Reply", "Usage", "all_tools", "business_tools", "dispatch", "trial_tools"]


class Usage(Contract):
    """Model usage since the last reply; added to the trial's metrics."""

    model_calls: int = Field(default=0, ge=0, description="Model calls.")
    input_tokens: int = Field(default=0, ge=0, description="Prompt tokens.")
    output_tokens: int = Field(default=0, ge=0, description="Completion tokens.")
    cached_tokens: int = Field(default=0, ge=0, description="Cached prompt tokens.")
    cost_usd: float | None = Field(default=None, ge=0, description="Cost, when known.")


class Reply(Contract):
    """`trial_reply`: the agent's answer to the customer."""

    text: str = Field(description="The reply, verbatim.")
    usage: Usage | None = Field(default=None, description="Model usage since the last reply.")


def trial_tools() -> list[FunctionSpec]:
    """The two conversation tools, with the JSON schemas of their arguments."""
    return [
        {
            "name": "trial_start",
            "description": "Start (or, after a restart, resume) the current trial: returns the "
            "customer's message waiting for your answer and the trial's context (tenant, ticket, "
            "order, authenticated customer), and a `session` key for your durable checkpoint; or "
            "status all_finished. Optionally declare your model and version (kept in the "
            "transcript). Not a tool for your model.",
            "parameters": AgentInfo.model_json_schema(),
        },
        {
            "name": "trial_reply",
            "description": "Send your reply to the customer; returns the customer's next message, "
            "or status trial_finished (then call trial_start for the next trial). Not a tool for "
            "your model.",
            "parameters": Reply.model_json_schema(),
        },
    ]


def business_tools(served: ServedTools | None = None) -> list[FunctionSpec]:
    """The agent's tools as (name, description, JSON schema of the arguments): the domain's
    `served` (the default domain's when None)."""
    served = served or ServedTools.of(default_domain())
    return [
        {
            "name": t["function"]["name"],
            "description": t["function"]["description"],
            "parameters": t["function"]["parameters"],
        }
        for t in served.specs
    ]


def all_tools(served: ServedTools | None = None) -> list[FunctionSpec]:
    return business_tools(served) + trial_tools()


def dispatch(channel: Channel, name: str, args: Any) -> ToolAnswer:
    """Run one call of an external agent (blocking: call it from a worker thread); its answer
    as the JSON object both transports send.

    `args` is the decoded JSON object, or the JSON text itself (then a business tool answers
    malformed JSON with `invalid_argument`, exactly like the in-process adapter)."""
    answer = _answer(channel, name, args)
    return answer.json_data() if isinstance(answer, Answer) else answer


def _answer(channel: Channel, name: str, args: Any) -> ToolAnswer | Answer:
    if name in channel.tools.names() or name not in ("trial_start", "trial_reply"):
        # a business tool, or no tool at all: the tool box answers (an unknown name as an
        # unknown tool, whatever its arguments) and logs invalid_argument
        return channel.call(name, args)
    if isinstance(args, str):
        return _invalid(name, "arguments must be a JSON object")
    if name == "trial_start":
        info = _parsed(AgentInfo, args)
        if isinstance(info, str):
            return _invalid(name, info)
        started = channel.start(info)
        started.tool_schema_version = channel.tools.schema_version
        return started
    reply = _parsed(Reply, args)  # trial_reply
    if isinstance(reply, str):
        return _invalid(name, reply)
    usage = reply.usage.model_dump(exclude_none=True) if reply.usage else {}
    return channel.reply(reply.text, usage)


M = TypeVar("M", bound=BaseModel)


def _parsed(model: type[M], args: Any) -> M | str:
    """`args` as `model`, or what is wrong with them (one line)."""
    try:
        return model.model_validate(args if args is not None else {})
    except ValidationError as exc:
        e = exc.errors()[0]
        where = ".".join(str(x) for x in e["loc"]) or "arguments"
        return f"{where}: {e['msg']}"


def _invalid(name: str, problem: str) -> Answer:
    return Answer(error="invalid_argument", message=f"{name}: {problem}", problems=[problem])
