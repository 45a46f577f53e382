"""A scripted agent in its own process, over MCP: calibrant's scripted reference workflows
(correct, or one of the faulty policies) played against `calibrant sandbox`. For checking a
setup end to end (a known-good agent must pass, a faulty one must fail) and for the tests.

    python -m calibrant_refunds.sandbox_client --url http://127.0.0.1:8765/mcp \\
        --token TOKEN --behaviour correct --checkpoints agent-state.sqlite

(TOKEN: the one `calibrant sandbox` printed at start, or $CALIBRANT_SANDBOX_TOKEN.)

Its workflow state lives in a SQLite checkpoint file (`--checkpoints`), keyed by the trial's
`session`: a process that dies and is started again resumes from it. When a tool answers
`agent_crashed` the process exits with status 3 (its supervisor restarts it) or, with
`--on-crash restart`, drops everything in memory and starts again in place (stdio: the server
lives only as long as this process). `--kill-after TOOL` kills the process with SIGKILL right
after TOOL answers, before the workflow saves its checkpoint (a real crash, for tests)."""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sys
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from calibrant.harness.checkpoint import CheckpointStore
from calibrant.sandbox.guard import TOKEN_ENV
from calibrant.settings import get_settings

from .agents import AgentContext, ScriptedAgent
from .agents.scripted import BEHAVIOURS

__all__ = ["main", "play"]

CRASH_EXIT = 3


class _Crashed(Exception):
    """The service said this process died (fault point): stop now."""


class _Tools:
    """The agent's tool caller: every call is an MCP tool call."""

    def __init__(self, call: Callable[[str, dict[str, Any]], dict[str, Any]], kill_after: str):
        self._call, self.kill_after = call, kill_after

    def call(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        answer = self._call(tool, args)
        if answer.get("error") == "agent_crashed":
            raise _Crashed(answer.get("message", ""))
        if tool == self.kill_after and "error" not in answer:
            os.kill(os.getpid(), signal.SIGKILL)  # die before the workflow's checkpoint
        return answer

    def call_json(self, tool: str, arguments: str | None) -> dict[str, Any]:
        return self.call(tool, json.loads(arguments or "{}"))


def play(
    call: Callable[[str, dict[str, Any]], dict[str, Any]],
    *,
    behaviour: str,
    checkpoints: Path,
    kill_after: str = "",
) -> int:
    """Play trials until the service says all are finished (0), or this process 'dies' (3)."""
    store = CheckpointStore(checkpoints)
    tools = _Tools(call, kill_after)
    try:
        while True:
            start = call("trial_start", {"agent_version": f"scripted-mcp:{behaviour}"})
            status = start.get("status")
            if status == "all_finished":
                return 0
            if status != "running":
                if status in ("stopped", None):
                    print(f"scripted client: {start}", file=sys.stderr)
                    return 1
                continue  # waiting: ask again
            c, session = start["context"], start["session"]
            ctx = AgentContext(
                tools=tools,
                checkpoints=store,
                rng=random.Random(session),
                thread=session,
                trial_id=session,
                **c,
            )
            agent, message = ScriptedAgent(behaviour), start["message"]
            while True:
                try:
                    reply = agent.respond(ctx, message)
                except _Crashed:
                    return CRASH_EXIT
                answer = call("trial_reply", {"text": reply})
                if answer.get("status") != "running":
                    break
                message = answer["message"]
    finally:
        store.close()


def _result(res: Any) -> dict[str, Any]:
    if isinstance(res.structured_content, dict):
        return dict(res.structured_content)
    return dict(json.loads(res.content[0].text))


def _token_problem(token: str) -> str | None:
    """Why `token` cannot be sent as `Authorization: Bearer TOKEN`, or None."""
    if not token.strip():
        return "no token"
    if any(not 32 < ord(c) < 127 for c in token):
        return "the token holds a space, a line break or a character outside ASCII"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--url", help="MCP endpoint of `calibrant sandbox` (streamable HTTP).")
    where.add_argument(
        "--stdio", nargs=argparse.REMAINDER, help="Start this server command over stdio."
    )
    parser.add_argument(
        "--token",
        default=get_settings().sandbox_token or "",
        help=f"The token the sandbox printed at start (default: ${TOKEN_ENV}).",
    )
    parser.add_argument("--behaviour", default="correct", choices=BEHAVIOURS)
    parser.add_argument("--checkpoints", type=Path, required=True)
    parser.add_argument("--kill-after", default="", help="SIGKILL itself after this tool.")
    parser.add_argument("--on-crash", choices=("exit", "restart"), default="exit")
    a = parser.parse_args(argv)
    if a.url and (problem := _token_problem(a.token)) is not None:
        print(
            f"scripted client: error: {problem}: give --token TOKEN or set {TOKEN_ENV} (the "
            "token `calibrant sandbox` printed at start)",
            file=sys.stderr,
        )
        return 2
    import httpx2  # the MCP SDK's HTTP client
    from anyio.from_thread import start_blocking_portal
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters
    from mcp.client.streamable_http import streamable_http_client

    with start_blocking_portal() as portal, ExitStack() as stack:
        server: Any
        if a.stdio:
            env = dict(os.environ)
            server = StdioServerParameters(command=a.stdio[0], args=a.stdio[1:], env=env)
        else:
            http = httpx2.AsyncClient(
                headers={"Authorization": f"Bearer {a.token}"},
                timeout=httpx2.Timeout(30, read=300),
            )
            stack.enter_context(portal.wrap_async_context_manager(http))
            server = streamable_http_client(a.url, http_client=http)
        client = stack.enter_context(portal.wrap_async_context_manager(Client(server)))

        def call(tool: str, args: dict[str, Any]) -> dict[str, Any]:
            return _result(portal.call(client.call_tool, tool, args))

        while True:
            code = play(
                call, behaviour=a.behaviour, checkpoints=a.checkpoints, kill_after=a.kill_after
            )
            if code != CRASH_EXIT or a.on_crash == "exit":
                return code


if __name__ == "__main__":
    sys.exit(main())
