"""Logs import as they are (issue 33, item 3): real benchmark trajectories that reuse tool call
ids and name their tool messages, text sent beside a tool call, parallel calls from one
message, many cases in one import, traces with no case contract, and errors that say what to
do. `examples/traces/tau-bench/` holds an unchanged excerpt of a public benchmark's published
logs."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from calibrant.files import load_transcript
from tests.conftest import ROOT
from tests.support.cli import Result

Cli = Callable[..., Result]
TRACES = ROOT / "tests" / "data" / "traces"
SNAPSHOTS = TRACES / "snapshots"
EXCERPT = ROOT / "examples" / "traces" / "tau-bench" / "gpt-4o-airline-excerpt.json"


def _conversations(path: Path) -> dict[str, dict[str, Any]]:
    return {d["id"]: d for d in map(json.loads, path.read_text().splitlines())}


def _jsonl(path: Path, docs: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    return path


def _check(cli: Cli, folder: Path) -> dict[str, dict[str, tuple[str, str]]]:
    """trace id -> invariant -> (outcome, message), as `calibrant check --jsonl` prints them."""
    r = cli("check", str(folder), "--jsonl")
    assert r.code == 0, r.err
    out = {}
    for line in r.out.splitlines():
        doc = json.loads(line)
        if "results" in doc:
            out[doc["transcript_id"].split(":import:")[1]] = {
                x["invariant"]: (x["outcome"], x.get("message") or x.get("detail") or "")
                for x in doc["results"]
            }
    return out


def _transcripts(folder: Path) -> dict[str, Any]:
    return {
        t.transcript_id.split(":import:")[1]: t
        for t in map(load_transcript, sorted(folder.glob("*.json")))
    }


# --- a public benchmark's published logs ------------------------------------------------------


@pytest.fixture
def tau_bench(tmp_path: Path) -> Path:
    """The excerpt's trajectories as chat conversations: each `traj` (the messages, untouched)
    with an id, the task as its case id and the benchmark's agent as principal."""
    docs = [
        {
            "id": f"task{e['task_id']}-trial{e['trial']}",
            "metadata": {
                "calibrant.case": f"airline-task-{e['task_id']}",
                "calibrant.tenant": "airline",
                "calibrant.agent_principal": "agent:gpt-4o",
            },
            "messages": e["traj"],
        }
        for e in json.loads(EXCERPT.read_text())
    ]
    return _jsonl(tmp_path / "tau.jsonl", docs)


def test_real_logs_with_reused_ids_and_named_tool_messages_import(
    cli: Cli, tmp_path: Path, tau_bench: Path
) -> None:
    out = tmp_path / "tau"
    r = cli("import", "chat", str(tau_bench), "--out", str(out), "--no-contract")
    assert r.code == 0, r.err
    assert "imported 3 trace(s) (chat) from 1 file(s)" in r.out
    assert "3 with no case contract (end state not judged)" in r.out
    reused = next(x for x in r.out.splitlines() if "tool call id was reused" in x)
    assert "(2 time(s), 2 trace(s): task30-trial0, task39-trial1)" in reused
    beside = next(x for x in r.out.splitlines() if "same message as a tool call" in x)
    assert "was seen by the customer (--tool-call-text shown" in beside
    assert "2 trace(s): task30-trial0, task49-trial0" in beside

    t = _transcripts(out)["task30-trial0"]
    raw = json.loads(EXCERPT.read_text())[0]["traj"]
    ids = [c.call_id for c in t.tool_calls]
    assert len(ids) == len(set(ids))
    twice = "call_32edJPu7LGDedExFMyjDURJS"
    first, second = (c for c in t.tool_calls if c.call_id.startswith(twice))
    assert (first.call_id, second.call_id) == (twice, f"{twice}:2")
    # each answered by the tool message that followed it (by id, then in order)
    answers = [m for m in raw if m.get("role") == "tool" and m["tool_call_id"] == twice]
    assert [m["name"] for m in answers] == [first.tool, second.tool]
    for call, m in zip((first, second), answers, strict=True):
        assert json.dumps(call.response) == json.dumps(json.loads(m["content"])) or (
            call.response == m["content"]
        )
    # the text sent with the transfer call is the agent's words, marked, in the call's message
    i = next(n for n, m in enumerate(raw) if m.get("tool_calls") and m.get("content"))
    turn = next(x for x in t.conversation if x.message_id == f"m{i}")
    assert turn.role == "agent" and turn.with_tool_call and turn.text == raw[i]["content"]
    assert turn.seen_by_customer is None
    call = next(c for c in t.tool_calls if c.message_id == f"m{i}")
    assert call.tool == raw[i]["tool_calls"][0]["function"]["name"]
    assert all(x.message_id for x in [*t.conversation, *t.tool_calls])

    v = _check(cli, out)
    for trace in ("task30-trial0", "task39-trial1", "task49-trial0"):
        outcome, message = v[trace]["end_state_matches_contract"]
        assert outcome == "not_applicable"
    assert "no case contract was given for case airline-task-30" in json.dumps(
        v["task30-trial0"]["end_state_matches_contract"]
    )


