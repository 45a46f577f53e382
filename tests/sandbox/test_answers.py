"""The sandbox's own answers (its conversation tools, and the calls it refuses) are one model
sent as JSON: each answer carries only its own keys, never a null for what it does not say."""

from __future__ import annotations

from pathlib import Path

from calibrant.contracts import CaseContract
from calibrant.sandbox import Channel, dispatch
from tests.sandbox.test_channel import _runner

NO_TURN = {"error": "no_turn", "message": "no customer message is waiting; call trial_start"}


def test_each_answer_carries_only_its_own_keys(
    cases: dict[str, CaseContract], tmp_path: Path
) -> None:
    ch = Channel(reply_timeout=30, poll=0.2)
    version = ch.tools.schema_version
    assert dispatch(ch, "read_policy", {}) == NO_TURN
    assert dispatch(ch, "trial_start", {}) == {
        "status": "waiting",
        "message": "no trial is ready yet; call again",
        "tool_schema_version": version,
    }
    assert dispatch(ch, "trial_reply", "not an object") == {
        "error": "invalid_argument",
        "message": "trial_reply: arguments must be a JSON object",
        "problems": ["arguments must be a JSON object"],
    }
    thread, box = _runner(cases["eligible_damaged_order"], ch, tmp_path)
    start = dispatch(ch, "trial_start", {})
    while start["status"] == "waiting":  # the runner has not published the message yet
        start = dispatch(ch, "trial_start", {})
    assert list(start) == [
        "status", "session", "turn", "resumed", "message", "context", "tool_schema_version"
    ]  # fmt: skip
    assert (start["status"], start["turn"], start["resumed"]) == ("running", 1, False)
    assert isinstance(start["context"], dict) and start["context"]["ticket_id"]
    session = start["session"]
    answer = dispatch(ch, "trial_reply", {"text": "On it."})
    while answer.get("status") == "running":  # the customer's next messages, until the end
        answer = dispatch(ch, "trial_reply", {"text": "Done."})
    assert answer == {"status": "trial_finished", "session": session}
    assert dispatch(ch, "lookup_order", {"order_id": "order_17"}) == NO_TURN
    thread.join(timeout=30)
    assert len(box) == 1
    assert dispatch(ch, "trial_start", {}) == {
        "status": "all_finished",
        "tool_schema_version": version,
    }
