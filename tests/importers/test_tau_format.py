"""`calibrant import tau-bench` (issue 33, item 4): a benchmark's trajectory files as published —
tau-bench's list of {task_id, trial, reward, info, traj} and tau2-bench's {simulations: [...]} —
with no re-wrapping: the task is the case, the trial the trial number, the reward kept in the
provenance. `examples/traces/tau-bench/` holds an unchanged excerpt of tau-bench's published
file (docs/import.md imports it)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from calibrant.files import load_transcript
from tests.conftest import ROOT
from tests.support.cli import Result

Cli = Callable[..., Result]
EXCERPT = ROOT / "examples" / "traces" / "tau-bench" / "gpt-4o-airline-excerpt.json"
OPTS = ("--no-contract", "--tenant", "airline", "--agent-principal", "agent:gpt-4o")


def _transcripts(folder: Path) -> dict[str, Any]:
    return {
        t.transcript_id.split(":import:")[1]: t
        for t in map(load_transcript, sorted(folder.glob("*.json")))
    }


def test_the_published_file_imports_as_it_is(cli: Cli, tmp_path: Path) -> None:
    out = tmp_path / "tau"
    r = cli("import", "tau-bench", str(EXCERPT), "--out", str(out), *OPTS)
    assert r.code == 0, r.err
    assert "imported 3 trace(s) (tau-bench) from 1 file(s)" in r.out
    assert "tool call id was reused" in r.out and "task30-trial0, task39-trial1" in r.out
    ts = _transcripts(out)
    assert sorted(ts) == ["task30-trial0", "task39-trial1", "task49-trial0"]
    published = {
        f"task{e['task_id']}-trial{e['trial']}": e for e in json.loads(EXCERPT.read_text())
    }
    for trace, t in ts.items():
        e = published[trace]
        assert t.case_id == f"task{e['task_id']}"
        assert t.trial == e["trial"] + 1  # tau-bench counts trials from 0, calibrant from 1
        assert t.provenance.benchmark_reward == e["reward"]
        calls = [c for m in e["traj"] for c in m.get("tool_calls") or []]
        assert [c.tool for c in t.tool_calls] == [c["function"]["name"] for c in calls]
        said = [m["content"] for m in e["traj"] if m["role"] == "user"]
        assert [x.text for x in t.conversation if x.role == "customer"] == said
    raw = json.loads((out / next(p.name for p in out.glob("*task49*"))).read_text())
    assert raw["provenance"]["benchmark_reward"] == 1.0


def test_a_transcript_with_no_reward_carries_no_field(cli: Cli, tmp_path: Path) -> None:
    """Files written before the field read and hash as they did: absent when unset."""
    doc = json.loads(EXCERPT.read_text())[2]
    (tmp_path / "one.json").write_text(json.dumps({"id": "c1", "messages": doc["traj"]}))
    out = tmp_path / "chat"
    r = cli("import", "chat", str(tmp_path / "one.json"), "--out", str(out), *OPTS)
    assert r.code == 0, r.err
    (written,) = out.glob("*.json")
    assert "benchmark_reward" not in written.read_text()
    t = load_transcript(written)
    assert t.provenance.benchmark_reward is None and t.trial == 1


def _tau2(entry: dict[str, Any]) -> dict[str, Any]:
    """A tau-bench record in tau2-bench's results layout (calls {id, name, arguments}, tool
    messages naming their call in `id`, the reward under reward_info)."""
    messages = []
    for m in entry["traj"]:
        if m["role"] == "system":
            continue  # tau2 keeps the policy out of the simulation's messages
        if m["role"] == "tool":
            messages.append({"role": "tool", "id": m["tool_call_id"], "content": m["content"]})
            continue
        n = {"role": m["role"], "content": m.get("content")}
        if m.get("tool_calls"):
            n["tool_calls"] = [
                {
                    "id": c["id"],
                    "name": c["function"]["name"],
                    "arguments": json.loads(c["function"]["arguments"]),
                    "requestor": "assistant",
                }
                for c in m["tool_calls"]
            ]
        messages.append(n)
    return {
        "id": "sim-1",
        "task_id": str(entry["task_id"]),
        "trial": entry["trial"],
        "messages": messages,
        "reward_info": {"reward": entry["reward"]},
    }


def test_tau2_results_import_the_same_conversation(cli: Cli, tmp_path: Path) -> None:
    entry = json.loads(EXCERPT.read_text())[1]
    path = tmp_path / "tau2.json"
    path.write_text(json.dumps({"info": {}, "tasks": [], "simulations": [_tau2(entry)]}))
    r = cli("import", "tau-bench", str(path), "--out", str(tmp_path / "t2"), *OPTS)
    assert r.code == 0, r.err
    assert "tau2-bench messages: each tool call's {id, name, arguments}" in r.out
    r1 = cli("import", "tau-bench", str(EXCERPT), "--out", str(tmp_path / "t1"), *OPTS)
    assert r1.code == 0, r1.err
    two = _transcripts(tmp_path / "t2")["task39-trial1"]
    one = _transcripts(tmp_path / "t1")["task39-trial1"]
    assert two.provenance.benchmark_reward == 0.0 and two.trial == 2
    assert [(c.call_id, c.tool, c.arguments) for c in two.tool_calls] == [
        (c.call_id, c.tool, c.arguments) for c in one.tool_calls
    ]
    assert [(x.role, x.text) for x in two.conversation] == [
        (x.role, x.text) for x in one.conversation
    ]


def test_a_record_without_task_id_is_one_line_naming_it(cli: Cli, tmp_path: Path) -> None:
    records = json.loads(EXCERPT.read_text())
    del records[1]["task_id"]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(records, indent=1))
    out = tmp_path / "x"
    r = cli("import", "tau-bench", str(path), "--out", str(out), *OPTS)
    assert r.code == 2 and not out.exists()
    assert re.search(
        r"bad\.json:\d+: field '\[1\]\.task_id': required: the benchmark's task id .*; give "
        r"each trajectory the task_id the benchmark wrote",
        r.err,
    ), r.err


def test_a_bad_message_names_the_record_and_its_traj(cli: Cli, tmp_path: Path) -> None:
    records = json.loads(EXCERPT.read_text())
    records[2]["traj"][3]["role"] = "robot"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(records, indent=1))
    r = cli("import", "tau-bench", str(path), "--out", str(tmp_path / "x"), *OPTS)
    assert r.code == 2
    assert "field '[2].traj[3].role': unknown role \"robot\"" in r.err, r.err