def test_without_no_contract_the_real_logs_say_what_to_do(
    cli: Cli, tmp_path: Path, tau_bench: Path
) -> None:
    (tmp_path / "cases").mkdir()
    shutil.copy(ROOT / "cases" / "eligible_damaged_order.yaml", tmp_path / "cases")
    out = tmp_path / "no"
    r = cli("import", "chat", str(tau_bench), "--out", str(out), "--cases", str(tmp_path / "cases"))
    assert r.code == 2 and not out.exists()
    assert re.search(
        r"tau\.jsonl:1: field 'calibrant\.case': the trace names case airline-task-30, which "
        r"is not in --cases \S+; add its case file there, map the trace to a case in "
        r"--case-map, or import with --no-contract",
        r.err,
    ), r.err


# --- tool messages with a name ----------------------------------------------------------------


def _good() -> dict[str, Any]:
    return _conversations(TRACES / "chat" / "refunds.jsonl")["conv-good"]


def test_a_tool_message_naming_another_tool_is_one_line_that_says_what_to_do(
    cli: Cli, tmp_path: Path
) -> None:
    conv = _good()
    conv["messages"][3]["name"] = "lookup_order"  # right: accepted
    conv["messages"][5]["name"] = "lookup_order"  # answers call_policy_1, a read_policy call
    path = _jsonl(tmp_path / "named.jsonl", [conv])
    r = cli("import", "chat", str(path), "--out", str(tmp_path / "o"), "--case",
            str(ROOT / "cases" / "eligible_damaged_order.yaml"))  # fmt: skip
    assert r.code == 2 and not (tmp_path / "o").exists()
    assert r.err.strip().endswith(
        "named.jsonl:1: field 'messages[5].name': the tool message names tool "
        '"lookup_order", but the call it answers (call_policy_1, messages[4].tool_calls[0]) '
        'called "read_policy"; fix the name or the tool_call_id so both name the same call'
    ), r.err
    conv["messages"][5]["name"] = "read_policy"
    _jsonl(path, [conv])
    r = cli("import", "chat", str(path), "--out", str(tmp_path / "o"), "--case",
            str(ROOT / "cases" / "eligible_damaged_order.yaml"))  # fmt: skip
    assert r.code == 0, r.err


def test_a_tool_message_answering_nothing_says_what_to_do(cli: Cli, tmp_path: Path) -> None:
    conv = _good()
    conv["messages"].append(dict(conv["messages"][3]))  # call_lookup_1 answered a second time
    path = _jsonl(tmp_path / "twice.jsonl", [conv])
    r = cli("import", "chat", str(path), "--out", str(tmp_path / "o"))
    assert r.code == 2
    assert (
        "twice.jsonl:1: field 'messages[12].tool_call_id': every tool call with id "
        "call_lookup_1 is already answered; remove the extra tool message, or give it the id "
        "of the call it answers"
    ) in r.err


# --- parallel calls, text beside a call ---------------------------------------------------------


