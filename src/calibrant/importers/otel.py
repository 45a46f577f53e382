"""OpenTelemetry GenAI spans (OTLP JSON) -> parsed traces, one per trace id.

Read: `resourceSpans[].scopeSpans[].spans[]` with attributes as `[{key, value: {stringValue |
intValue | doubleValue | boolValue | arrayValue | kvlistValue}}]` (resource attributes apply to
every span under them). Chat spans (`gen_ai.operation.name` chat) give the conversation, from the
`gen_ai.input.messages` / `gen_ai.output.messages` attributes (JSON: role and parts of type text,
tool_call, tool_call_response) or from the older events (gen_ai.system.message,
gen_ai.user.message, gen_ai.assistant.message, gen_ai.tool.message, gen_ai.choice, with
`content`, `tool_calls` and `id` attributes), and tokens (`gen_ai.usage.input_tokens`,
`gen_ai.usage.output_tokens`) and the model. Tool spans (`execute_tool`) give each call:
`gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`
and its time. A `.jsonl` file holds one OTLP export per line."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import JsonValue

from .chat import parse_arguments
from .locate import Locator, read_documents
from .model import ParsedTrace, TraceCall, TraceTurn

__all__ = ["parse_otel"]

Loc = tuple[int | str, ...]
_VALUE_KINDS = (
    "stringValue",
    "intValue",
    "doubleValue",
    "boolValue",
    "arrayValue",
    "kvlistValue",
    "bytesValue",
)


def _value(loc: Locator, at: Loc, v: Any) -> Any:
    if not isinstance(v, dict) or len(v) != 1 or next(iter(v)) not in _VALUE_KINDS:
        raise loc.error(at, f"an attribute value is one of {{{', '.join(_VALUE_KINDS)}}}")
    kind, raw = next(iter(v.items()))
    if kind == "intValue":
        if isinstance(raw, bool) or not isinstance(raw, int | str):
            raise loc.error((*at, kind), "must be an integer (or its decimal string)")
        try:
            return int(raw)
        except ValueError:
            raise loc.error((*at, kind), f"must be an integer (got {json.dumps(raw)})") from None
    if kind == "stringValue" and not isinstance(raw, str):
        raise loc.error((*at, kind), "must be a string")
    if kind == "boolValue" and not isinstance(raw, bool):
        raise loc.error((*at, kind), "must be true or false")
    if kind == "doubleValue" and (isinstance(raw, bool) or not isinstance(raw, int | float)):
        raise loc.error((*at, kind), "must be a number")
    if kind == "arrayValue":
        values = raw.get("values", []) if isinstance(raw, dict) else None
        if not isinstance(values, list):
            raise loc.error((*at, kind), "must be {values: [...]}")
        return [_value(loc, (*at, kind, "values", i), x) for i, x in enumerate(values)]
    if kind == "kvlistValue":
        values = raw.get("values", []) if isinstance(raw, dict) else None
        if not isinstance(values, list):
            raise loc.error((*at, kind), "must be {values: [...]}")
        return _attributes(loc, (*at, kind, "values"), values)
    return raw


def _attributes(loc: Locator, at: Loc, raw: Any) -> dict[str, JsonValue]:
    if raw is None:
        return {}
    if not isinstance(raw, list):
        raise loc.error(at, "attributes are a list of {key, value}")
    out: dict[str, JsonValue] = {}
    for i, kv in enumerate(raw):
        if not isinstance(kv, dict) or not isinstance(kv.get("key"), str):
            raise loc.error((*at, i), "an attribute is {key, value}")
        out[kv["key"]] = _value(loc, (*at, i, "value"), kv.get("value"))
    return out


def _time(loc: Locator, at: Loc, raw: Any) -> int | None:
    if raw is None:
        return None
    try:
        return int(raw)
    except (TypeError, ValueError):
        raise loc.error(at, "a time is a whole number of nanoseconds since 1970") from None


class _Span:
    def __init__(self, loc: Locator, at: Loc, raw: Any, resource: dict[str, JsonValue]) -> None:
        if not isinstance(raw, dict):
            raise loc.error(at, "a span is an object")
        trace_id = raw.get("traceId")
        if not isinstance(trace_id, str) or not trace_id:
            raise loc.error((*at, "traceId"), "required: the span's trace id")
        self.loc, self.at, self.trace_id = loc, at, trace_id
        own = raw.get("attributes")
        self.attrs = {**resource, **_attributes(loc, (*at, "attributes"), own)}
        self.index = {kv["key"]: i for i, kv in enumerate(own or [])}
        self.start = _time(loc, (*at, "startTimeUnixNano"), raw.get("startTimeUnixNano"))
        self.end = _time(loc, (*at, "endTimeUnixNano"), raw.get("endTimeUnixNano"))
        events = raw.get("events") or []
        if not isinstance(events, list):
            raise loc.error((*at, "events"), "must be a list")
        self.events: list[tuple[str, dict[str, JsonValue], Loc]] = []
        for i, e in enumerate(events):
            if not isinstance(e, dict) or not isinstance(e.get("name"), str):
                raise loc.error((*at, "events", i), "an event has a name")
            attrs = _attributes(loc, (*at, "events", i, "attributes"), e.get("attributes"))
            self.events.append((e["name"], attrs, (*at, "events", i)))

    def field(self, key: str) -> Loc:
        """Where the attribute `key` of this span is (its value), for errors."""
        if key in self.index:
            return (*self.at, "attributes", self.index[key], "value")
        return (*self.at, "attributes")

    def str_attr(self, key: str) -> str | None:
        v = self.attrs.get(key)
        if v is not None and not isinstance(v, str):
            raise self.loc.error(self.field(key), f"{key} must be a string")
        return v

    def int_attr(self, key: str) -> int:
        v = self.attrs.get(key, 0)
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise self.loc.error(self.field(key), f"{key} must be a whole number >= 0")
        return v


def _when(ns: int | None) -> datetime | None:
    return None if ns is None else datetime.fromtimestamp(ns / 1e9, UTC)


def parse_otel(path: Path) -> list[ParsedTrace]:
    """Every trace in `path` (spans grouped by trace id, in order of first appearance)."""
    spans: dict[str, list[_Span]] = {}
    first: dict[str, Locator] = {}
    for loc, doc in read_documents(path):
        if not isinstance(doc, dict) or not isinstance(doc.get("resourceSpans"), list):
            raise loc.error(("resourceSpans",), "required: a list (OTLP JSON)")
        for i, rs in enumerate(doc["resourceSpans"]):
            at: Loc = ("resourceSpans", i)
            if not isinstance(rs, dict):
                raise loc.error(at, "must be an object")
            res = rs.get("resource") or {}
            resource = _attributes(
                loc,
                (*at, "resource", "attributes"),
                res.get("attributes") if isinstance(res, dict) else None,
            )
            scopes = rs.get("scopeSpans") or []
            if not isinstance(scopes, list):
                raise loc.error((*at, "scopeSpans"), "must be a list")
            for j, ss in enumerate(scopes):
                raw_spans = ss.get("spans") if isinstance(ss, dict) else None
                if not isinstance(raw_spans, list):
                    raise loc.error((*at, "scopeSpans", j, "spans"), "required: a list of spans")
                for k, raw in enumerate(raw_spans):
                    span = _Span(loc, (*at, "scopeSpans", j, "spans", k), raw, resource)
                    spans.setdefault(span.trace_id, []).append(span)
                    first.setdefault(span.trace_id, loc)
    return [_trace(first[tid], tid, group) for tid, group in spans.items()]


class _Message(NamedTuple):
    """A span's chat message: tool calls (id, name, arguments), results (id, response)."""

    role: JsonValue
    text: str
    calls: list[tuple[JsonValue, JsonValue, JsonValue]]
    results: list[tuple[JsonValue, JsonValue]]
    where: Loc


