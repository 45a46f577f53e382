"""`import`'s options: what to import from where, as one option group (the command receives an
`ImportOptions` already checked), each option named once here."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..errors import CalibrantError
from .option_group import option_group

if TYPE_CHECKING:
    from ..importers import ImportOptions

__all__ = ["FORMAT_HELP", "import_group"]

FORMAT_HELP = (
    "chat: OpenAI chat-completions conversations (a JSON file of {messages} or a list, or JSONL "
    "with one conversation and its id per line). otel: OpenTelemetry GenAI spans as OTLP JSON "
    "(or JSONL, one export per line), one transcript per trace id. tau-bench: tau-bench and "
    "tau2-bench trajectory files as published (task -> case, trial, the benchmark's reward in "
    "the provenance)."
)

FormatArg = Annotated[str, typer.Argument(metavar="FORMAT", help=FORMAT_HELP)]
FilesArg = Annotated[
    list[Path], typer.Argument(metavar="FILES", help="Trace files (.json or .jsonl).")
]
OutOpt = Annotated[
    Path,
    typer.Option("--out", help="New folder: one transcript JSON per trace (as trials write)."),
]
DomainOpt = Annotated[
    str | None,
    typer.Option(
        "--domain",
        help="Domain of the transcripts: an installed domain pack (calibrant domains list); "
        "default: the case's domain, else that of files naming none.",
    ),
]
CaseOpt = Annotated[
    Path | None, typer.Option("--case", help="Case contract (YAML) the traces ran.")
]
CasesOpt = Annotated[
    Path | None,
    typer.Option(
        "--cases",
        help="Folder of case contracts (YAML): each trace gets the case its case id "
        "names (calibrant.case in its metadata, or --case-map).",
    ),
]
CaseMapOpt = Annotated[
    Path | None,
    typer.Option(
        "--case-map",
        help="JSON or YAML object: trace id -> case id (overrides calibrant.case).",
    ),
]
NoContractOpt = Annotated[
    bool,
    typer.Option(
        "--no-contract",
        help="Import a trace no case contract matches with its end state not judged "
        "(end_state_matches_contract: not_applicable) instead of refusing it.",
    ),
]
ToolCallTextOpt = Annotated[
    str,
    typer.Option(
        "--tool-call-text",
        help="Whether the customer saw text the agent sent in the same message as a tool "
        "call: shown (default: it counts as said to the customer) or hidden.",
    ),
]
SnapshotsOpt = Annotated[
    Path | None,
    typer.Option(
        "--snapshots",
        help="Folder of system-of-record snapshots: TRACE_ID/before.json and after.json "
        "(files naming no domain: see calibrant schema snapshot; another domain: its "
        "pack's snapshot format), read by an evaluator identity.",
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
AgentPrincipalOpt = Annotated[
    str | None,
    typer.Option(
        "--agent-principal",
        help="The agent's identity in your system (else calibrant.agent_principal).",
    ),
]
AgentOpt = Annotated[
    str | None,
    typer.Option("--agent", help="Agent name in the provenance (default imported:FORMAT)."),
]


REQUIRED = inspect.Parameter.empty


def _options(**given: Any) -> ImportOptions:
    """The options checked as one `ImportOptions`; a bad one is one line naming its flag."""
    from pydantic import ValidationError

    from ..importers import FORMATS, ImportOptions

    fmt = given["format"]
    if fmt not in FORMATS:
        raise CalibrantError(f"FORMAT {fmt}: unknown; the formats are {', '.join(FORMATS)}")
    try:
        return ImportOptions.model_validate(given)
    except ValidationError as exc:
        err = exc.errors()[0]
        name = "--" + str(err["loc"][0]).replace("_", "-") if err["loc"] else "options"
        raise CalibrantError(f"{name}: {err['msg']}; see calibrant import --help") from None


def _build(*, fmt: str, files: list[Path], **rest: Any) -> ImportOptions:
    return _options(format=fmt, paths=files, **rest)


import_group = option_group(
    {
        "fmt": (FormatArg, REQUIRED),
        "files": (FilesArg, REQUIRED),
        "out": (OutOpt, REQUIRED),
        "domain": (DomainOpt, None),
        "case": (CaseOpt, None),
        "cases": (CasesOpt, None),
        "case_map": (CaseMapOpt, None),
        "no_contract": (NoContractOpt, False),
        "tool_call_text": (ToolCallTextOpt, "shown"),
        "snapshots": (SnapshotsOpt, None),
        "before": (BeforeOpt, None),
        "after": (AfterOpt, None),
        "tenant": (TenantOpt, None),
        "agent_principal": (AgentPrincipalOpt, None),
        "agent": (AgentOpt, None),
    },
    _build,
    into="options",
)
"""Every option of `import`, received as one checked `ImportOptions`."""
