"""A travel trial served to an agent in another process: `calibrant sandbox` on a free port
serves the pack's tools (its runtime's `tool_specs`) and the trial's public context over HTTP,
and the transcript it writes is a travel transcript of what that agent did."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from calibrant_travel import pack

from calibrant.files import load_transcript


class _Client:
    """An agent's side of the HTTP API: each tool or trial call is one POST with the token."""

    def __init__(self, url: str, token: str) -> None:
        self.url, self.headers = (
            url,
            {
                "Content-Type": "application/json",
                "Authorization": f"Bearer {token}",
            },
        )

    def post(self, path: str, payload: object) -> dict[str, Any]:
        """POST `payload` (JSON-encoded, or sent as is when it is text: a malformed body)."""
        body = payload if isinstance(payload, str) else json.dumps(payload)
        req = urllib.request.Request(
            self.url + path, data=body.encode(), headers=self.headers, method="POST"
        )
        with urllib.request.urlopen(req, timeout=60) as answer:
            return dict(json.loads(answer.read()))


@pytest.mark.slow  # `calibrant sandbox` in its own process, reached over HTTP
def test_an_external_agent_runs_a_travel_trial_over_http(tmp_path: Path) -> None:
    out = tmp_path / "out"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(sys.path),
        "CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 'store.db'}",
    }
    case = pack().cases / "rebook_correct.yaml"
    args = ["sandbox", str(case), "--out", str(out), "--port", "0", "-k", "1", "--json"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "calibrant", *args],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        banner = proc.stderr.readline()
        where = re.search(r"at (http://127\.0\.0\.1:\d+)/mcp", banner)
        token_at = re.search(r"; token (\S+) ", banner)
        assert where and token_at, (banner, proc.poll())
        url = where.group(1)
        agent = _Client(url, token_at.group(1))
        with urllib.request.urlopen(f"{url}/openapi.json", timeout=30) as r:
            doc = json.loads(r.read())
        assert {"/tools/hold_seat", "/tools/rebook", "/tools/charge_fare_difference"} <= set(
            doc["paths"]
        )
        start = agent.post("/trial/start", {"agent_version": "curl-1"})
        assert start["status"] == "running" and "BK-A1" in start["message"]
        context = start["context"]
        assert (context["tenant_id"], context["booking"]) == ("agency_a", "BK-A1")
        assert context["traveller"]["email"] == "ana.soler@example.es"
        bad = agent.post("/tools/find_booking", '{"booking_ref": ')
        assert bad["error"] == "invalid_argument"
        mine = {"booking_ref": "BK-A1", "traveller_email": context["traveller"]["email"]}
        found = agent.post("/tools/find_booking", mine)
        assert (found["booking_id"], found["status"]) == ("BK-A1", "active")
        nxt = agent.post("/trial/reply", {"text": "Looking into it."})
        assert nxt["status"] == "running"
        end = agent.post("/trial/reply", {"text": "Nothing changed yet."})
        assert end["status"] == "trial_finished"
        stdout, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err[-2000:]
    assert json.loads(stdout)["cases"][0]["successes"] == 0  # nothing was rebooked
    (path,) = out.glob("*.json")
    t = load_transcript(path)
    assert t.domain == "travel" and t.acting_tenant == "agency_a"
    assert [(c.tool, c.error) for c in t.tool_calls] == [
        ("find_booking", "invalid_argument"),
        ("find_booking", None),
    ]
    assert [turn.text for turn in t.conversation if turn.role == "agent"] == [
        "Looking into it.",
        "Nothing changed yet.",
    ]
