"""Malformed traces: one line naming the file, the line and the field; exit 2; no output folder."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.support.cli import Result

ELIGIBLE = str(ROOT / "cases" / "eligible_damaged_order.yaml")
GOOD = ROOT / "tests" / "data" / "traces" / "chat" / "refunds.jsonl"
OTEL = ROOT / "tests" / "data" / "traces" / "otel" / "refunds.json"


def _run(cli: Callable[..., Result], fmt: str, path: Path, tmp: Path) -> Result:
    out = tmp / "out"
    r = cli("import", fmt, str(path), "--out", str(out), "--case", ELIGIBLE)
    assert r.code == 2, (r.out, r.err)
    assert not out.exists(), "nothing may be written"
    assert not list(tmp.glob(".out.import-*")), "no temporary folder left behind"
    lines = [x for x in r.err.splitlines() if x.strip()]
    assert len(lines) == 1, r.err
    return r


def _jsonl_with(tmp: Path, line3: str) -> Path:
    lines = GOOD.read_text().splitlines()
    lines[2] = line3
    p = tmp / "traces.jsonl"
    p.write_text("\n".join(lines) + "\n")
    return p


def test_bad_json_names_the_line(cli: Callable[..., Result], tmp_path: Path) -> None:
    r = _run(cli, "chat", _jsonl_with(tmp_path, '{"id": "x", "messages": [}'), tmp_path)
    assert "traces.jsonl:3: malformed JSON" in r.err


def test_missing_field_names_line_and_field(cli: Callable[..., Result], tmp_path: Path) -> None:
    conv = json.loads(GOOD.read_text().splitlines()[2])
    del conv["messages"][2]["tool_calls"][0]["function"]["name"]
    r = _run(cli, "chat", _jsonl_with(tmp_path, json.dumps(conv)), tmp_path)
    assert "traces.jsonl:3: field 'messages[2].tool_calls[0].function.name'" in r.err


def test_tool_message_without_a_matching_call(cli: Callable[..., Result], tmp_path: Path) -> None:
    conv = json.loads(GOOD.read_text().splitlines()[0])
    conv["messages"][3]["tool_call_id"] = "call_nobody"
    r = _run(cli, "chat", _jsonl_with(tmp_path, json.dumps(conv)), tmp_path)
    assert "traces.jsonl:3: field 'messages[3].tool_call_id'" in r.err
    assert "no earlier assistant tool call has id call_nobody" in r.err


def test_json_file_error_names_the_line_of_the_field(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    messages = json.loads((GOOD.parent / "single.json").read_text())
    messages[2]["tool_calls"][0]["function"]["arguments"] = "{not json"
    p = tmp_path / "one.json"
    p.write_text(json.dumps({"id": "one", "messages": messages}, indent=1))
    r = _run(cli, "chat", p, tmp_path)
    line = next(n for n, text in enumerate(p.read_text().splitlines(), 1) if "{not json" in text)
    assert f"one.json:{line}: field 'messages[2].tool_calls[0].function.arguments'" in r.err


@pytest.mark.parametrize(
    ("value", "why"),
    [({"intValue": "many"}, "must be an integer"), ({"color": "red"}, "an attribute value is")],
)
def test_bad_span_attribute(
    cli: Callable[..., Result], tmp_path: Path, value: dict[str, str], why: str
) -> None:
    doc = json.loads(OTEL.read_text())
    doc["resourceSpans"][0]["scopeSpans"][0]["spans"][1]["attributes"][7]["value"] = value
    p = tmp_path / "spans.json"
    p.write_text(json.dumps(doc, indent=1))
    r = _run(cli, "otel", p, tmp_path)
    assert "spans.json:" in r.err
    assert "field 'resourceSpans[0].scopeSpans[0].spans[1].attributes[7].value" in r.err
    assert why in r.err


def test_an_existing_output_folder_is_refused(cli: Callable[..., Result], tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    r = cli("import", "chat", str(GOOD), "--out", str(out), "--case", ELIGIBLE)
    assert r.code == 2 and "already exists" in r.err
    assert [p.name for p in out.iterdir()] == ["keep.txt"]


def _otel(tmp: Path, change: Callable[[dict[str, Any]], None]) -> Path:
    doc = json.loads(OTEL.read_text())
    change(doc["resourceSpans"][0]["scopeSpans"][0]["spans"])
    p = tmp / "spans.json"
    p.write_text(json.dumps(doc, indent=1))
    return p


def _attr(span: dict[str, Any], key: str) -> dict[str, Any]:
    return next(a for a in span["attributes"] if a["key"] == key)


def test_messages_attribute_that_is_not_json(cli: Callable[..., Result], tmp_path: Path) -> None:
    def change(spans: list[dict[str, Any]]) -> None:
        _attr(spans[1], "gen_ai.input.messages")["value"] = {"stringValue": "[{oops"}

    r = _run(cli, "otel", _otel(tmp_path, change), tmp_path)
    assert "field 'resourceSpans[0].scopeSpans[0].spans[1].attributes[4].value'" in r.err
    assert "gen_ai.input.messages must be a JSON list of messages" in r.err


def test_tool_span_without_a_call_id(cli: Callable[..., Result], tmp_path: Path) -> None:
    def change(spans: list[dict[str, Any]]) -> None:
        spans[2]["attributes"] = [
            a for a in spans[2]["attributes"] if a["key"] != "gen_ai.tool.call.id"
        ]

    r = _run(cli, "otel", _otel(tmp_path, change), tmp_path)
    assert "field 'resourceSpans[0].scopeSpans[0].spans[2].attributes'" in r.err
    assert "gen_ai.tool.call.id" in r.err


def test_old_event_with_tool_calls_that_are_not_json(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    def change(spans: list[dict[str, Any]]) -> None:
        b = next(s for s in spans if s["traceId"].startswith("7d1c"))
        b["events"][1]["attributes"][0]["value"] = {"stringValue": "not json"}

    r = _run(cli, "otel", _otel(tmp_path, change), tmp_path)
    assert "spans[11].events[1].attributes'" in r.err
    assert "tool_calls must be a JSON list" in r.err


def test_a_jsonl_conversation_needs_an_id(cli: Callable[..., Result], tmp_path: Path) -> None:
    conv = json.loads(GOOD.read_text().splitlines()[2])
    del conv["id"]
    r = _run(cli, "chat", _jsonl_with(tmp_path, json.dumps(conv)), tmp_path)
    assert "traces.jsonl:3: field 'id': required" in r.err


def test_no_agent_principal_writes_nothing(cli: Callable[..., Result], tmp_path: Path) -> None:
    r = _run(cli, "chat", GOOD.parent / "single.json", tmp_path)
    assert "single.json: no agent principal: give --agent-principal" in r.err


def test_a_trace_id_that_is_no_identifier(cli: Callable[..., Result], tmp_path: Path) -> None:
    conv = json.loads(GOOD.read_text().splitlines()[2])
    conv["id"] = "conv with spaces"
    r = _run(cli, "chat", _jsonl_with(tmp_path, json.dumps(conv)), tmp_path)
    assert "traces.jsonl:3: field 'id': trace id 'conv with spaces' is not an identifier" in r.err


def test_a_value_the_transcript_refuses_is_one_line(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    conv = json.loads(GOOD.read_text().splitlines()[2])
    conv["id"] = "c" * 195  # an identifier, but the transcript id it makes is over 200 characters
    r = _run(cli, "chat", _jsonl_with(tmp_path, json.dumps(conv)), tmp_path)
    assert "traces.jsonl:3: " in r.err and "(transcript field transcript_id)" in r.err


# --- issue 30: a trace id is one folder of --snapshots; text and numbers no transcript holds ---


def _duplicate_as(tmp: Path, trace_id: str) -> Path:
    """The double refund (conv-duplicate) as the only trace, under `trace_id`."""
    conv = next(json.loads(x) for x in GOOD.read_text().splitlines() if '"conv-duplicate"' in x)
    p = tmp / "traces.jsonl"
    p.write_text(json.dumps({**conv, "id": trace_id}) + "\n")
    return p


@pytest.mark.parametrize("shape", ["dot-dot", "absolute", "link"])
def test_a_trace_id_never_reads_snapshots_outside_the_snapshots_folder(
    cli: Callable[..., Result], tmp_path: Path, shape: str
) -> None:
    """A double refund whose id names forged snapshots elsewhere (the good refund's: one
    refund, so no_duplicate_payment would pass) is refused in one line, nothing written."""
    forged = tmp_path / "forged"
    forged.mkdir()
    for which in ("before", "after"):
        good = ROOT / "tests" / "data" / "traces" / "snapshots" / "conv-good" / f"{which}.json"
        (forged / f"{which}.json").write_text(good.read_text())
    snapshots = tmp_path / "snapshots"
    snapshots.mkdir()
    trace_id = {"dot-dot": "../forged", "absolute": str(forged), "link": "conv-link"}[shape]
    if shape == "link":
        (snapshots / "conv-link").symlink_to(forged, target_is_directory=True)
    trace = _duplicate_as(tmp_path, trace_id)
    out = tmp_path / "out"
    r = cli(
        "import", "chat", str(trace), "--out", str(out), "--case", ELIGIBLE,
        "--snapshots", str(snapshots),
    )  # fmt: skip
    assert r.code == 2, (r.out, r.err)
    assert not out.exists()
    [said] = [x for x in r.err.splitlines() if x.strip()]
    assert said.startswith(f"calibrant: error: {trace}:1: ")
    assert f"trace id {trace_id!r}" in said and "--snapshots" in said


def test_a_lone_surrogate_in_a_trace_is_one_line(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    conv = json.loads(GOOD.read_text().splitlines()[2])
    conv["messages"][1]["content"] = "my vase \ud83d is broken"  # json.dumps writes \\ud83d
    r = _run(cli, "chat", _jsonl_with(tmp_path, json.dumps(conv)), tmp_path)
    assert "traces.jsonl:3: field 'messages.1.content': a lone surrogate escape (\\ud83d)" in r.err


def test_a_number_of_thousands_of_digits_in_a_trace_is_one_line(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    line = GOOD.read_text().splitlines()[0].replace('"conv-good"', '"conv-big"')
    assert '"prompt_tokens": ' in line
    long = line.replace('"prompt_tokens": ', '"prompt_tokens": ' + "7" * 5000, 1)
    r = _run(cli, "chat", _jsonl_with(tmp_path, long), tmp_path)
    assert "traces.jsonl:3: a number of more than 4300 digits" in r.err
    one = tmp_path / "one.json"
    one.write_text("[\n" + "9" * 5000 + "\n]\n")
    r = _run(cli, "chat", one, tmp_path)
    assert "one.json:2: a number of more than 4300 digits" in r.err
