"""The judge's pass/fail errors per calibration case, recorded in the calibration report so that
`score` can correct pass rates with the calibration resampled by case (see
`calibrant.scoring.correction`)."""

from __future__ import annotations

from typing import Any

from ..contracts import Criterion, Judgment
from ..gold import CONSENSUS, GoldSet

__all__ = ["pass_fail_by_case", "KEY"]

KEY = "pass_fail_by_case"  # the criterion report's key (absent from calibrations before it)


def pass_fail_by_case(
    c: Criterion, gold: GoldSet, judgments: dict[str, Judgment]
) -> list[dict[str, Any]] | None:
    """Per case, the items where the consensus and the judge both said pass or fail, as the four
    cells of the confusion table (they sum to its pass/fail cells). None for a criterion whose
    scale is not pass/fail."""
    if {str(v) for v in c.scale.values()} != {"pass", "fail"}:
        return None
    consensus = gold.labels_by(CONSENSUS, c.id)
    cells = {
        ("pass", "pass"): "true_pass",
        ("pass", "fail"): "false_fail",
        ("fail", "fail"): "true_fail",
        ("fail", "pass"): "false_pass",
    }
    out: dict[str, dict[str, Any]] = {}
    for item in gold.item_ids:
        j = judgments.get(item)
        said = j.label(c.id) if j is not None and j.outcome == "verdict" else None
        cell = cells.get((str(consensus.get(item)), str(said)))
        if cell is None:
            continue
        case = gold.items[item].case
        row = out.setdefault(case, {"case": case, **dict.fromkeys(cells.values(), 0)})
        row[cell] += 1
    return [out[k] for k in sorted(out)]