def _messages_attr(span: _Span, key: str) -> list[dict[str, Any]] | None:
    raw = span.attrs.get(key)
    if raw is None:
        return None
    try:
        value = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        value = None
    if not isinstance(value, list) or not all(isinstance(m, dict) for m in value):
        raise span.loc.error(span.field(key), f"{key} must be a JSON list of messages")
    return value


def _norm(span: _Span, key: str, msg: dict[str, Any]) -> _Message:
    """A message of the conventions (role + parts)."""
    text: list[str] = []
    calls: list[tuple[JsonValue, JsonValue, JsonValue]] = []
    results: list[tuple[JsonValue, JsonValue]] = []
    parts = msg.get("parts")
    if not isinstance(parts, list):
        raise span.loc.error(span.field(key), f"{key}: a GenAI message has a list of parts")
    for p in parts:
        kind = p.get("type") if isinstance(p, dict) else None
        if kind == "text":
            text.append(str(p.get("content", "")))
        elif kind == "tool_call":
            calls.append((p.get("id"), p.get("name"), p.get("arguments")))
        elif kind == "tool_call_response":
            results.append((p.get("id"), p.get("response")))
    return _Message(msg.get("role"), "".join(text), calls, results, span.field(key))


def _from_events(span: _Span) -> tuple[list[_Message], list[_Message]]:
    """(inputs, outputs) from the older per-message events."""
    inputs: list[_Message] = []
    outputs: list[_Message] = []
    for name, a, where in span.events:
        role = {
            "gen_ai.system.message": "system",
            "gen_ai.user.message": "user",
            "gen_ai.assistant.message": "assistant",
            "gen_ai.tool.message": "tool",
            "gen_ai.choice": "assistant",
        }.get(name)
        if role is None:
            continue
        calls: list[tuple[JsonValue, JsonValue, JsonValue]] = []
        if "tool_calls" in a:
            try:
                raw = json.loads(a["tool_calls"]) if isinstance(a["tool_calls"], str) else None
            except ValueError:
                raw = None
            if not isinstance(raw, list):
                raise span.loc.error(
                    (*where, "attributes"), "tool_calls must be a JSON list of tool calls"
                )
            for c in raw:
                fn = c.get("function", {}) if isinstance(c, dict) else {}
                calls.append((c.get("id"), fn.get("name"), fn.get("arguments")))
        results = [(a.get("id"), a.get("content"))] if role == "tool" else []
        text = "" if role == "tool" else str(a.get("content") or "")
        msg = _Message(role, text, calls, results, (*where, "attributes"))
        (outputs if name == "gen_ai.choice" else inputs).append(msg)
    return inputs, outputs


