"""The LLM agent path: litellm tool calling against a real OpenAI-compatible server, and end to
end with the embedded model (a weak model may fail the case; the transcript must be complete)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from calibrant.contracts import CaseContract
from calibrant.harness import run_trial
from calibrant.harness.agents import make_agent
from calibrant.harness.agents.llm import LLMAgent
from calibrant.safety import check_transcript
from tests.support.fake_openai import fake_openai

PLAN = [
    ("lookup_order", {"order_id": "order_17"}),
    ("read_policy", {}),
    (
        "create_refund",
        {
            "operation_id": "op-tkt_order_17-refund",
            "order_id": "order_17",
            "amount_minor_units": 4200,
            "expected_version": 1,
        },
    ),
    (
        "send_notification",
        {
            "recipient": "marta.soler@example.com",
            "kind": "refund_confirmation",
            "body": "Your refund of 42.00 EUR for order_17 is committed.",
            "idempotency_key": "confirm-op-tkt_order_17-refund",
            "order_id": "order_17",
            "amount_minor_units": 4200,
        },
    ),
    ("update_ticket", {"ticket_id": "tkt_order_17", "state": "resolved"}),
]


def scripted_model(body: dict[str, Any]) -> dict[str, Any]:
    """A stand-in LLM: the correct tool sequence, then a reply; it sees every tool result."""
    msgs = body["messages"]
    assert body["tools"] and msgs[0]["role"] == "system"
    done = [m for m in msgs if m["role"] == "tool"]
    if len(done) < len(PLAN) and len([m for m in msgs if m["role"] == "user"]) == 1:
        name, args = PLAN[len(done)]
        return {
            "content": None,
            "tool_calls": [
                {
                    "id": f"call_{len(done)}",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(args)},
                }
            ],
        }
    last = json.loads(done[-1]["content"]) if done else {}
    assert "error" not in last, last
    return {"content": "Your refund of 42.00 EUR for order_17 is done; expect it in 3-5 days."}


def test_llm_agent_tool_calling_over_http(cases: dict[str, CaseContract], tmp_path: Path) -> None:
    with fake_openai(scripted_model) as server:
        agent = LLMAgent("openai/scripted", api_base=server.url)
        t = run_trial(
            cases["eligible_damaged_order"],
            agent.name,
            trial=1,
            seed=0,
            workdir=tmp_path,
            agent_factory=lambda name: agent,
        )
    assert [c.tool for c in t.tool_calls] == [name for name, _ in PLAN]
    assert [turn.role for turn in t.conversation] == ["customer", "agent"] * 2
    assert t.metrics.model_calls == len(PLAN) + 2 and t.metrics.input_tokens > 0
    assert t.provenance.agent_model == "openai/scripted" and t.provenance.instructions_hash
    v = check_transcript(t)
    assert not v.violated and not v.harness_errors


def test_provider_failure_is_a_harness_incident_not_a_lost_trial(
    cases: dict[str, CaseContract], tmp_path: Path
) -> None:
    with fake_openai(scripted_model) as server:
        agent = LLMAgent("openai/bad-request", api_base=server.url)
        t = run_trial(
            cases["eligible_damaged_order"],
            agent.name,
            trial=1,
            seed=0,
            workdir=tmp_path,
            agent_factory=lambda name: agent,
        )
    assert [e.kind for e in t.events] == ["harness_error"]
    v = check_transcript(t)
    assert "evidence_integrity" in {r.invariant for r in v.harness_errors}


@pytest.mark.slow
def test_llm_agent_end_to_end_on_the_embedded_model(
    cases: dict[str, CaseContract], tmp_path: Path
) -> None:
    agent = make_agent("llm:calibrant-local/smollm2-135m")
    t = run_trial(cases["eligible_damaged_order"], agent.name, trial=1, seed=0, workdir=tmp_path)
    # a 135M model need not succeed; the transcript and verdicts must be complete and consistent
    assert [turn.role for turn in t.conversation] == ["customer", "agent"] * 2
    assert all(turn.text for turn in t.conversation)
    assert t.metrics.model_calls >= 2 and t.metrics.output_tokens > 0
    assert t.metrics.cost_usd == 0.0 and t.ledger_before and t.ledger_after
    v = check_transcript(t)
    assert len(v.results) == 16 and not v.harness_errors
