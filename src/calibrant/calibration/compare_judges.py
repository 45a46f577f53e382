"""Two judge versions on the same gold items, criterion by criterion.

Each judge is measured against the experts' consensus with the statistic the calibration uses
(Cohen's kappa, linear weighted kappa on ordinal criteria); the difference is paired (the same
cases, resampled together) and the decision follows :data:`~calibrant.compare.paired.DECISION_RULE`
over all criteria at once (Holm), never on fewer than ``min_cases`` cases. Items where the two
judges differ in correctness are listed, regressions first, with both rationales.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..agreement.familywise import DEFAULT_ALPHA, METHOD
from ..compare.paired import (
    DECISION_RULE,
    MIN_CASES,
    PairedEstimate,
    decide_family,
    paired_estimate,
)
from ..contracts import Criterion, JudgeConfig, Judgment, Rubric
from ..contracts.reports import COMPARISON_SCHEMA_VERSION, checked
from ..gold import CONSENSUS, GoldSet
from .criterion import ABSTAIN, Settings, _codes, scale_of

if TYPE_CHECKING:
    pass

__all__ = ["compare_judges"]


def _label(j: Judgment | None, criterion: str) -> Any:
    if j is None or j.outcome != "verdict":
        return None
    return j.label(criterion)


def _rationale(j: Judgment | None, criterion: str) -> str | None:
    if j is None:
        return None
    if j.outcome != "verdict":
        return f"({j.outcome})"
    return next((c.rationale for c in j.criteria if c.criterion == criterion), None)


def _unusable(labels: list[Any]) -> dict[str, int]:
    return {
        "abstained": sum(1 for v in labels if v in ABSTAIN),
        "failed": sum(1 for v in labels if v is None),
    }


def _criterion(
    c: Criterion,
    gold: GoldSet,
    a: dict[str, Judgment],
    b: dict[str, Judgment],
    settings: Settings,
) -> tuple[PairedEstimate, dict[str, Any]]:
    scale = scale_of(c)
    statistic = "weighted_kappa_linear" if scale.level == "ordinal" else "cohen_kappa"
    items = gold.item_ids
    cons = gold.labels_by(CONSENSUS, c.id)
    ref_raw = [cons.get(i) for i in items]
    a_raw = [_label(a.get(i), c.id) for i in items]
    b_raw = [_label(b.get(i), c.id) for i in items]
    ref, ca, cb = _codes(scale, ref_raw), _codes(scale, a_raw), _codes(scale, b_raw)
    clusters = np.asarray([gold.items[i].case for i in items], dtype=object)
    estimate = paired_estimate(
        ref,
        ca,
        cb,
        k=scale.k,
        statistic=statistic,  # type: ignore[arg-type]
        clusters=clusters,
        n_resamples=settings.n_resamples,
        seed=settings.seed,
    )
    flips = []
    for n, i in enumerate(items):
        if ref_raw[n] is None or ca[n] < 0 or cb[n] < 0:
            continue
        right_a, right_b = ca[n] == ref[n], cb[n] == ref[n]
        if right_a == right_b:
            continue
        flips.append(
            {
                "item": i,
                "case": gold.items[i].case,
                "consensus": ref_raw[n],
                "a": a_raw[n],
                "b": b_raw[n],
                "direction": "regression" if right_a else "improvement",
                "rationale_a": _rationale(a.get(i), c.id),
                "rationale_b": _rationale(b.get(i), c.id),
            }
        )
    flips.sort(key=lambda f: (f["direction"] != "regression", f["item"]))
    return estimate, {
        "criterion": c.id,
        "scale": scale.level,
        "unusable": {"a": _unusable(a_raw), "b": _unusable(b_raw)},
        "flips": flips,
    }


def compare_judges(
    gold: GoldSet,
    rubric: Rubric,
    *,
    judge_a: JudgeConfig,
    judge_b: JudgeConfig,
    judgments_a: dict[str, Judgment],
    judgments_b: dict[str, Judgment],
    settings: Settings,
    split: str | None,
    min_cases: int | None = None,
    alpha: float = DEFAULT_ALPHA,
) -> dict[str, Any]:
    """The comparison report of judge B against judge A, as plain JSON data (``min_cases``
    defaults to :data:`~calibrant.compare.paired.MIN_CASES`)."""
    min_cases = MIN_CASES if min_cases is None else min_cases
    parts = {c.id: _criterion(c, gold, judgments_a, judgments_b, settings) for c in rubric.criteria}
    calls = decide_family(
        {cid: est for cid, (est, _) in parts.items()}, alpha=alpha, min_cases=min_cases
    )
    criteria = []
    for cid, (_, rest) in parts.items():
        row = {**rest, **calls[cid].as_json()}
        criteria.append({"criterion": row.pop("criterion"), "scale": row.pop("scale"), **row})
    decisions = {c["criterion"]: c["decision"] for c in criteria}
    if any(d == "B worse" for d in decisions.values()):
        overall = "B worse"
    elif decisions and all(d == "B better" for d in decisions.values()):
        overall = "B better"
    elif any(d == "B better" for d in decisions.values()):
        overall = "mixed: B better on some criteria, undecided on the rest"
    else:
        overall = "undecided"
    cases = len({gold.items[i].case for i in gold.item_ids})
    report = {
        "schema_version": COMPARISON_SCHEMA_VERSION,
        "rubric": {"id": rubric.rubric_id, "version": rubric.version, "hash": rubric.content_hash},
        "gold": {"split": split or "all", "items": len(gold.item_ids), "cases": cases},
        "judges": {
            "a": {"model": judge_a.model, "hash": judge_a.hash},
            "b": {"model": judge_b.model, "hash": judge_b.hash},
        },
        "interval": (
            f"95% {METHOD} of the paired difference (n={settings.n_resamples} resamples, "
            f"seed={settings.seed})"
        ),
        "decision_rule": DECISION_RULE,
        "alpha": alpha,
        "min_cases": min_cases,
        "overall": overall,
        "criteria": criteria,
    }
    return checked("comparison", report)