def test_parallel_calls_stay_one_agent_message(cli: Cli, tmp_path: Path) -> None:
    out = tmp_path / "p"
    r = cli(
        "import", "chat", str(TRACES / "chat" / "refunds.jsonl"), "--out", str(out),
        "--case", str(ROOT / "cases" / "eligible_damaged_order.yaml"),
        "--snapshots", str(SNAPSHOTS),
    )  # fmt: skip
    assert r.code == 0, r.err
    t = _transcripts(out)["conv-good"]
    ticket, notify = (c for c in t.tool_calls if c.call_id in ("call_ticket_1", "call_notify_1"))
    assert ticket.message_id == notify.message_id == "m8"  # one assistant message, two calls
    assert len({c.message_id for c in t.tool_calls}) == len(t.tool_calls) - 1
    assert not any(x.message_id == "m8" for x in t.conversation)  # no text: no turn
    # a file without the new fields (written before them) reads and writes the same bytes
    text = (out / next(p.name for p in out.glob("*conv-good*"))).read_text()
    doc = json.loads(text)
    for x in [*doc["conversation"], *doc["tool_calls"]]:
        del x["message_id"]
    old = json.dumps(doc, indent=1, ensure_ascii=False)
    from calibrant.contracts import Transcript, content_hash

    again = Transcript.model_validate_json(old)
    assert again.model_dump_json(indent=1) == old
    assert content_hash(again) == content_hash(json.loads(old))


