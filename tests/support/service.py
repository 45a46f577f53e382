"""The service for tests, two ways, one interface (`Service`):

- `app_service`: the FastAPI application in this process, reached through an ASGI transport
  (Starlette's TestClient, as FastAPI's own project templates test): no port, no child process,
  no server start. Every API and workbench behaviour is tested this way.
- `running_service`: the real `calibrant serve` (uvicorn) in its own process on a free port of
  127.0.0.1, for what only a process shows: its access log, a real browser, SIGTERM and SIGKILL,
  a queue worker inside it, several processes on one store (the slow tier).

Both take the store's URL and `calibrant serve`'s own options (`--max-body-mb`,
`--session-hours`; `--worker` only served); accounts are made in the store directly."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
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
    """The service a test talks to: its base URL, its store, accounts and HTTP clients."""

    url: str
    database_url: str

    def user(self, name: str, role: str) -> str:
        """Create an account in the service's store; returns its token."""
        from calibrant.store import make_engine
        from calibrant.store.users import Users

        engine = make_engine(self.database_url)
        try:
            return Users(engine).add(name, role)
        finally:
            engine.dispose()

    def client(self, token: str | None = None, **options: Any) -> httpx.Client:
        """A client of the service (a browser's, without a token): cookies kept, redirects
        not followed unless `follow_redirects=True`."""
        raise NotImplementedError


@dataclass
class ServedService(Service):
    """`calibrant serve` in its own process."""

    process: subprocess.Popen[bytes] = field(repr=False, default=None)  # type: ignore[assignment]
    log: Path = field(default=Path())

    def client(self, token: str | None = None, **options: Any) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, **{"timeout": 30, **options})


@dataclass
class AppService(Service):
    """The application in this process, behind an ASGI transport."""

    app: Any = field(repr=False, default=None)

    def client(self, token: str | None = None, **options: Any) -> httpx.Client:
        from fastapi.testclient import TestClient

        headers = {"Authorization": f"Bearer {token}"} if token else {}
        options.pop("timeout", None)  # no socket to wait on
        return TestClient(
            self.app,
            base_url=self.url,
            headers=headers,
            raise_server_exceptions=False,  # a bug is a 500 answer, as uvicorn gives it
            follow_redirects=options.pop("follow_redirects", False),
            **options,
        )


def serve_options(args: Sequence[str]) -> dict[str, Any]:
    """`calibrant serve` options as `create_app` takes them (what the command does with them,
    src/calibrant/cli/service_commands.py)."""
    out: dict[str, Any] = {}
    it = iter(args)
    for arg in it:
        if arg == "--max-body-mb":
            out["max_body_bytes"] = int(float(next(it)) * 1024 * 1024)
        elif arg == "--session-hours":
            out["session_hours"] = float(next(it))
        else:
            raise ValueError(f"{arg}: only a served service (running_service) takes it")
    return out


@contextmanager
def app_service(database_url: str, *args: str) -> Iterator[AppService]:
    """The service's application on the store at `database_url`, in this process."""
    from calibrant.service import create_app

    app = create_app(database_url, **serve_options(args))
    try:
        yield AppService("http://testserver", database_url, app)
    finally:
        app.state.engine.dispose()


@contextmanager
def running_service(
    database_url: str,
    workdir: Path,
    *extra_args: str,
    env: dict[str, str] | None = None,
    calibrant: Sequence[str] = (sys.executable, "-m", "calibrant"),
) -> Iterator[ServedService]:
    """`calibrant serve` until the block ends (SIGTERM). `calibrant`: the command that runs it,
    e.g. a fork server's client (tests/support/forkserver.py; its socket then in `env`). Its
    jobs' data root (CALIBRANT_DATA_ROOT) is `workdir` unless `env` names another."""
    port = free_port()
    log = workdir / f"serve-{port}.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [*calibrant, "serve", "--port", str(port), *extra_args],
            cwd=ROOT,
            env={
                **os.environ,
                "CALIBRANT_DATABASE_URL": database_url,
                "CALIBRANT_DATA_ROOT": str(workdir),  # a job's files are the test's
                **(env or {}),
            },
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
        yield ServedService(url, database_url, process, log)
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
