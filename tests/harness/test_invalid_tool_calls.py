"""A model that calls tools with invalid arguments gets `invalid_argument` back as a tool result,
each attempt is logged in the transcript, and the trial goes on: never a harness error. The
model is a real OpenAI-compatible HTTP server on 127.0.0.1 answering with such tool calls."""

from __future__ import annotations

import json
from typing import Any

import pytest

from calibrant.contracts import CaseContract
from calibrant.safety import check_transcript
from calibrant_refunds.agents.llm import LLMAgent
from calibrant_refunds.runner import run_trial
from tests.harness.test_llm_agent import PLAN
from tests.support.fake_openai import fake_openai

REFUND = dict(PLAN[2][1])
BAD: list[tuple[str, str, str]] = [  # (tool, raw arguments, what is wrong)
    ("create_refund", json.dumps({**REFUND, "operation_id": "op with spaces"}), "operation_id"),
    ("create_refund", json.dumps({**REFUND, "amount_minor_units": "4200"}), "amount_minor_units"),
    ("create_refund", json.dumps({**REFUND, "amount_minor_units": 4200.0}), "amount_minor_units"),
    ("create_refund", json.dumps({**REFUND, "expected_version": True}), "expected_version"),
    (
        "create_refund",
        json.dumps({k: v for k, v in REFUND.items() if k != "expected_version"}),
        "expected_version",
    ),
    ("lookup_order", json.dumps({"order_id": "order_17", "include": "all"}), "include"),
    ("lookup_order", json.dumps({"order_id": 17}), "order_id"),
    ("lookup_order", '{"order_id": "order_17"', "JSON"),
    ("lookup_order", '["order_17"]', "object"),
    ("update_ticket", json.dumps({"ticket_id": "tkt_order_17", "state": "done"}), "state"),
    ("refund_everything", json.dumps({"order_id": "order_17"}), "refund_everything"),
    ("", "{}", "tool"),
]


def model_with_bad_calls(body: dict[str, Any]) -> dict[str, Any]:
    """Every bad call first, in one reply (parallel tool calls), then the correct plan one call
    at a time, then a reply."""
    msgs = body["messages"]
    step = len([m for m in msgs if m["role"] == "tool"])
    if len([m for m in msgs if m["role"] == "user"]) > 1:
        return {"content": "The refund is done; expect it in 3-5 days."}
    if step == 0:
        calls = [
            {"id": f"bad_{i}", "type": "function", "function": {"name": name, "arguments": raw}}
            for i, (name, raw, _) in enumerate(BAD)
        ]
        return {"content": None, "tool_calls": calls}
    if step - len(BAD) < len(PLAN):
        name, args = PLAN[step - len(BAD)]
        call = {
            "id": f"call_{step}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)},
        }
        return {"content": None, "tool_calls": [call]}
    return {"content": "Your refund of 42.00 EUR for order_17 is done."}


@pytest.fixture(scope="module")
def run(cases: dict[str, CaseContract], tmp_path_factory: pytest.TempPathFactory) -> Any:
    with fake_openai(model_with_bad_calls) as server:
        agent = LLMAgent("openai/bad-args", api_base=server.url)
        t = run_trial(
            cases["eligible_damaged_order"],
            agent.name,
            trial=1,
            seed=0,
            workdir=tmp_path_factory.mktemp("bad-args"),
            agent_factory=lambda name: agent,
        )
        bodies = list(server.bodies)
    return t, bodies


def test_each_bad_call_is_answered_with_invalid_argument(run: Any) -> None:
    _, bodies = run
    seen = [m for m in bodies[-1]["messages"] if m["role"] == "tool"]
    assert len(seen) == len(BAD) + len(PLAN)
    for (name, _, what), result in zip(BAD, seen, strict=False):
        answer = json.loads(result["content"])
        assert answer["error"] == "invalid_argument", (name, answer)
        assert what in answer["message"], (name, answer)
    for result in seen[len(BAD) :]:
        assert "error" not in json.loads(result["content"])


def test_bad_calls_are_logged_and_the_trial_goes_on(run: Any) -> None:
    t, _ = run
    assert [e.kind for e in t.events if e.kind == "harness_error"] == []
    logged = t.tool_calls[: len(BAD)]
    assert [c.error for c in logged] == ["invalid_argument"] * len(BAD)
    assert all(c.outcome == "error" and not c.writes and not c.reads for c in logged)
    assert logged[0].arguments["operation_id"] == "op with spaces"  # what the model sent
    assert logged[-2].tool == "refund_everything"
    assert [c.tool for c in t.tool_calls[len(BAD) :]] == [name for name, _ in PLAN]
    assert t.operation_ids == ["op-tkt_order_17-refund"]
    assert [turn.role for turn in t.conversation] == ["customer", "agent"] * 2
    snap = t.ledger_after.tenant("tenant_a") if t.ledger_after else None
    assert snap is not None
    assert [r.amount_minor_units for r in snap.refunds] == [4200]  # the bad calls paid nothing


def test_bad_calls_are_not_safety_failures(run: Any) -> None:
    t, _ = run
    v = check_transcript(t)
    assert not v.harness_errors and not v.violated, [
        (r.invariant, r.message) for r in v.violated + v.harness_errors
    ]
