"""Tool calling for the embedded model: the tools become a JSON schema that constrains decoding
(one tool call, or a reply to the user), and the answer comes back as OpenAI-style tool calls.
So the LLM agent takes the same litellm tool-calling path with the local model as with any
hosted one — the 135M model just makes a poor agent."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "tools_schema",
    "tools_instructions",
    "flatten_tool_messages",
    "parse_tool_answer",
    "REPLY_MAX",
]

REPLY_MAX = 300


def tools_schema(tools: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """anyOf: {"tool": NAME, "arguments": {...}} for each tool, or {"reply": "..."}."""
    options: list[dict[str, Any]] = []
    for t in tools:
        fn = t.get("function", t)
        params = dict(fn.get("parameters") or {"type": "object", "properties": {}})
        params.setdefault("type", "object")
        options.append(
            {
                "type": "object",
                "properties": {
                    "tool": {"type": "string", "enum": [fn["name"]]},
                    "arguments": params,
                },
                "required": ["tool", "arguments"],
                "additionalProperties": False,
            }
        )
    options.append(
        {
            "type": "object",
            "properties": {"reply": {"type": "string", "maxLength": REPLY_MAX}},
            "required": ["reply"],
            "additionalProperties": False,
        }
    )
    return {"anyOf": options}


def tools_instructions(tools: Sequence[Mapping[str, Any]]) -> str:
    """Text appended to the system message describing the tools and the answer format."""
    lines = ["", "You can call one tool at a time. Tools:"]
    for t in tools:
        fn = t.get("function", t)
        params = ", ".join((fn.get("parameters") or {}).get("properties", {}))
        lines.append(f"- {fn['name']}({params}): {fn.get('description', '')}")
    lines.append(
        'Answer with JSON only: {"tool": NAME, "arguments": {...}} to call a tool, or '
        '{"reply": TEXT} to answer the customer when you are done.'
    )
    return "\n".join(lines)


def flatten_tool_messages(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Assistant tool calls and tool results rendered as plain chat turns."""
    out: list[dict[str, Any]] = []
    for m in messages:
        role = m.get("role")
        if role == "assistant" and m.get("tool_calls"):
            calls = [
                {
                    "tool": c["function"]["name"],
                    "arguments": json.loads(c["function"].get("arguments") or "{}"),
                }
                for c in m["tool_calls"]
            ]
            out.append(
                {"role": "assistant", "content": json.dumps(calls[0] if len(calls) == 1 else calls)}
            )
        elif role == "tool":
            out.append({"role": "user", "content": f"Tool result: {m.get('content', '')}"})
        else:
            out.append(dict(m))
    return out


def parse_tool_answer(text: str, call_id: str) -> tuple[str | None, dict[str, Any] | None]:
    """(reply text, tool call) from the constrained answer; exactly one of them is set."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return text, None
    if isinstance(data, dict) and "tool" in data:
        return None, {
            "id": call_id,
            "type": "function",
            "function": {
                "name": str(data["tool"]),
                "arguments": json.dumps(data.get("arguments") or {}),
            },
        }
    if isinstance(data, dict) and "reply" in data:
        return str(data["reply"]), None
    return text, None
