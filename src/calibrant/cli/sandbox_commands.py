"""`calibrant sandbox`: the controlled service as a server, for an agent in another process.

A command of its own rather than `trials --serve`: it has no --agent to build, but a transport,
a host and a port, and it runs until the external agent has played every trial."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from ..errors import ConfigError
from .app import app
from .trials_output import (
    CasePathsArg,
    JsonOpt,
    MarkdownOpt,
    OutFolderOpt,
    RestartOpt,
    TrialsKOpt,
)

if TYPE_CHECKING:
    from ..harness import TrialRun

_NAME = re.compile(r"^[A-Za-z0-9_.\-/@+]{1,100}$")


def _agent_label(name: str) -> str:
    label = name.removeprefix("external:")
    if not _NAME.match(label):
        raise ConfigError(
            f"--agent {name!r}: a name of letters, digits and _ . - / @ + (at most 100), "
            "e.g. support-bot"
        )
    return f"external:{label}"


def _needs_extra() -> None:
    try:
        import mcp  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise ConfigError(
            "calibrant sandbox needs the MCP SDK and uvicorn: pip install 'calibrant[sandbox]'"
        ) from None


SandboxSeedOpt = Annotated[int, typer.Option("--seed", help="Seed recorded with the trials.")]
ExternalAgentOpt = Annotated[
    str,
    typer.Option(
        "--agent",
        help="Name of the agent under test, recorded as external:NAME in the transcripts.",
    ),
]
TransportOpt = Annotated[
    str,
    typer.Option(
        "--transport",
        help="http: MCP (streamable HTTP) at /mcp and an HTTP API (/openapi.json); "
        "stdio: MCP on stdin/stdout, for an agent that starts this command itself.",
    ),
]
HostOpt = Annotated[str, typer.Option("--host", help="Address to listen on (http).")]
PortOpt = Annotated[
    int, typer.Option("--port", min=0, max=65535, help="Port (http); 0: any free port.")
]
ReplyTimeoutOpt = Annotated[
    float,
    typer.Option(
        "--reply-timeout",
        min=1,
        help="Seconds the customer waits for the agent's reply before the turn is a harness "
        "error (recorded in the transcript).",
    ),
]


@app.command()
def sandbox(
    paths: CasePathsArg,
    out: OutFolderOpt,
    k: TrialsKOpt = 5,
    seed: SandboxSeedOpt = 0,
    agent: ExternalAgentOpt = "external:agent",
    transport: TransportOpt = "http",
    host: HostOpt = "127.0.0.1",
    port: PortOpt = 8765,
    reply_timeout: ReplyTimeoutOpt = 600.0,
    as_json: JsonOpt = False,
    markdown: MarkdownOpt = None,
    restart: RestartOpt = False,
) -> None:
    """Serve k trials per case to your own agent (MCP or HTTP): the same tools, authorization,
    versions, operation ids and fault points as in-process agents; transcripts and the trial
    report exactly as `calibrant trials` writes them."""
    from ..reports.sandbox import sandbox_banner
    from ..sandbox import serve_trials
    from ..sandbox.guard import TOKEN_ENV, new_token
    from ..sandbox.run import listen
    from .trials_output import load_trial_cases, print_trial_report, run_with_progress

    if transport not in ("http", "stdio"):
        raise ConfigError(f"--transport {transport!r}: choose http or stdio")
    label = _agent_label(agent)
    _needs_extra()
    cases = load_trial_cases(paths, out, markdown)  # every case checked before the server starts
    sock = listen(host, port) if transport == "http" else None
    total, token = len(cases) * k, new_token()
    banner = sandbox_banner(total, label, sock, token, TOKEN_ENV)
    Console(stderr=True, highlight=False, soft_wrap=True).print(banner)

    def run(on_trial: Callable[[TrialRun], None], on_resume: Callable[[int, int], None]) -> Any:
        return serve_trials(
            cases,
            label,
            k=k,
            seed=seed,
            out=out,
            transport="http" if sock is not None else "stdio",
            sock=sock,
            restart=restart,
            reply_timeout=reply_timeout,
            token=token,
            on_trial=on_trial,
            on_resume=on_resume,
        )

    runs = run_with_progress(f"trials of {label}", total, out, run)
    stdio = transport == "stdio"  # then stdout is the MCP channel: the report goes to stderr
    print_trial_report(
        runs,
        seed=seed,
        as_json=as_json,
        out=out,
        console=Console(stderr=as_json or stdio),
        to_stderr=stdio,
        markdown=markdown,
    )
