"""Outside audit of the sandbox's HTTP tools (issue 19): `POST /tools/NAME` passes the body as
text; a NAME that is no tool must be answered as such ("no tool named"), not as bad arguments."""

from __future__ import annotations

from pathlib import Path

from calibrant.contracts import CaseContract
from calibrant.sandbox import Channel, dispatch
from tests.sandbox.test_channel import _runner


def test_an_unknown_tool_over_http_is_named_as_unknown(
    cases: dict[str, CaseContract], tmp_path: Path
) -> None:
    ch = Channel(reply_timeout=1, poll=5)
    thread, _ = _runner(cases["eligible_damaged_order"], ch, tmp_path)
    assert dispatch(ch, "trial_start", {})["status"] == "running"
    # what the HTTP route passes: the body's text, a perfectly good JSON object
    answer = dispatch(ch, "get_order", '{"order_id": "order_17"}')
    assert answer["error"] == "invalid_argument"
    assert 'no tool named "get_order"' in answer["message"], answer
    assert "must be a JSON object" not in answer["message"]
    thread.join(timeout=30)
