"""What a parser makes of one trace, whatever its format: an ordered list of turns and tool
calls, with the attributes the trace names. The builder turns it into a transcript."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import Field, JsonValue

from ..contracts.common import Contract

__all__ = [
    "ATTR_CASE",
    "ATTR_TENANT",
    "ATTR_PRINCIPAL",
    "FORMATS",
    "TraceFormat",
    "TraceTurn",
    "TraceCall",
    "ParsedTrace",
    "ImportOptions",
    "ImportedTrace",
    "ImportResult",
]

TraceFormat = Literal["chat", "otel"]
FORMATS: tuple[str, ...] = ("chat", "otel")

ATTR_CASE = "calibrant.case"
ATTR_TENANT = "calibrant.tenant"
ATTR_PRINCIPAL = "calibrant.agent_principal"


@dataclass
class TraceTurn:
    """A message said to the customer (agent) or by the customer (customer)."""

    role: Literal["customer", "agent"]
    text: str
    time: datetime | None = None


@dataclass
class TraceCall:
    """A tool call the agent asked for, and what came back to it (untrusted: what it saw)."""

    call_id: str
    tool: str
    arguments: dict[str, JsonValue]
    where: str  # file:line or JSON path of the request, for error messages
    answered: bool = False
    result: JsonValue = None
    time: datetime | None = None


@dataclass
class ParsedTrace:
    """One conversation (chat) or one trace id (otel), ready for the builder."""

    trace_id: str
    source: Path
    where: str  # "file:line" or "file" — for error messages
    events: list[TraceTurn | TraceCall] = field(default_factory=list)
    attributes: dict[str, str] = field(default_factory=dict)
    instructions: str | None = None
    model: str | None = None
    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    latency_ms: float | None = None
    started: datetime | None = None
    finished: datetime | None = None


class ImportOptions(Contract):
    """What `calibrant import` reads and where it writes."""

    format: TraceFormat = Field(description="chat (chat-completions messages) or otel (OTLP JSON).")
    paths: list[Path] = Field(min_length=1, description="Trace files.")
    out: Path = Field(description="Folder to create with one transcript JSON per trace.")
    domain: str | None = Field(
        default=None,
        description="Domain of the transcripts: an installed domain pack's name (default: the "
        "case's domain, else refunds).",
    )
    case: Path | None = Field(default=None, description="Case contract (YAML) every trace ran.")
    snapshots: Path | None = Field(
        default=None,
        description="Folder of system-of-record snapshots: <trace id>/before.json and after.json.",
    )
    before: Path | None = Field(default=None, description="Snapshot before (one trace only).")
    after: Path | None = Field(default=None, description="Snapshot after (one trace only).")
    tenant: str | None = Field(default=None, description="Tenant the agent acts for.")
    agent_principal: str | None = Field(default=None, description="The agent's identity.")
    agent: str | None = Field(default=None, description="Agent name for the provenance.")


class ImportedTrace(Contract):
    """One transcript written."""

    trace_id: str = Field(description="Conversation or trace id.")
    transcript_id: str = Field(description="Transcript id.")
    file: str = Field(description="Transcript file written (its name in the output folder).")
    source: str = Field(description="Where the trace came from (file, and line for JSONL).")
    missing_snapshots: list[str] = Field(
        default_factory=list, description="before and/or after: snapshots that were not given."
    )


class ImportResult(Contract):
    """What an import wrote."""

    format: TraceFormat = Field(description="Format read.")
    domain: str = Field(description="Domain of the transcripts.")
    out: str = Field(description="Output folder.")
    files_read: int = Field(ge=0, description="Trace files read.")
    transcripts: list[ImportedTrace] = Field(description="One per trace, in input order.")

    def summary(self) -> str:
        """One line for the terminal."""
        missing = sum(1 for t in self.transcripts if t.missing_snapshots)
        note = f", {missing} without their snapshots (harness_error)" if missing else ""
        return (
            f"imported {len(self.transcripts)} trace(s) ({self.format}) from "
            f"{self.files_read} file(s) into {self.out}{note}"
        )