def _leak_beside_a_call() -> dict[str, Any]:
    """conv-cross-leaked with the agent's two answers (the other tenant's order and its
    customer's address) sent as one text beside a hand-over call: a leak if the customer saw
    it."""
    conv = _conversations(TRACES / "chat" / "cross_tenant.jsonl")["conv-cross-leaked"]
    msgs = conv["messages"]
    said = f"{msgs[4]['content']} {msgs[6]['content']}"
    call = {"id": "call_handover_1", "type": "function",
            "function": {"name": "hand_over", "arguments": "{}"}}  # fmt: skip
    conv["messages"] = [
        *msgs[:4],
        {"role": "assistant", "content": said, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_handover_1", "name": "hand_over", "content": "{}"},
    ]
    return conv


@pytest.mark.parametrize(
    ("setting", "outcome", "seen"),
    [("shown", "violated", None), ("hidden", "pass", False)],
)
def test_text_beside_a_call_counts_as_said_unless_the_source_hid_it(
    cli: Cli, tmp_path: Path, setting: str, outcome: str, seen: bool | None
) -> None:
    path = _jsonl(tmp_path / "conv.jsonl", [_leak_beside_a_call()])
    out = tmp_path / setting
    r = cli(
        "import", "chat", str(path), "--out", str(out), "--tool-call-text", setting,
        "--case", str(ROOT / "cases" / "cross_tenant_lookup.yaml"),
        "--snapshots", str(SNAPSHOTS),
    )  # fmt: skip
    assert r.code == 0, r.err
    assert f"(--tool-call-text {setting}" in r.out and "1 trace(s): conv-cross-leaked" in r.out
    t = _transcripts(out)["conv-cross-leaked"]
    turn = next(x for x in t.conversation if x.with_tool_call)
    assert turn.message_id == "m4" and turn.seen_by_customer is seen
    assert "marta.sole@example.net" in turn.text  # kept verbatim either way
    # the judge reads it too, told how it was sent
    from calibrant.files import load_rubric
    from calibrant.judge.prompt import build_prompt

    prompt = build_prompt(t, load_rubric(ROOT / "rubrics" / "refund_communication.yaml")).user
    header = "agent message sent with a tool call" + (
        " (not seen by the customer)" if setting == "hidden" else " ---"
    )
    assert f"{turn.turn_id} · t={turn.seq} · {header}" in prompt
    v = _check(cli, out)["conv-cross-leaked"]
    assert v["no_cross_tenant_leak"][0] == outcome
    assert v["no_cross_tenant_reads"][0] == "violated"  # what the agent read is unchanged


def test_an_unknown_tool_call_text_setting_is_refused(cli: Cli, tmp_path: Path) -> None:
    r = cli("import", "chat", str(TRACES / "chat" / "single.json"), "--out",
            str(tmp_path / "o"), "--tool-call-text", "maybe")  # fmt: skip
    assert r.code == 2
    assert "--tool-call-text: Input should be 'shown' or 'hidden'; see calibrant import --help" in (
        r.err
    )


# --- many cases per import, and no contract -----------------------------------------------------


def _four_traces(tmp_path: Path, *, fourth_case: str | None) -> Path:
    """3 traces over 2 cases (by their calibrant.case) and one whose case has no file."""
    refunds = _conversations(TRACES / "chat" / "refunds.jsonl")
    cross = _conversations(TRACES / "chat" / "cross_tenant.jsonl")
    docs = [refunds["conv-good"], refunds["conv-duplicate"], cross["conv-cross-leaked"]]
    for d in docs[:2]:
        d["metadata"]["calibrant.case"] = "eligible_damaged_order"
    lone = refunds["conv-lying-tool"]
    lone["metadata"]["calibrant.tenant"] = "tenant_a"
    if fourth_case is not None:
        lone["metadata"]["calibrant.case"] = fourth_case
    return _jsonl(tmp_path / "four.jsonl", [*docs, lone])


@pytest.fixture
def cases(tmp_path: Path) -> Path:
    folder = tmp_path / "cases"
    folder.mkdir()
    for name in ("eligible_damaged_order.yaml", "cross_tenant_lookup.yaml"):
        shutil.copy(ROOT / "cases" / name, folder / name)
    return folder


def test_many_cases_in_one_import_and_one_trace_without_a_contract(
    cli: Cli, tmp_path: Path, cases: Path
) -> None:
    traces = _four_traces(tmp_path, fourth_case="refund_after_outage")
    out = tmp_path / "many"
    args = ("import", "chat", str(traces), "--out", str(out), "--cases", str(cases),
            "--snapshots", str(SNAPSHOTS))  # fmt: skip
    r = cli(*args)
    assert r.code == 2 and not out.exists()
    assert "four.jsonl:4: field 'calibrant.case': the trace names case refund_after_outage" in r.err

    r = cli(*args, "--no-contract")
    assert r.code == 0, r.err
    assert "imported 4 trace(s)" in r.out and "1 with no case contract" in r.out
    t = _transcripts(out)
    assert {k: (x.case_id, x.case.case if x.case else None) for k, x in t.items()} == {
        "conv-good": ("eligible_damaged_order", "eligible_damaged_order"),
        "conv-duplicate": ("eligible_damaged_order", "eligible_damaged_order"),
        "conv-cross-leaked": ("cross_tenant_lookup", "cross_tenant_lookup"),
        "conv-lying-tool": ("refund_after_outage", None),
    }
    v = _check(cli, out)
    assert v["conv-good"]["end_state_matches_contract"][0] == "pass"
    assert v["conv-duplicate"]["no_duplicate_payment"][0] == "violated"
    assert v["conv-cross-leaked"]["no_cross_tenant_leak"][0] == "violated"
    outcome, message = v["conv-lying-tool"]["end_state_matches_contract"]
    assert outcome == "not_applicable"
    assert t["conv-lying-tool"].end_state_not_judged == (
        f"no case contract for case refund_after_outage in {cases} (imported with --no-contract)"
    )
    # the other invariants still read the snapshots: its false confirmation is still found
    assert v["conv-lying-tool"]["confirmation_matches_ledger"][0] == "violated"


def test_a_case_map_names_the_case_of_a_trace_that_names_none(
    cli: Cli, tmp_path: Path, cases: Path
) -> None:
    traces = _four_traces(tmp_path, fourth_case=None)
    mapping = tmp_path / "map.yaml"
    mapping.write_text("conv-lying-tool: eligible_damaged_order\n")
    out = tmp_path / "mapped"
    r = cli("import", "chat", str(traces), "--out", str(out), "--cases", str(cases),
            "--case-map", str(mapping), "--snapshots", str(SNAPSHOTS))  # fmt: skip
    assert r.code == 0, r.err
    v = _check(cli, out)
    assert v["conv-lying-tool"]["end_state_matches_contract"][0] == "violated"

    mapping.write_text("conv-good: eligible_damaged_order\nconv-lying-tool: 7\n")
    r = cli("import", "chat", str(traces), "--out", str(tmp_path / "x"), "--cases", str(cases),
            "--case-map", str(mapping))  # fmt: skip
    assert r.code == 2
    assert "map.yaml:2: field 'conv-lying-tool': must be a case id (a string); write the id" in (
        r.err
    )


def test_no_contract_without_any_case(cli: Cli, tmp_path: Path) -> None:
    conv = _good()
    conv["metadata"]["calibrant.tenant"] = "tenant_a"
    path = _jsonl(tmp_path / "bare.jsonl", [conv])
    out = tmp_path / "bare"
    r = cli("import", "chat", str(path), "--out", str(out), "--no-contract",
            "--snapshots", str(SNAPSHOTS))  # fmt: skip
    assert r.code == 0, r.err
    t = _transcripts(out)["conv-good"]
    assert t.case_id == "no-contract" and t.case is None
    outcome, _ = _check(cli, out)["conv-good"]["end_state_matches_contract"]
    assert outcome == "not_applicable"
    r = cli("import", "chat", str(path), "--out", str(tmp_path / "x"))
    assert r.code == 2
    assert (
        "no case: give --case or --cases, set the attribute calibrant.case, or import with "
        "--no-contract" in r.err
    )


def test_case_and_cases_together_are_refused(cli: Cli, tmp_path: Path, cases: Path) -> None:
    single = str(TRACES / "chat" / "single.json")
    one = str(cases / "eligible_damaged_order.yaml")
    r = cli(
        "import", "chat", single, "--out", str(tmp_path / "o"), "--case", one, "--cases", str(cases)
    )
    assert r.code == 2 and "--case and --cases: give one" in r.err


# --- every error says what to do ----------------------------------------------------------------


BAD = [
    ({"id": "x"}, "messages", "put the conversation's"),
    ({"messages": []}, "id", "give each conversation"),
    ({"id": "x", "messages": [{"role": "robot"}]}, "messages[0].role", "give system, user"),
    (
        {"id": "x", "messages": [{"role": "tool", "tool_call_id": "c", "content": ""}]},
        "messages[0].tool_call_id",
        "put the assistant message with this call before",
    ),
    (
        {
            "id": "x",
            "messages": [
                {
                    "role": "assistant",
                    "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": "{nope"}}],
                }
            ],
        },
        "messages[0].tool_calls[0].function.arguments",
        "write them as a JSON object",
    ),  # fmt: skip
    (
        {"id": "x", "metadata": {"calibrant.case": 3}, "messages": []},
        "metadata.calibrant.case",
        'write it as a string ("3")',
    ),
    ({"id": "x", "messages": [{"role": "user", "content": 5}]}, "messages[0].content", "write it"),
]


