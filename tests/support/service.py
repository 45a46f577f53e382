"""The real service for tests: `calibrant serve` in its own process (uvicorn) on a free port of
127.0.0.1, on the store the test names; and accounts made in that store."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Service:
    url: str
    database_url: str
    process: subprocess.Popen[bytes]
    log: Path

    def user(self, name: str, role: str) -> str:
        """Create an account in the service's store; returns its token."""
        from calibrant.service.users import Users
        from calibrant.store import make_engine

        engine = make_engine(self.database_url)
        try:
            return Users(engine).add(name, role)
        finally:
            engine.dispose()

    def client(self, token: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30)


@contextmanager
def running_service(
    database_url: str,
    workdir: Path,
    *extra_args: str,
    env: dict[str, str] | None = None,
    calibrant: Sequence[str] = (sys.executable, "-m", "calibrant"),
) -> Iterator[Service]:
    """`calibrant serve` until the block ends (SIGTERM). `calibrant`: the command that runs it,
    e.g. a fork server's client (tests/support/forkserver.py; its socket then in `env`)."""
    port = free_port()
    log = workdir / f"serve-{port}.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [*calibrant, "serve", "--port", str(port), *extra_args],
            cwd=ROOT,
            env={**os.environ, "CALIBRANT_DATABASE_URL": database_url, **(env or {})},
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"calibrant serve exited: {log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{url}/api/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"calibrant serve did not start: {log.read_text()[-2000:]}")
            time.sleep(0.1)
        yield Service(url, database_url, process, log)
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def wait_job(client: httpx.Client, job_id: str, *states: str, timeout: float = 60) -> Any:
    """The job once it is in one of `states` (fails the test after `timeout` seconds)."""
    deadline = time.monotonic() + timeout
    while True:
        job = client.get(f"/api/jobs/{job_id}").json()
        if job["status"] in states:
            return job
        assert time.monotonic() < deadline, job
        time.sleep(0.1)
