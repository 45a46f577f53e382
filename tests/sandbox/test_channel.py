"""The hand-over between the trial runner and an external agent, without a server: the runner
in a thread with an ExternalAgent, the agent's calls through `dispatch` in the test's thread."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from calibrant.contracts import CaseContract, Transcript
from calibrant.sandbox import Channel, ExternalAgent, dispatch
from calibrant_refunds.runner import run_trial
from calibrant_refunds.sandbox_client import CRASH_EXIT, play


def _runner(case: CaseContract, ch: Channel, work: Path) -> tuple[threading.Thread, list[Any]]:
    box: list[Any] = []

    def run() -> None:
        try:
            t = run_trial(
                case,
                "external:test",
                trial=1,
                seed=0,
                workdir=work,
                agent_factory=lambda name: ExternalAgent(name, ch),
            )
            box.append(t)
            ch.trial_finished(t.transcript_id)  # as serve_trials does once it is written
        except BaseException as exc:
            box.append(exc)
        finally:
            ch.all_done()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, box


def test_crash_fault_then_restart_from_the_agents_own_checkpoint(
    cases: dict[str, CaseContract], tmp_path: Path
) -> None:
    ch = Channel(reply_timeout=30, poll=5)
    assert dispatch(ch, "read_policy", {})["error"] == "no_turn"  # nothing given to the agent yet
    thread, box = _runner(cases["crash_before_checkpoint"], ch, tmp_path)
    calls: list[str] = []
    turns: list[tuple[int, bool]] = []  # (turn, resumed) of every message handed over

    def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
        calls.append(name)
        answer = dispatch(ch, name, args)
        if answer.get("status") == "running":
            turns.append((answer["turn"], answer["resumed"]))
        return answer

    ckpt = tmp_path / "agent.sqlite"
    assert play(call, behaviour="correct", checkpoints=ckpt) == CRASH_EXIT
    # the dead process's calls are refused until it comes back through trial_start
    assert dispatch(ch, "query_refund", {"operation_id": "op-x"})["error"] == "agent_crashed"
    assert play(call, behaviour="correct", checkpoints=ckpt) == 0
    thread.join(timeout=30)
    (t,) = box
    assert isinstance(t, Transcript)
    assert [e.kind for e in t.events][:3] == ["fault_fired", "crash", "resume"]
    assert "own durable checkpoint" in t.events[2].detail
    assert [c.tool for c in t.tool_calls].count("create_refund") == 1
    assert "query_refund" in [c.tool for c in t.tool_calls]  # reconciled after the restart
    assert t.provenance.agent_version == "scripted-mcp:correct"
    assert calls.count("trial_start") == 3  # start, restart, and the one that saw the end
    # the first message again after the crash, then the second message as a new turn
    assert turns == [(1, False), (2, True), (3, False)]


def test_bad_conversation_calls_are_answered_not_logged(
    cases: dict[str, CaseContract], tmp_path: Path
) -> None:
    ch = Channel(reply_timeout=30, poll=5)
    thread, box = _runner(cases["eligible_damaged_order"], ch, tmp_path)
    bad = dispatch(ch, "trial_start", {"agent_version": ""})
    assert bad["error"] == "invalid_argument" and "agent_version" in bad["message"]
    start = dispatch(ch, "trial_start", {"sampling": {"temperature": 0.2}})
    assert start["status"] == "running" and start["turn"] == 1
    assert dispatch(ch, "trial_reply", {"text": 5})["error"] == "invalid_argument"
    usage = {"model_calls": -1}
    assert dispatch(ch, "trial_reply", {"text": "x", "usage": usage})["error"] == "invalid_argument"
    nxt = dispatch(ch, "trial_reply", {"text": "On it.", "usage": {"model_calls": 2}})
    assert nxt["status"] == "running" and nxt["turn"] == 2
    end = dispatch(ch, "trial_reply", {"text": "Bye.", "usage": {"model_calls": 1}})
    assert end["status"] == "trial_finished"
    assert dispatch(ch, "lookup_order", {"order_id": "order_17"})["error"] == "no_turn"
    thread.join(timeout=30)
    (t,) = box
    assert isinstance(t, Transcript)
    assert t.tool_calls == [] and t.metrics.model_calls == 3
    assert t.provenance.sampling.temperature == 0.2
    assert [turn.text for turn in t.conversation if turn.role == "agent"] == ["On it.", "Bye."]


def test_a_silent_agent_is_a_harness_incident(
    cases: dict[str, CaseContract], tmp_path: Path
) -> None:
    ch = Channel(reply_timeout=1, poll=5)
    thread, box = _runner(cases["eligible_damaged_order"], ch, tmp_path)
    assert dispatch(ch, "trial_start", {})["status"] == "running"
    thread.join(timeout=30)  # no reply: the customer's wait runs out
    (t,) = box
    assert isinstance(t, Transcript)
    assert [e.kind for e in t.events] == ["harness_error"]
    assert "did not reply within 1 s" in t.events[0].detail