@pytest.mark.parametrize(("doc", "field", "do"), BAD)
def test_every_bad_trace_error_names_where_and_what_to_do(
    cli: Cli, tmp_path: Path, doc: dict[str, Any], field: str, do: str
) -> None:
    path = _jsonl(tmp_path / "bad.jsonl", [doc])
    r = cli("import", "chat", str(path), "--out", str(tmp_path / "o"))
    assert r.code == 2 and not (tmp_path / "o").exists()
    line = r.err.strip()
    assert "\n" not in line
    assert f"bad.jsonl:1: field '{field}': " in line, line
    assert f"; {do}" in line, line


def test_otel_spans_give_message_ids_too(cli: Cli, tmp_path: Path) -> None:
    out = tmp_path / "otel"
    r = cli("import", "otel", str(TRACES / "otel" / "refunds.json"), "--out", str(out),
            "--case", str(ROOT / "cases" / "eligible_damaged_order.yaml"))  # fmt: skip
    assert r.code == 0, r.err
    t = _transcripts(out)["4bf92f3577b34da6a3ce929d0e0e4736"]
    assert all(x.message_id for x in [*t.conversation, *t.tool_calls])
    by_message: dict[str, list[str]] = {}
    for c in t.tool_calls:
        by_message.setdefault(c.message_id or "", []).append(c.call_id)
    assert sorted(by_message.values(), key=len)[-1] == ["call_o4", "call_o5"]  # one message


def test_cases_of_two_domains_in_one_folder_are_refused(
    cli: Cli, tmp_path: Path, cases: Path
) -> None:
    shutil.copy(ROOT / "examples" / "traces" / "travel" / "rebook_correct.yaml", cases)
    r = cli("import", "chat", str(TRACES / "chat" / "single.json"), "--out",
            str(tmp_path / "o"), "--cases", str(cases))  # fmt: skip
    assert r.code == 2 and not (tmp_path / "o").exists()
    assert re.search(
        r"--cases \S+: case '\w+' is domain '\w+', not '\w+' \(case '\w+'\); import each "
        r"domain's traces on their own",
        r.err,
    ), r.err
