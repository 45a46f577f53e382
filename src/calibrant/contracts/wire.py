"""What goes over the wire between an agent and the tools of a controlled service: a tool's
declaration in the OpenAI function-calling shape (what a model or an external agent is given),
and a tool's answer (what the agent reads back). Both are JSON read by someone else; their
shapes are typed here so the code on either side says what it hands over."""

from __future__ import annotations

from typing import Literal, TypedDict

from pydantic import JsonValue

__all__ = ["FunctionSpec", "ToolSpec", "ToolAnswer"]


class FunctionSpec(TypedDict):
    """A tool as a function: its name, what it does, its arguments' JSON Schema."""

    name: str
    description: str
    parameters: dict[str, JsonValue]


class ToolSpec(TypedDict):
    """A tool in OpenAI function-calling format: `{"type": "function", "function": {...}}`."""

    type: Literal["function"]
    function: FunctionSpec


ToolAnswer = dict[str, JsonValue]
"""What an agent receives from one tool call: the JSON object the tool answered (each tool its
own shape, declared by its pack), or an error `{"error", "message", ...}`."""
