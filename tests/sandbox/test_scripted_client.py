"""Issue 30 item 8: the reference MCP client (`python -m calibrant_refunds.sandbox_client`)
started without the sandbox's token used to die in a traceback (`Illegal header value b'Bearer
'`); it now says in one line which variable to set, before connecting to anything."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from calibrant_refunds.sandbox_client import main


def _closed_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    return f"http://127.0.0.1:{port}/mcp"


@pytest.mark.parametrize("token", [None, "", "two\nlines"])
def test_the_scripted_client_without_a_usable_token_names_the_variable_in_one_line(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    token: str | None,
) -> None:
    monkeypatch.delenv("CALIBRANT_SANDBOX_TOKEN", raising=False)
    given = [] if token is None else ["--token", token]
    args = ["--url", _closed_url(), "--checkpoints", str(tmp_path / "c.sqlite"), *given]
    code = main(args)
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    [said] = captured.err.splitlines()
    assert said.startswith("scripted client: error: ")
    assert "--token TOKEN or set CALIBRANT_SANDBOX_TOKEN" in said
    assert not (tmp_path / "c.sqlite").exists()  # nothing started
