"""`calibrant import chat|otel FILES --out DIR`: production traces in, one transcript per trace."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import CalibrantError
from .app import app

import_app = typer.Typer(
    help="Turn agent traces you already have (chat-completions messages, OpenTelemetry GenAI "
    "spans) into transcripts, their ledger taken from your system-of-record snapshots.",
    no_args_is_help=True,
)
app.add_typer(import_app, name="import")

FilesArg = Annotated[list[Path], typer.Argument(help="Trace files (.json or .jsonl).")]
OutOpt = Annotated[
    Path, typer.Option("--out", help="New folder: one transcript JSON per trace (as trials write).")
]
DomainOpt = Annotated[
    str, typer.Option("--domain", help="Domain of the transcripts (only: refunds).")
]
CaseOpt = Annotated[
    Path | None, typer.Option("--case", help="Case contract (YAML) the traces ran.")
]
SnapshotsOpt = Annotated[
    Path | None,
    typer.Option(
        "--snapshots",
        help="Folder of system-of-record snapshots: <trace id>/before.json and after.json "
        "(LedgerSnapshot JSON, read by an evaluator identity).",
    ),
]
BeforeOpt = Annotated[
    Path | None, typer.Option("--before", help="Snapshot before the trace (one trace only).")
]
AfterOpt = Annotated[
    Path | None, typer.Option("--after", help="Snapshot after the trace (one trace only).")
]
TenantOpt = Annotated[
    str | None,
    typer.Option("--tenant", help="Tenant the agent acts for (else calibrant.tenant, the case)."),
]
PrincipalOpt = Annotated[
    str | None,
    typer.Option(
        "--agent-principal",
        help="The agent's identity in your system (else the attribute calibrant.agent_principal).",
    ),
]
AgentOpt = Annotated[
    str | None,
    typer.Option("--agent", help="Agent name in the provenance (default imported:FORMAT)."),
]


def _run(fmt: str, files: list[Path], **kw: object) -> None:
    from pydantic import ValidationError

    from ..importers import DOMAINS, ImportOptions, import_traces

    if kw["domain"] not in DOMAINS:
        raise CalibrantError(
            f"--domain {kw['domain']}: unknown; the domains are {', '.join(DOMAINS)}"
        )
    try:
        options = ImportOptions(format=fmt, paths=files, **kw)
    except ValidationError as exc:
        raise CalibrantError(f"invalid options: {exc.errors()[0]['msg']}") from None
    typer.echo(import_traces(options).summary())


@import_app.command("chat")
def import_chat(
    files: FilesArg,
    out: OutOpt,
    domain: DomainOpt = "refunds",
    case: CaseOpt = None,
    snapshots: SnapshotsOpt = None,
    before: BeforeOpt = None,
    after: AfterOpt = None,
    tenant: TenantOpt = None,
    agent_principal: PrincipalOpt = None,
    agent: AgentOpt = None,
) -> None:
    """OpenAI chat-completions conversations: a JSON file ({messages} or a list) or JSONL (one
    conversation with an id per line)."""
    _run(
        "chat",
        files,
        out=out,
        domain=domain,
        case=case,
        snapshots=snapshots,
        before=before,
        after=after,
        tenant=tenant,
        agent_principal=agent_principal,
        agent=agent,
    )


@import_app.command("otel")
def import_otel(
    files: FilesArg,
    out: OutOpt,
    domain: DomainOpt = "refunds",
    case: CaseOpt = None,
    snapshots: SnapshotsOpt = None,
    before: BeforeOpt = None,
    after: AfterOpt = None,
    tenant: TenantOpt = None,
    agent_principal: PrincipalOpt = None,
    agent: AgentOpt = None,
) -> None:
    """OpenTelemetry GenAI spans as OTLP JSON (or JSONL, one export per line): one transcript
    per trace id."""
    _run(
        "otel",
        files,
        out=out,
        domain=domain,
        case=case,
        snapshots=snapshots,
        before=before,
        after=after,
        tenant=tenant,
        agent_principal=agent_principal,
        agent=agent,
    )
