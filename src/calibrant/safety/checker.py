"""Run every registered invariant over a transcript; no score merges the outcomes."""

from __future__ import annotations

from .. import __version__
from ..contracts import CaseContract, InvariantResult, SafetyVerdict, Transcript, content_hash
from .evidence import Evidence
from .registry import registered

__all__ = ["check_transcript"]


def check_transcript(
    transcript: Transcript, *, contract: CaseContract | None = None, source: str | None = None
) -> SafetyVerdict:
    """Every registered invariant's outcome for `transcript`. `contract` overrides the copy
    embedded in the transcript. An exception inside an invariant is a bug and propagates."""
    ev = Evidence.of(transcript, contract)
    results: list[InvariantResult] = [inv.check(ev).result(inv.name) for inv in registered()]
    return SafetyVerdict(
        transcript_id=transcript.transcript_id,
        case_id=transcript.case_id,
        trial=transcript.trial,
        source=source,
        checker_version=__version__,
        contract_hash=content_hash(ev.contract) if ev.contract is not None else None,
        results=results,
    )
