"""Real processes for the sandbox tests: `calibrant sandbox` on a free port, and agents in their
own processes that connect to it (restarted, like a supervisor would, when they die)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import ROOT

# a store of their own: run from the repository's root, the commands would otherwise write
# calibrant.db there
_STORE = Path(tempfile.mkdtemp(prefix="calibrant-sandbox-")) / "store.db"
ENV = {
    **os.environ,
    "COLUMNS": "200",
    # this checkout's calibrant and refund pack (installed editable from here in CI)
    "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT / "domains" / "refunds" / "src")]),
    "CALIBRANT_DATABASE_URL": f"sqlite:///{_STORE}",
}


@dataclass
class Sandbox:
    proc: subprocess.Popen[str]
    url: str  # http://127.0.0.1:PORT
    banner: str
    token: str  # the bearer token the sandbox printed at start

    def finish(self, timeout: float = 60) -> tuple[int, str, str]:
        out, err = self.proc.communicate(timeout=timeout)
        return self.proc.returncode, out, self.banner + err


@contextmanager
def sandbox(cases: list[Path], out: Path, *extra: str) -> Iterator[Sandbox]:
    """`calibrant sandbox CASES --out OUT --port 0 EXTRA` in its own process, once it listens."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "calibrant", "sandbox", *map(str, cases), "--out", str(out)]
        + ["--port", "0", *extra],
        cwd=ROOT,
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        banner = proc.stderr.readline()  # the first line says where it listens
        m = re.search(r"at (http://127\.0\.0\.1:\d+)/mcp", banner)
        assert m, (banner, proc.poll())
        token = re.search(r"; token (\S+) ", banner)
        yield Sandbox(proc, m.group(1), banner, token.group(1) if token else "")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def agent_process(box: Sandbox, checkpoints: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """One run of the scripted MCP client, with the token the sandbox printed, until it exits
    (or dies)."""
    return subprocess.run(
        [sys.executable, "-m", "calibrant_refunds.sandbox_client", "--url", f"{box.url}/mcp"]
        + ["--token", box.token, "--checkpoints", str(checkpoints), *extra],
        cwd=ROOT,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=120,
    )


def supervise(
    box: Sandbox, checkpoints: Path, *extra: str, first: tuple[str, ...] = ()
) -> list[int]:
    """Run the agent until it exits 0, restarting it whenever it dies; its exit codes.
    `first`: extra arguments for the first process only (e.g. --kill-after)."""
    codes: list[int] = []
    deadline = time.time() + 180
    while time.time() < deadline:
        args = (*extra, *first) if not codes else extra
        done = agent_process(box, checkpoints, *args)
        codes.append(done.returncode)
        if done.returncode == 0:
            return codes
        if done.returncode not in (3, -9):
            server = box.finish(timeout=10) if box.proc.poll() is not None else "server running"
            raise AssertionError(f"agent exit {done.returncode}: {done.stderr[:3000]}; {server}")
        assert len(codes) < 10, codes
    raise AssertionError(f"the agent never finished: {codes}")
