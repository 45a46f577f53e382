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
import re
from pathlib import Path
from typing import Any

from pydantic import JsonValue

from .locate import Locator, dotted, read_documents
from .model import ParsedTrace, TraceCall, TraceTurn

__all__ = ["parse_chat", "conversation"]


def parse_chat(path: Path) -> list[ParsedTrace]:
    """Every conversation in `path`, in order."""
    out = []
    for loc, doc in read_documents(path):
        out.append(conversation(loc, doc, jsonl=loc.line is not None))
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


def conversation(loc: Locator, doc: Any, *, jsonl: bool) -> ParsedTrace:
    if isinstance(doc, list) and not jsonl:
        doc = {"messages": doc}
    if not isinstance(doc, dict):
        raise loc.error((), "a conversation is an object with messages (or a list of messages)")
    trace_id = doc.get("id", None if jsonl else loc.path.stem)
    if not isinstance(trace_id, str) or not trace_id:
        raise loc.error(
            ("id",),
            "required: a conversation id (a string)",
            "give each conversation of a .jsonl file its id (a .json file's name can be it)",
        )
    messages = doc.get("messages")
    if not isinstance(messages, list):
        raise loc.error(
            ("messages",),
            "required: a list of messages",
            "put the conversation's Chat Completions messages in a list under messages",
        )
    trace = ParsedTrace(trace_id=trace_id, source=loc.path, where=loc.where)
    meta = doc.get("metadata") or {}
    if not isinstance(meta, dict):
        raise loc.error(("metadata",), "must be an object of strings")
    for key, value in meta.items():
        if not isinstance(value, str):
            raise loc.error(
                ("metadata", key),
                "must be a string",
                f'write it as a string ("{value}")'
                if isinstance(value, int | float)
                else "write it as a string",
            )
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
    calls = _Calls(loc, trace)
    system: list[str] = []
    for i, m in enumerate(messages):
        at: tuple[int | str, ...] = ("messages", i)
        if not isinstance(m, dict):
            raise loc.error(at, "a message is an object with a role")
        role = m.get("role")
        message_id = _message_id(m, i)
        if role in ("system", "developer"):
            system.append(_text(loc, (*at, "content"), m.get("content")))
        elif role == "user":
            trace.events.append(
                TraceTurn(
                    "customer",
                    _text(loc, (*at, "content"), m.get("content")),
                    message_id=message_id,
                )
            )
        elif role == "assistant":
            trace.model_calls += 1
            text = _text(loc, (*at, "content"), m.get("content"))
            made = _tool_calls(loc, at, m.get("tool_calls"), message_id)
            if text.strip():
                trace.events.append(
                    TraceTurn("agent", text, message_id=message_id, with_tool_call=bool(made))
                )
            for call in made:
                calls.add(call)
                trace.events.append(call)
        elif role == "tool":
            calls.answer(at, m)
        else:
            raise loc.error(
                (*at, "role"),
                f"unknown role {json.dumps(role)}",
                "give system, user, assistant or tool (the Chat Completions roles)",
            )
    calls.note_reuse()
    trace.instructions = "\n".join(system) or None
    return trace


_MESSAGE_ID = re.compile(r"^[A-Za-z0-9_.:\-/@+]{1,200}$")

REUSED_IDS = (
    "a tool call id was reused within the trace: each tool message was paired with the "
    "earliest unanswered call of its id (by id, then in order), and the later calls were "
    "given the id <id>:<n> in the transcript (a snapshot record that names a reused id is "
    "tied to its first call)"
)
"""The assumption listed in the import report when a trace reuses tool call ids."""


def _message_id(m: dict[str, Any], i: int) -> str:
    """The message's own id when it has one that is an identifier, else its place (m<i>)."""
    own = m.get("id")
    return own if isinstance(own, str) and _MESSAGE_ID.match(own) else f"m{i}"


