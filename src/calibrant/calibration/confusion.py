"""A criterion's confusion table (the consensus against the judge, abstentions and failures
counted apart), and the disagreements worth a human look: unanimous experts first, then the
farthest apart on an ordinal scale."""

from __future__ import annotations

from typing import Any

from ..agreement import Scale
from ..contracts import Criterion, Judgment
from ..contracts.reports.calibration import Confusion
from ..gold import CONSENSUS, GoldSet
from .explain import ABSTAIN


def _confusion(
    scale: Scale, ref: list[Any], judge: list[Any], outside: tuple[str, ...] = ()
) -> Confusion:
    rows = [*map(str, scale.labels), *outside, "abstain", "missing"]
    cols = [*map(str, scale.labels), *outside, "abstain", "failed"]
    m = [[0] * len(cols) for _ in rows]

    def idx(v: Any, names: list[str], none: str) -> int:
        if v is None:
            return names.index(none)
        return names.index("abstain") if v in ABSTAIN else names.index(str(v))

    for r, j in zip(ref, judge, strict=True):
        m[idx(r, rows, "missing")][idx(j, cols, "failed")] += 1
    return Confusion(rows_consensus=rows, columns_judge=cols, counts=m)


def _disagreements(
    c: Criterion,
    gold: GoldSet,
    judgments: dict[str, Judgment],
    scale: Scale,
    ref: list[Any],
    judge: list[Any],
) -> list[dict[str, Any]]:
    out = []
    order = {str(v): k for k, v in enumerate(scale.labels)}
    for i, r, j in zip(gold.item_ids, ref, judge, strict=True):
        if j is None or r is None or str(r) == str(j):
            continue
        experts = {name: gold.labels_by(name, c.id).get(i) for name in sorted(gold.experts)}
        unanimous = len({str(v) for v in experts.values()}) == 1
        distance = (
            abs(order[str(r)] - order[str(j)])
            if scale.level == "ordinal" and str(r) in order and str(j) in order
            else 1
        )
        cj = next(x for x in judgments[i].criteria if x.criterion == c.id)
        out.append(
            {
                "item": i,
                "case": gold.items[i].case,
                "consensus": r,
                "experts": experts,
                "experts_unanimous": unanimous,
                "judge": j,
                "rationale": cj.rationale,
                "evidence": cj.evidence,
                "invalid_evidence": cj.invalid_evidence,
                "consensus_note": gold.notes(CONSENSUS, c.id).get(i),
                "distance": distance,
            }
        )
    out.sort(key=lambda d: (not d["experts_unanimous"], -d["distance"], d["item"]))
    return out
