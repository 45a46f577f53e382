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
from ..contracts.forms import writes_unnamed
from ..domains import default_domain
from .evidence import Evidence
from .registry import Finding, Invariant, for_domain, not_applicable

__all__ = ["check_transcript"]


def check_transcript(
    transcript: Transcript, *, contract: CaseContract | None = None, source: str | None = None
) -> SafetyVerdict:
    """Every registered invariant's outcome for `transcript`. `contract` overrides the copy
    embedded in the transcript. An exception inside an invariant is a bug and propagates.

    Every domain's transcript gets calibrant's invariants, which read records by the roles its
    pack declares (one whose roles the pack does not declare says not_applicable, naming
    them), then its pack's own invariants."""
    ev = Evidence.of(transcript, contract)
    invariants = for_domain(transcript.domain)
    results: list[InvariantResult] = [_run(inv, ev).result(inv.name) for inv in invariants]
    return SafetyVerdict(
        transcript_id=transcript.transcript_id,
        case_id=transcript.case_id,
        trial=transcript.trial,
        source=source,
        checker_version=__version__,
        contract_hash=content_hash(ev.contract) if ev.contract is not None else None,
        results=results,
    )


def _run(inv: Invariant, ev: Evidence) -> Finding:
    domain = ev.transcript.domain
    if inv.by_role or writes_unnamed(domain):
        return inv.check(ev)
    return not_applicable(
        f"{inv.name} reads the refund shop's records ({default_domain()}); this transcript is "
        f"domain '{domain}', checked by the invariants that read records by role"
    )