class _Calls:
    """The trace's tool calls by id. A tool message answers the earliest unanswered call of
    its id: ids a log reuses (some benchmarks' logs do) are paired by id, then in order, and
    each later call gets a unique id in the transcript (`<id>:<n>`)."""

    def __init__(self, loc: Locator, trace: ParsedTrace) -> None:
        self.loc, self.trace = loc, trace
        self.issued: dict[str, int] = {}  # the trace's id -> calls that used it
        self.pending: dict[str, list[tuple[TraceCall, str]]] = {}  # unanswered, in order
        self.ids: set[str] = set()  # ids given in the transcript
        self.reused = 0

    def add(self, call: TraceCall) -> None:
        own = call.call_id
        n = self.issued.get(own, 0) + 1
        self.issued[own] = n
        if n > 1 or own in self.ids:
            self.reused += 1
            k = n
            while f"{own}:{k}" in self.ids:
                k += 1
            call.source_id, call.call_id = own, f"{own}:{k}"
        self.ids.add(call.call_id)
        self.pending.setdefault(own, []).append((call, call.where))

    def answer(self, at: tuple[int | str, ...], m: dict[str, Any]) -> None:
        loc = self.loc
        call_id = m.get("tool_call_id")
        if not isinstance(call_id, str) or not call_id:
            raise loc.error(
                (*at, "tool_call_id"),
                "required: the id of the call it answers",
                "set it to the id of the assistant tool call this message answers",
            )
        waiting = self.pending.get(call_id)
        if not waiting:
            if call_id in self.issued:
                raise loc.error(
                    (*at, "tool_call_id"),
                    f"every tool call with id {call_id} is already answered",
                    "remove the extra tool message, or give it the id of the call it answers",
                )
            raise loc.error(
                (*at, "tool_call_id"),
                f"no earlier assistant tool call has id {call_id}",
                "put the assistant message with this call before its tool message, or fix the id",
            )
        call, where = waiting[0]
        name = m.get("name")
        if name is not None and name != call.tool:
            raise loc.error(
                (*at, "name"),
                f"the tool message names tool {json.dumps(name)}, but the call it answers "
                f"({call_id}, {_place(where)}) called {json.dumps(call.tool)}",
                "fix the name or the tool_call_id so both name the same call",
            )
        waiting.pop(0)
        call.answered = True
        call.result = _result(_text(loc, (*at, "content"), m.get("content")))

    def note_reuse(self) -> None:
        if self.reused:
            self.trace.assume(REUSED_IDS, self.reused)


def _place(where: str) -> str:
    """`messages.3.tool_calls.0` of a call's where, as messages[3].tool_calls[0]."""
    inner = where.rsplit(" (", 1)[-1].rstrip(")")
    parts: list[int | str] = [int(p) if p.isdigit() else p for p in inner.split(".")]
    return dotted(parts)


def _result(text: str) -> JsonValue:
    """A tool message's content: JSON when it is JSON, else the text (kept verbatim)."""
    try:
        value: JsonValue = json.loads(text)
    except (ValueError, RecursionError):
        return text
    return value if isinstance(value, dict | list) else text


def _tool_calls(
    loc: Locator, at: tuple[int | str, ...], raw: Any, message_id: str
) -> list[TraceCall]:
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
            raise loc.error(
                (*here, "id"),
                "required: the tool call's id",
                "give each tool call the id its tool message answers (tool_call_id)",
            )
        fn = c.get("function")
        if not isinstance(fn, dict):
            raise loc.error((*here, "function"), "required: {name, arguments}")
        name = fn.get("name")
        if not isinstance(name, str) or not name:
            raise loc.error(
                (*here, "function", "name"),
                "required: the tool's name",
                "give the name of the tool the agent called",
            )
        out.append(
            TraceCall(
                call_id=call_id,
                tool=name,
                arguments=parse_arguments(
                    loc, (*here, "function", "arguments"), fn.get("arguments")
                ),
                where=f"{loc.where} ({'.'.join(map(str, here))})",
                message_id=message_id,
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
            raise loc.error(
                at,
                "the arguments are not valid JSON",
                "write them as a JSON object, or a string holding one (as the API sends them)",
            ) from None
    if not isinstance(value, dict):
        raise loc.error(
            at,
            "the arguments must be a JSON object",
            "write them as a JSON object of the tool's parameters, or a string holding one",
        )
    return value
