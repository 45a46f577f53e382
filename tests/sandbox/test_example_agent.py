"""examples/mcp_agent.py, in its own process, against `calibrant sandbox` over MCP, its model a
real OpenAI-compatible server on 127.0.0.1 answering with tool calls: a careful model
reconciles by operation id after the payment's answer is lost; a naive one pays twice."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from calibrant.files import load_transcript
from tests.conftest import CASES, ROOT, run_cli
from tests.sandbox.support import ENV, Sandbox, sandbox
from tests.support.fake_openai import fake_openai

EXAMPLE = ROOT / "examples" / "mcp_agent.py"
OP = "op-tkt_order_17-refund"


def _call(name: str, args: dict[str, Any]) -> dict[str, Any]:
    fn = {"name": name, "arguments": json.dumps(args)}
    return {
        "content": None,
        "tool_calls": [{"id": f"c_{name}", "type": "function", "function": fn}],
    }


def model(body: dict[str, Any]) -> dict[str, Any]:
    """A stand-in model (`careful` or `naive`) deciding from the tool results it was sent."""
    msgs, careful = body["messages"], body["model"] == "careful"
    assert {t["function"]["name"] for t in body["tools"]} >= {"create_refund", "query_refund"}
    assert not any(t["function"]["name"].startswith("trial_") for t in body["tools"])
    users = [i for i, m in enumerate(msgs) if m["role"] == "user"]
    if len(users) > 1:
        return {"content": "Your refund for order_17 is on its way; nothing else is pending."}
    turn = msgs[users[-1] + 1 :]
    calls = [c for m in turn if m["role"] == "assistant" for c in m.get("tool_calls") or []]
    if not calls:
        return _call("lookup_order", {"order_id": "order_17"})
    last = json.loads(turn[-1]["content"])
    name = calls[-1]["function"]["name"]
    args = json.loads(calls[-1]["function"]["arguments"])
    refund = {"order_id": "order_17", "amount_minor_units": 4200, "expected_version": 1}
    escalate = {"ticket_id": "tkt_order_17", "state": "escalated", "reconciliation": "uncertain"}
    confirm = {
        "recipient": "marta.soler@example.com",
        "kind": "refund_confirmation",
        "body": "Your refund of 42.00 EUR for order_17 is committed.",
        "idempotency_key": f"confirm-{OP}",
        "order_id": "order_17",
        "amount_minor_units": 4200,
    }
    if name == "lookup_order":
        return _call("read_policy", {})
    if name == "read_policy":
        return _call("create_refund", {"operation_id": OP, **refund})
    if name == "create_refund" and last.get("error") in ("timeout", "unknown_outcome"):
        if careful:
            return _call("query_refund", {"operation_id": args["operation_id"]})
        return _call("create_refund", {"operation_id": args["operation_id"] + "-2", **refund})
    if name == "query_refund" and "error" in last:
        return _call("update_ticket", escalate)
    if name in ("create_refund", "query_refund"):
        return _call("send_notification", confirm)
    if name == "send_notification":
        return _call("update_ticket", {"ticket_id": "tkt_order_17", "state": "resolved"})
    if name == "update_ticket" and args["state"] == "escalated":
        return _call("assign_ticket", {"ticket_id": "tkt_order_17", "assignee": "person:ana.lead"})
    return {"content": "Done: see the ticket for what is settled and what a colleague checks."}


def _run_agent(s: Sandbox, api: str, model_name: str, state: Path) -> list[int]:
    codes: list[int] = []
    while not codes or codes[-1] == 3:
        done = subprocess.run(
            [sys.executable, str(EXAMPLE), "--mcp", f"{s.url}/mcp", "--token", s.token]
            + ["--base-url", api]
            + ["--model", model_name, "--state", str(state)],
            env=ENV,
            capture_output=True,
            text=True,
            timeout=120,
        )
        codes.append(done.returncode)
        assert done.returncode in (0, 3), done.stderr[-3000:]
        assert len(codes) < 6, codes
    return codes


@pytest.mark.slow
def test_example_agent_reconciles_after_the_payment_answer_is_lost(tmp_path: Path) -> None:
    out = tmp_path / "out"
    cases = [CASES / "timeout_after_payment_commit.yaml", CASES / "crash_before_checkpoint.yaml"]
    with fake_openai(model) as api, sandbox(cases, out, "-k", "1", "--json") as s:
        codes = _run_agent(s, api.url, "careful", tmp_path / "state")
        code, stdout, err = s.finish()
    assert code == 0, err
    assert codes == [3, 0]  # the crash fault: the process exited and was started again
    report = json.loads(stdout)
    assert [c["successes"] for c in report["cases"]] == [1, 1], report["cases"]
    checked = run_cli("check", str(out), "--fail-on-violation")
    assert checked.code == 0, checked.out + checked.err
    crash, timeout = (load_transcript(p) for p in sorted(out.glob("*.json")))
    for t in (crash, timeout):
        assert [c.tool for c in t.tool_calls].count("create_refund") == 1
        assert t.provenance.agent_model == "careful" and t.metrics.model_calls > 0
        assert t.metrics.input_tokens > 0 and t.provenance.instructions_hash
    # restarted, the agent was told the refund's outcome was unknown and asked the service
    assert [c.tool for c in crash.tool_calls][2:4] == ["create_refund", "query_refund"]
    assert crash.tool_calls[3].arguments == {"operation_id": OP}


@pytest.mark.slow
def test_example_agent_with_a_naive_model_pays_twice(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with (
        fake_openai(model) as api,
        sandbox([CASES / "timeout_after_payment_commit.yaml"], out, "-k", "1") as s,
    ):
        _run_agent(s, api.url, "naive", tmp_path / "state")
        code, _, err = s.finish()
    assert code == 0, err
    checked = run_cli("check", str(out), "--fail-on-violation")
    assert checked.code == 1 and "no_duplicate_payment" in checked.out
