"""Production traces in: OpenAI chat-completions message lists and OpenTelemetry GenAI spans
(OTLP JSON) become calibrant transcripts of any installed domain, their records taken only from
the team's system-of-record snapshots, never from what the agent's tools answered."""

from .builder import build_transcript
from .model import FORMATS, ImportedTrace, ImportOptions, ImportResult
from .run import import_traces

__all__ = [
    "FORMATS",
    "ImportOptions",
    "ImportResult",
    "ImportedTrace",
    "build_transcript",
    "import_traces",
]
