"""Nothing listening at the judge's endpoint: `judge` and `score` stop at once, in one line that
names the URL, exit 2 (an `--api-base` that cannot be called), instead of retrying every item.
A real closed port on this machine; the real command line run to its end (the `cli` fixture:
the exit code and stderr a user sees, see tests/support/cli.py)."""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.support.cli import Result

EXAMPLES = ROOT / "examples" / "transcripts"


def _closed_port() -> int:
    """A port nothing listens on: bound once to learn it, then closed."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", port)) != 0  # refused, as the judge will be
    return port


@pytest.mark.parametrize("command", ["judge", "score"])
def test_a_refused_connection_fails_fast_naming_the_url(
    command: str, cli: Callable[..., Result], tmp_path: Path
) -> None:
    items = tmp_path / "items"
    items.mkdir()
    for k, name in enumerate(["good-eligible", "good-timeout", "broken-false-completion"] * 4):
        doc = (EXAMPLES / f"{name}.json").read_text()
        (items / f"{k:02d}.json").write_text(
            doc.replace('"transcript_id": "', f'"transcript_id": "{k}-', 1)
        )
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 'store.db'}", "OPENAI_API_KEY": "x"}
    proc = cli(
        command,
        str(items),
        *("--model", "openai/m", "--rubric", str(ROOT / "rubrics" / "refund_communication.yaml")),
        *("--api-base", url, "--concurrency", "4", "--max-attempts", "4"),
        cwd=tmp_path,
        env=env,
    )
    said = [ln for ln in proc.err.splitlines() if ln.startswith("calibrant:")]
    assert proc.code == 2, proc.err
    assert "Traceback" not in proc.err
    assert len(said) == 1, proc.err
    assert url in said[0] and "connection refused" in said[0], said
    # retried, every item would have ended as provider_error after 4 attempts: exit 3
