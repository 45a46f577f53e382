"""`calibrant audit`'s sample as text: what was drawn (or would be, in a dry run) from which
score run into which queue, then each stratum's share."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..contracts.reports.audit import AuditReport

__all__ = ["audit_lines"]


def audit_lines(run_id: str | None, r: AuditReport, added: int, *, dry_run: bool) -> list[str]:
    """The audit `run_id`'s report `r` (`added`: new items in the queue; no run id: a dry
    run) in lines."""
    what = "would draw" if dry_run else "drew"
    return [
        f"audit {run_id or '(dry run)'}: {what} {len(r.items)} of "
        f"{r.population} transcripts ({r.drawn_cases} of {r.cases} cases) of score run "
        f"{r.score_run.id} into queue '{r.queue}' ({added} new items, seed {r.seed})",
        *(f"  {s.stratum}: {s.drawn} of {s.population} (kept {s.kept})" for s in r.strata),
    ]
