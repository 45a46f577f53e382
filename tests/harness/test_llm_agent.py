"""The LLM agent path: litellm tool calling against a real OpenAI-compatible server, and end to
end with the embedded model (a weak model may fail the case; the transcript must be complete)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from calibrant.contracts import CaseContract, Transcript
from calibrant.safety import check_transcript
from calibrant_refunds.agents import make_agent
from calibrant_refunds.agents.llm import LLMAgent
from calibrant_refunds.runner import run_trial
from tests.conftest import CASES, run_cli
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


def test_agent_errors_in_transcripts_and_reports_carry_no_url_credentials(
    cases: dict[str, CaseContract], tmp_path: Path
) -> None:
    """An endpoint given as http://user:password@host whose error quotes the URL and the user:
    the harness incident is kept, with the credentials masked, in the transcript and in the
    trials report (what `calibrant trials` writes and prints)."""
    with fake_openai(scripted_model) as server:
        base = server.url.replace("http://", "http://alice:s3cret-pw@")
        out = tmp_path / "run"
        done = run_cli(
            "trials",
            str(CASES / "eligible_damaged_order.yaml"),
            "--agent",
            "llm:openai/echo-auth",
            "--api-base",
            base,
            "-k",
            "1",
            "--out",
            str(out),
            "--json",
        )
    assert done.code == 0, done.err
    [path] = sorted(out.glob("*.json"))
    t = Transcript.model_validate_json(path.read_text())
    [event] = [e for e in t.events if e.kind == "harness_error"]
    # the provider's error is there (a harness incident, never dropped), its secrets are not
    assert "upstream http://***:***@llm.internal:8000/v1 refused user ***" in event.detail
    report = json.loads(done.out)
    assert report["cases"] and report["harness_incidents"]["value"] == 1.0
    for where, text in [
        ("transcript", path.read_text()),
        ("stdout", done.out),
        ("stderr", done.err),
    ]:
        assert "s3cret-pw" not in text and "alice" not in text, where


def test_an_api_base_whose_password_breaks_the_url_is_one_line(tmp_path: Path) -> None:
    done = run_cli(
        "trials",
        str(CASES / "eligible_damaged_order.yaml"),
        "--agent",
        "llm:openai/x",
        "--api-base",
        "http://alice:s3cret/pw@127.0.0.1:9/v1",  # a '/' in the password, not encoded
        "-k",
        "1",
        "--out",
        str(tmp_path / "run"),
    )
    assert done.code == 2, done.err
    lines = [x for x in done.err.splitlines() if x.strip()]
    assert len(lines) == 1 and "--api-base" in lines[0], done.err
    assert "s3cret" not in done.err and "Traceback" not in done.err


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
