"""OpenAI chat-completions message lists with tool calls -> parsed traces.

A `.json` file holds one conversation: `{"id": ..., "messages": [...]}` (id optional: the file
name) or a bare list of messages. A `.jsonl` file holds one conversation per line, each an object
with an `id` and `messages`. Roles: system (instructions), user (the customer), assistant (the
agent: `content` and `tool_calls` [{id, type: function, function: {name, arguments}}], arguments a
JSON string), tool (`tool_call_id` and `content`: what the tool returned). Optional per
conversation: `metadata` (string values, e.g. calibrant.case, calibrant.tenant,
calibrant.agent_principal), `model`, `usage` ({prompt_tokens, completion_tokens}) and
`latency_ms`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import JsonValue

from .locate import Locator, read_documents
from .model import ParsedTrace, TraceCall, TraceTurn

__all__ = ["parse_chat"]


def parse_chat(path: Path) -> list[ParsedTrace]:
    """Every conversation in `path`, in order."""
    out = []
    for loc, doc in read_documents(path):
        out.append(_conversation(loc, doc, jsonl=loc.line is not None))
    return out


def _text(loc: Locator, at: tuple[int | str, ...], content: Any) -> str:
    """A message's content: a string, null, or a list of {type: text, text} parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for i, part in enumerate(content):
            if not isinstance(part, dict) or not isinstance(part.get("text", ""), str):
                raise loc.error((*at, i), "a content part is an object with a text string")
            parts.append(part.get("text", ""))
        return "".join(parts)
    raise loc.error(at, "content must be a string, null or a list of text parts")


def _int(loc: Locator, at: tuple[int | str, ...], value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise loc.error(at, f"must be a whole number >= 0 (got {json.dumps(value)})")
    return value


def _conversation(loc: Locator, doc: Any, *, jsonl: bool) -> ParsedTrace:
    if isinstance(doc, list) and not jsonl:
        doc = {"messages": doc}
    if not isinstance(doc, dict):
        raise loc.error((), "a conversation is an object with messages (or a list of messages)")
    trace_id = doc.get("id", None if jsonl else loc.path.stem)
    if not isinstance(trace_id, str) or not trace_id:
        raise loc.error(("id",), "required: a conversation id (a string)")
    messages = doc.get("messages")
    if not isinstance(messages, list):
        raise loc.error(("messages",), "required: a list of messages")
    trace = ParsedTrace(trace_id=trace_id, source=loc.path, where=loc.where)
    meta = doc.get("metadata") or {}
    if not isinstance(meta, dict):
        raise loc.error(("metadata",), "must be an object of strings")
    for key, value in meta.items():
        if not isinstance(value, str):
            raise loc.error(("metadata", key), "must be a string")
        trace.attributes[key] = value
    if doc.get("model") is not None:
        if not isinstance(doc["model"], str):
            raise loc.error(("model",), "must be a string")
        trace.model = doc["model"]
    usage = doc.get("usage") or {}
    if not isinstance(usage, dict):
        raise loc.error(("usage",), "must be an object")
    if "prompt_tokens" in usage:
        trace.input_tokens = _int(loc, ("usage", "prompt_tokens"), usage["prompt_tokens"])
    if "completion_tokens" in usage:
        trace.output_tokens = _int(loc, ("usage", "completion_tokens"), usage["completion_tokens"])
    if "latency_ms" in doc:
        trace.latency_ms = float(_int(loc, ("latency_ms",), doc["latency_ms"]))
    calls: dict[str, TraceCall] = {}
    system: list[str] = []
    for i, m in enumerate(messages):
        at: tuple[int | str, ...] = ("messages", i)
        if not isinstance(m, dict):
            raise loc.error(at, "a message is an object with a role")
        role = m.get("role")
        if role in ("system", "developer"):
            system.append(_text(loc, (*at, "content"), m.get("content")))
        elif role == "user":
            trace.events.append(
                TraceTurn("customer", _text(loc, (*at, "content"), m.get("content")))
            )
        elif role == "assistant":
            trace.model_calls += 1
            text = _text(loc, (*at, "content"), m.get("content"))
            if text.strip():
                trace.events.append(TraceTurn("agent", text))
            for call in _tool_calls(loc, at, m.get("tool_calls")):
                if call.call_id in calls:
                    raise loc.error((*at, "tool_calls"), f"tool call id {call.call_id} repeats")
                calls[call.call_id] = call
                trace.events.append(call)
        elif role == "tool":
            call_id = m.get("tool_call_id")
            if not isinstance(call_id, str) or not call_id:
                raise loc.error((*at, "tool_call_id"), "required: the id of the call it answers")
            answered = calls.get(call_id)
            if answered is None:
                raise loc.error(
                    (*at, "tool_call_id"), f"no earlier assistant tool call has id {call_id}"
                )
            if answered.answered:
                raise loc.error((*at, "tool_call_id"), f"tool call {call_id} is answered twice")
            answered.answered, answered.result = (
                True,
                _result(_text(loc, (*at, "content"), m.get("content"))),
            )
        else:
            raise loc.error(
                (*at, "role"),
                f"unknown role {json.dumps(role)}; expected system, user, assistant or tool",
            )
    trace.instructions = "\n".join(system) or None
    return trace


def _result(text: str) -> JsonValue:
    """A tool message's content: JSON when it is JSON, else the text (kept verbatim)."""
    try:
        value: JsonValue = json.loads(text)
    except (ValueError, RecursionError):
        return text
    return value if isinstance(value, dict | list) else text


def _tool_calls(loc: Locator, at: tuple[int | str, ...], raw: Any) -> list[TraceCall]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise loc.error((*at, "tool_calls"), "must be a list")
    out = []
    for j, c in enumerate(raw):
        here = (*at, "tool_calls", j)
        if not isinstance(c, dict):
            raise loc.error(here, "a tool call is an object with id and function")
        call_id = c.get("id")
        if not isinstance(call_id, str) or not call_id:
            raise loc.error((*here, "id"), "required: the tool call's id")
        fn = c.get("function")
        if not isinstance(fn, dict):
            raise loc.error((*here, "function"), "required: {name, arguments}")
        name = fn.get("name")
        if not isinstance(name, str) or not name:
            raise loc.error((*here, "function", "name"), "required: the tool's name")
        out.append(
            TraceCall(
                call_id=call_id,
                tool=name,
                arguments=parse_arguments(
                    loc, (*here, "function", "arguments"), fn.get("arguments")
                ),
                where=f"{loc.where} ({'.'.join(map(str, here))})",
            )
        )
    return out


def parse_arguments(loc: Locator, at: tuple[int | str, ...], raw: Any) -> dict[str, JsonValue]:
    """Tool arguments: a JSON string holding an object (chat-completions), or the object."""
    value = raw
    if raw is None:
        return {}
    if isinstance(raw, str):
        try:
            value = json.loads(raw) if raw.strip() else {}
        except (ValueError, RecursionError):
            raise loc.error(at, "the arguments are not valid JSON") from None
    if not isinstance(value, dict):
        raise loc.error(at, "the arguments must be a JSON object")
    return value
