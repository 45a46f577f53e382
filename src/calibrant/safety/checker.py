"""Run every registered invariant over a transcript; no score merges the outcomes."""

from __future__ import annotations

from .. import __version__
from ..contracts import (
    CaseContract,
    InvariantResult,
    SafetyVerdict,
    Transcript,
    content_hash,
)
from .catalog import for_domain
from .evidence import Evidence

__all__ = ["check_transcript"]


def check_transcript(
    transcript: Transcript, *, contract: CaseContract | None = None, source: str | None = None
) -> SafetyVerdict:
    """Every registered invariant's outcome for `transcript`. `contract` overrides the copy
    embedded in the transcript. An exception inside an invariant is a bug and propagates.

    Every domain's transcript gets calibrant's invariants, which read records by the roles its
    pack declares (one whose roles the pack does not declare says not_applicable, naming
    them) under the names the pack publishes them by, then its pack's own invariants; a
    case's `invariants:` setting can switch one off."""
    ev = Evidence.of(transcript, contract)
    invariants = for_domain(transcript.domain)
    results: list[InvariantResult] = [inv.run(ev).result(inv.name) for inv in invariants]
    return SafetyVerdict(
        transcript_id=transcript.transcript_id,
        case_id=transcript.case_id,
        trial=transcript.trial,
        source=source,
        checker_version=__version__,
        contract_hash=content_hash(ev.contract) if ev.contract is not None else None,
        results=results,
    )
