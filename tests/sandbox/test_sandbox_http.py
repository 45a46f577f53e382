"""The plain HTTP API (OpenAPI), MCP over stdio, a sandbox stopped mid-run, and bad input."""

from __future__ import annotations

import http.client
import json
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from calibrant.files import load_transcript
from calibrant_refunds.toolspec import TOOL_SPECS
from tests.conftest import CASES, ROOT, run_cli
from tests.sandbox.support import ENV, sandbox, supervise

ELIGIBLE = CASES / "eligible_damaged_order.yaml"
CRASH = CASES / "crash_before_checkpoint.yaml"


def _post(url: str, body: str, token: str) -> dict[str, Any]:
    req = urllib.request.Request(url, data=body.encode(), method="POST")
    req.add_header("Content-Type", "application/json")
    req.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(req, timeout=60) as r:
        return dict(json.loads(r.read()))


def _raw(url: str, path: str, body: str, headers: dict[str, str]) -> tuple[int, str]:
    """POST as any client could send it (a web page's fetch, a rebound DNS name): status, body."""
    host, port = url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        conn.request("POST", path, body=body.encode(), headers=headers)
        r = conn.getresponse()
        return r.status, r.read().decode()
    finally:
        conn.close()


@pytest.mark.slow  # `calibrant sandbox` in its own process, reached over HTTP
def test_http_api_has_the_tools_schemas_and_logs_what_the_agent_sent(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with sandbox([ELIGIBLE], out, "-k", "1", "--json") as s:
        with urllib.request.urlopen(f"{s.url}/openapi.json", timeout=30) as r:
            doc = json.loads(r.read())
        body = doc["paths"]["/tools/create_refund"]["post"]["requestBody"]
        spec = next(t for t in TOOL_SPECS if t["function"]["name"] == "create_refund")
        assert body["content"]["application/json"]["schema"] == spec["function"]["parameters"]
        assert {"/trial/start", "/trial/reply"} <= set(doc["paths"])
        # no customer message is waiting yet for this agent: refused, nothing logged
        early = _post(f"{s.url}/tools/read_policy", "{}", s.token)
        assert early["error"] == "no_turn"
        start = _post(f"{s.url}/trial/start", json.dumps({"agent_version": "curl-1"}), s.token)
        assert start["status"] == "running" and "order_17" in start["message"]
        assert start["context"]["tenant_id"] == "tenant_a"
        assert "eligible" not in json.dumps(start)  # the case is not given away
        bad = _post(f"{s.url}/tools/lookup_order", '{"order_id": ', s.token)
        assert bad["error"] == "invalid_argument"
        foreign = _post(f"{s.url}/tools/lookup_order", '{"order_id": "order_90"}', s.token)
        assert foreign.get("error") in ("not_found", "forbidden"), foreign
        nxt = _post(f"{s.url}/trial/reply", json.dumps({"text": "Looking into it."}), s.token)
        assert nxt["status"] == "running" and nxt["message"].startswith("Thanks")
        end = _post(f"{s.url}/trial/reply", json.dumps({"text": "Bye."}), s.token)
        assert end["status"] == "trial_finished"
        assert _post(f"{s.url}/trial/start", "{}", s.token)["status"] == "all_finished"
        code, stdout, err = s.finish()
    assert code == 0, err
    assert json.loads(stdout)["cases"][0]["successes"] == 0  # nothing was refunded
    (path,) = out.glob("*.json")
    t = load_transcript(path)
    assert [(c.tool, c.error) for c in t.tool_calls] == [
        ("lookup_order", "invalid_argument"),
        ("lookup_order", foreign["error"]),
    ]
    assert [turn.text for turn in t.conversation if turn.role == "agent"] == [
        "Looking into it.",
        "Bye.",
    ]
    assert t.provenance.agent_version == "curl-1"
    checked = run_cli("check", str(out), "--fail-on-violation")
    assert checked.code == 1 and "end_state_matches_contract" in checked.out


@pytest.mark.slow  # `calibrant sandbox` in its own process, reached over HTTP
def test_a_web_page_or_a_caller_without_the_token_cannot_drive_the_tools(tmp_path: Path) -> None:
    """While the sandbox runs, a page in the user's browser (foreign Origin, a rebound Host, a
    text/plain "simple" request that needs no CORS preflight) or a process that did not read
    the token tries to refund: every attempt is refused and none reaches the trial."""
    out = tmp_path / "out"
    with sandbox([ELIGIBLE], out, "-k", "1") as s:
        start = _post(f"{s.url}/trial/start", "{}", s.token)
        assert start["status"] == "running"
        auth = {"Authorization": f"Bearer {s.token}"}
        body = json.dumps({"order_id": "order_17", "amount_minor_units": 4200,
                           "operation_id": "op-evil", "reason": "page"})  # fmt: skip
        host = s.url.removeprefix("http://")
        attacks = [
            ("text/plain", {"Content-Type": "text/plain", **auth}, 400),
            (
                "foreign Origin",
                {"Content-Type": "application/json", "Origin": "http://evil.example", **auth},
                403,
            ),  # fmt: skip
            (
                "foreign Host",
                {"Content-Type": "application/json", "Host": "evil.example", **auth},
                421,
            ),  # fmt: skip
            ("no token", {"Content-Type": "application/json", "Host": host}, 401),
            (
                "wrong token",
                {"Content-Type": "application/json", "Authorization": "Bearer sbx_guess"},
                401,
            ),  # fmt: skip
        ]
        for what, headers, want in attacks:
            for path in ("/tools/create_refund", "/trial/reply"):
                status, text = _raw(s.url, path, body, headers)
                assert status == want, (what, path, status, text)
        status, _ = _raw(s.url, "/mcp", "{}", {"Content-Type": "application/json"})
        assert status == 401  # MCP needs the token too
        assert s.token and s.token in s.banner  # printed at start
        for text in ("Checking.", "Bye."):
            _post(f"{s.url}/trial/reply", json.dumps({"text": text}), s.token)
        code, _, err = s.finish()
    assert code == 0, err
    (path,) = out.glob("*.json")
    t = load_transcript(path)
    assert t.tool_calls == []  # no attempt reached the service
    assert [x.text for x in t.conversation if x.role == "agent"] == ["Checking.", "Bye."]


@pytest.mark.slow
def test_mcp_over_stdio_with_a_crash_fault(tmp_path: Path) -> None:
    """The agent starts the sandbox itself over stdio; the crash fault restarts it in place."""
    out = tmp_path / "out"
    server = [sys.executable, "-m", "calibrant", "sandbox", str(CRASH), "--out", str(out)]
    done = subprocess.run(
        [sys.executable, "-m", "calibrant_refunds.sandbox_client", "--on-crash", "restart"]
        + ["--checkpoints", str(tmp_path / "agent.sqlite"), "--stdio", *server]
        + ["--transport", "stdio", "-k", "2"],
        cwd=ROOT,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    files = sorted(out.glob("*.json"))
    assert len(files) == 2 and not (out / "TRIALS_INCOMPLETE").exists()
    for f in files:
        assert [e.kind for e in load_transcript(f).events][1:3] == ["crash", "resume"]
    checked = run_cli("check", str(out), "--fail-on-violation")
    assert checked.code == 0, checked.out + checked.err


@pytest.mark.slow
def test_sandbox_stopped_mid_run_resumes_with_the_same_command(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with sandbox([ELIGIBLE], out, "-k", "2") as s:
        _post(f"{s.url}/trial/start", "{}", s.token)  # trial 1 is under way when the sandbox stops
        s.proc.send_signal(signal.SIGINT)
        code, _, err = s.finish()
    assert code == 130, err
    assert "rerun the same command to resume" in err
    assert (out / "TRIALS_INCOMPLETE").exists() and not list(out.glob("*.json"))
    with sandbox([ELIGIBLE], out, "-k", "2", "--seed", "1") as s:
        code, _, err = s.finish()
    assert code == 2 and "unfinished run of another command" in err, err
    with sandbox([ELIGIBLE], out, "-k", "2") as s:  # the same command: resumed, then finished
        assert supervise(s, tmp_path / "agent.sqlite") == [0]
        code, _, err = s.finish()
    assert code == 0, err
    assert len(list(out.glob("*.json"))) == 2 and not (out / "TRIALS_INCOMPLETE").exists()
    assert run_cli("check", str(out), "--fail-on-violation").code == 0


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    for args, says in [
        (["--transport", "carrier-pigeon"], "--transport 'carrier-pigeon': choose http or stdio"),
        (["--agent", "my bot"], "--agent 'my bot'"),
        (["--port", "1", "--host", "256.0.0.1"], "cannot listen on 256.0.0.1:1"),
    ]:
        r = run_cli("sandbox", str(ELIGIBLE), "--out", str(tmp_path / "o"), *args)
        assert r.code == 2, (args, r.err)
        assert r.err.count("\n") == 1 and says in r.err, r.err