def _key(m: _Message) -> str:
    """A message without where it was found: the same message in two spans is one message."""
    shown = {"role": m.role, "text": m.text, "calls": m.calls, "results": m.results}
    return json.dumps(shown, sort_keys=True, default=str)


def _trace(loc: Locator, trace_id: str, spans: list[_Span]) -> ParsedTrace:
    trace = ParsedTrace(trace_id=trace_id, source=loc.path, where=f"{loc.where} (trace {trace_id})")
    for s in spans:
        for key, value in s.attrs.items():
            if key.startswith("calibrant.") and isinstance(value, str):
                trace.attributes.setdefault(key, value)
    starts = [s.start for s in spans if s.start is not None]
    ends = [s.end for s in spans if s.end is not None]
    if starts and ends:
        trace.started, trace.finished = _when(min(starts)), _when(max(ends))
        trace.latency_ms = max(0.0, (max(ends) - min(starts)) / 1e6)
    ordered = sorted(spans, key=lambda s: s.start or 0)
    timeline: list[tuple[int, int, TraceTurn | TraceCall]] = []
    calls: dict[str, TraceCall] = {}
    history: list[str] = []
    system: list[str] = []
    tools = [s for s in ordered if s.attrs.get("gen_ai.operation.name") == "execute_tool"]
    for s in ordered:
        if s.attrs.get("gen_ai.operation.name") not in (
            "chat",
            "text_completion",
            "generate_content",
        ):
            continue
        trace.model_calls += 1
        trace.model = (
            s.str_attr("gen_ai.response.model") or s.str_attr("gen_ai.request.model") or trace.model
        )
        trace.input_tokens += s.int_attr("gen_ai.usage.input_tokens")
        trace.output_tokens += s.int_attr("gen_ai.usage.output_tokens")
        ins, outs = (
            _messages_attr(s, "gen_ai.input.messages"),
            _messages_attr(s, "gen_ai.output.messages"),
        )
        if ins is None and outs is None:
            inputs, outputs = _from_events(s)
        else:
            inputs = [_norm(s, "gen_ai.input.messages", m) for m in ins or []]
            outputs = [_norm(s, "gen_ai.output.messages", m) for m in outs or []]
        # each chat span repeats the conversation so far: only what follows it is new
        keys = [_key(m) for m in inputs]
        if keys[: len(history)] == history:
            new = inputs[len(history) :]
        else:
            new = [m for m, k in zip(inputs, keys, strict=True) if k not in history]
        history += [_key(m) for m in new + outputs]
        for m in new:
            _take(trace, s, m, s.start or 0, timeline, calls, system)
        for m in outputs:
            _take(trace, s, m, s.end or s.start or 0, timeline, calls, system)
    for s in tools:
        call_id = s.str_attr("gen_ai.tool.call.id") or ""
        name = s.str_attr("gen_ai.tool.name")
        if not call_id or not name:
            raise s.loc.error(
                s.field("gen_ai.tool.call.id" if not call_id else "gen_ai.tool.name"),
                "an execute_tool span needs gen_ai.tool.call.id and gen_ai.tool.name",
                "set both attributes on the span (as the GenAI conventions name them)",
            )
        call = calls.get(call_id)
        if call is None:
            call = TraceCall(
                call_id,
                name,
                parse_arguments(
                    s.loc,
                    s.field("gen_ai.tool.call.arguments"),
                    s.attrs.get("gen_ai.tool.call.arguments"),
                ),
                f"{loc.where} ({'.'.join(map(str, s.at))})",
            )
            trace.messages += 1  # a call no chat message named: a message of its own
            call.message_id = f"m{trace.messages}"
            calls[call_id] = call
            timeline.append((s.start or 0, len(timeline), call))
        else:
            timeline = [(s.start or t, i, e) if e is call else (t, i, e) for t, i, e in timeline]
        call.time = _when(s.start)
        if "gen_ai.tool.call.result" in s.attrs:
            call.answered, call.result = True, _result(s.attrs["gen_ai.tool.call.result"])
    trace.events = [e for _, _, e in sorted(timeline, key=lambda x: (x[0], x[1]))]
    trace.instructions = "\n".join(system) or None
    return trace


