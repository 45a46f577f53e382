"""Serve repeated trials to an agent in another process: the trial runner (`run_trials`, the
same code as for in-process agents) runs in a worker thread with an `ExternalAgent`; the server
(HTTP + MCP, or MCP over stdio) runs in the main thread until every trial is written or the
server is stopped (then the run folder stays resumable, like an interrupted `calibrant trials`)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from ..contracts import CaseContract
from ..domains import default_domain
from ..errors import ConfigError
from ..harness import TrialRun, run_trials
from .channel import Channel, ExternalAgent, ServedTools, Stopped
from .guard import new_token

__all__ = ["serve_trials", "Transport", "listen"]

Transport = Literal["http", "stdio"]
GRACE_S = 2.0
"""Seconds the HTTP server keeps serving after the last trial, for the agent to hang up."""


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on host:port (port 0: any free port), or one line on why not."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        family, *_ = infos[0]
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # accepted connections inherit it: a reply's last segment is not held back for an ACK
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind(infos[0][4])
    except OSError as exc:
        raise ConfigError(f"--host/--port: cannot listen on {host}:{port} ({exc})") from None
    sock.listen(128)
    return sock


def serve_trials(
    cases: Sequence[CaseContract],
    agent: str,
    *,
    k: int,
    seed: int,
    out: Path,
    transport: Transport,
    sock: socket.socket | None = None,
    restart: bool = False,
    reply_timeout: float = 600.0,
    token: str | None = None,
    on_trial: Callable[[TrialRun], None] | None = None,
    on_resume: Callable[[int, int], None] | None = None,
) -> list[TrialRun]:
    """Run `k` trials per case of the external agent `agent`, serving it over `transport`
    (`sock`: the listening socket of the HTTP transport; `token`: the bearer token its callers
    must send, `guard.new_token()` when None). Returns the trials like `run_trials`.
    Raises `Stopped` (a KeyboardInterrupt) when the server stops before the last trial."""
    domain = cases[0].domain if cases else default_domain()
    channel = Channel(reply_timeout=reply_timeout, tools=ServedTools.of(domain))
    result: dict[str, Any] = {}
    stoppers: list[Callable[[], None]] = []

    def trial_done(run: TrialRun) -> None:
        channel.trial_finished(run.transcript.transcript_id)
        if on_trial is not None:
            on_trial(run)

    def work() -> None:
        try:
            result["runs"] = run_trials(
                cases,
                agent,
                k=k,
                seed=seed,
                out=out,
                on_trial=trial_done,
                restart=restart,
                on_resume=on_resume,
                agent_factory=lambda name: ExternalAgent(name, channel),
            )
        except BaseException as exc:  # handed to the main thread
            result["error"] = exc
        finally:
            channel.all_done()
            for stop in stoppers:
                stop()

    worker = threading.Thread(target=work, name="calibrant-trials", daemon=True)
    try:
        if transport == "http":
            _serve_http(channel, worker, stoppers, sock, token or new_token())
        else:
            _serve_stdio(channel, worker)
    finally:
        channel.stop()
        if worker.is_alive():
            worker.join()
    if "error" in result:
        raise result["error"]
    if "runs" not in result:
        raise Stopped
    runs: list[TrialRun] = result["runs"]
    return runs


def _serve_http(
    channel: Channel,
    worker: threading.Thread,
    stoppers: list[Callable[[], None]],
    sock: socket.socket | None,
    token: str,
) -> None:
    import uvicorn

    from .server import http_app

    if sock is None:
        raise ConfigError("the HTTP transport needs a listening socket")
    host = sock.getsockname()[0]
    config = uvicorn.Config(
        http_app(channel, host=host, token=token),
        log_level="warning",
        lifespan="on",
        timeout_graceful_shutdown=3,
    )
    server = uvicorn.Server(config)

    def stop() -> None:  # after a grace period: the agent closes its MCP session first
        timer = threading.Timer(GRACE_S, lambda: setattr(server, "should_exit", True))
        timer.daemon = True
        timer.start()

    stoppers.append(stop)
    worker.start()
    server.run(sockets=[sock])


def _serve_stdio(channel: Channel, worker: threading.Thread) -> None:
    import anyio
    from mcp.server.stdio import stdio_server

    from .server import mcp_server

    async def main() -> None:
        server = mcp_server(channel)
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    worker.start()
    anyio.run(main)
