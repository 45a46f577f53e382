"""After release as text: `calibrant audit`'s sample (what was drawn, or would be in a dry run,
from which score run into which queue, then each stratum's share) and `calibrant
agreement-over-time`'s report (per judge version and window, each criterion's kappa against the
experts, the gate, and the pass rates judged, audited and corrected)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..contracts.reports.audit import (
        AgreementOverTimeReport,
        AuditReport,
        WindowCriterion,
    )
    from ..contracts.reports.base import Figure

__all__ = ["agreement_lines", "audit_lines"]


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


def _rate(figure: Figure | None) -> str:
    if not figure or figure.value is None:
        return "undefined"
    ci = figure.ci95
    return f"{figure.value:.0%}" + (f" [{ci[0]:.0%}, {ci[1]:.0%}]" if ci else "")


def _criterion_lines(c: WindowCriterion) -> list[str]:
    ci = c.kappa.ci
    est = c.kappa.estimate
    kappa = "undefined" if est is None else f"{est:.2f}"
    interval = f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else ""
    out = [
        f"  {c.criterion}: kappa {kappa}{interval}, n={c.n_items} "
        f"({c.n_cases} cases, {c.n_single_expert} single-expert), gate "
        f"{c.gate_status}"
    ]
    rates = [
        f"{name} {_rate(figure)}"
        for name, figure in (("judged", c.pass_rate_judged), ("audited", c.pass_rate_audited))
        if figure
    ]
    if c.pass_rate_corrected:
        rates.append(f"corrected {_rate(c.pass_rate_corrected.corrected)}")
    if rates:
        out.append("    pass rate " + ", ".join(rates))
    return out


def agreement_lines(report: AgreementOverTimeReport) -> list[str]:
    """The agreement-over-time report in lines: each window's judge and start, then its
    criteria (or that nothing was audited yet)."""
    out: list[str] = []
    if not report.windows:
        out.append("no audited items yet (`calibrant audit RUN --queue NAME --rate R`)")
    for w in report.windows:
        out.append(f"judge {w.judge_version[:19]} ({w.judge_model}) {w.start[:10]}:")
        for c in w.criteria:
            out += _criterion_lines(c)
    return out