def _result(raw: Any) -> JsonValue:
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError):
            return raw
        return value if isinstance(value, dict | list) else raw
    return raw if isinstance(raw, dict | list | int | float | bool) else str(raw)


def _take(
    trace: ParsedTrace,
    s: _Span,
    m: _Message,
    when: int,
    timeline: list[tuple[int, int, TraceTurn | TraceCall]],
    calls: dict[str, TraceCall],
    system: list[str],
) -> None:
    role = m.role
    if role == "system":
        system.append(m.text)
        return
    trace.messages += 1
    mid = f"m{trace.messages}"  # the trace's messages, numbered in the order they were seen
    if role == "user" and m.text:
        timeline.append(
            (when, len(timeline), TraceTurn("customer", m.text, _when(when), message_id=mid))
        )
    elif role == "assistant":
        if m.text.strip():
            turn = TraceTurn(
                "agent", m.text, _when(when), message_id=mid, with_tool_call=bool(m.calls)
            )
            timeline.append((when, len(timeline), turn))
        for call_id, name, args in m.calls:
            if not isinstance(call_id, str) or not call_id or not isinstance(name, str) or not name:
                raise s.loc.error(
                    m.where,
                    "a tool call part needs an id and a name",
                    "give each tool_call part the id its tool_call_response answers and the "
                    "tool's name",
                )
            if call_id not in calls:
                call = TraceCall(
                    call_id,
                    name,
                    parse_arguments(s.loc, m.where, args),
                    f"{s.loc.where} ({'.'.join(map(str, s.at))})",
                    time=_when(when),
                    message_id=mid,
                )
                calls[call_id] = call
                timeline.append((when, len(timeline), call))
    for call_id, response in m.results:
        found = calls.get(call_id) if isinstance(call_id, str) else None
        if found is None:
            raise s.loc.error(
                m.where,
                f"a tool result answers no earlier tool call (id {call_id})",
                "put the message with the call before its result, or fix the id",
            )
        if not found.answered:
            found.answered, found.result = True, _result(response)
