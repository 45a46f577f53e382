"""`calibrant propose`'s proposals as text: the labeled items and the pool, each proposal with
its reason, and what to do next."""

from __future__ import annotations

from ..contracts.reports.proposal import Proposals

__all__ = ["proposal_lines"]


def proposal_lines(out: Proposals) -> list[str]:
    """The proposal `out` (`ops.propose.propose`'s) in lines."""
    lab, pool = out.labeled, out.pool
    lines = [
        f"{out.criterion}: {lab.items} labeled item(s) in {lab.cases} case(s); "
        f"{pool.items} judged item(s) in {pool.cases} case(s) to choose from; "
        f"strategy {out.strategy}, seed {out.seed}"
    ]
    for p in out.proposals:
        lines.append(f"{p.rank:>3}. {p.item} (case {p.case}, judged {p.judge_label})")
        lines.append(f"     {p.reason}")
    lines.append(
        f"{len(out.proposals)} item(s), {out.proposed_new_cases} of them in new cases. "
        "Label them, then run `calibrate` again."
    )
    return lines
