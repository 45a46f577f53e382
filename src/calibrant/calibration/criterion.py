"""Per-criterion calibration statistics: judge vs consensus, experts vs experts, abstentions,
confusion, the gate, and the disagreements worth a human look."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..agreement import (
    MISSING,
    BootstrapResult,
    Scale,
    Undefined,
    bootstrap_fleiss,
    bootstrap_pairwise,
    items_needed,
    landis_koch_band,
)
from ..agreement.gate import GateSettings, release_gate
from ..agreement.intervals import proportion
from ..contracts import Criterion, Judgment
from ..gold import CONSENSUS, GoldSet
from .explain import ABSTAIN, Side, constant_notes, explain

__all__ = ["Settings", "criterion_report", "scale_of", "ABSTAIN"]


@dataclass(frozen=True)
class Settings:
    """How the report is computed (every draw seeded; the seed is reported)."""

    seed: int = 0
    n_resamples: int = 2000
    confidence: float = 0.95
    gate: GateSettings = GateSettings()
    revise_below: float = 0.6  # expert agreement below this flags the criterion for revision
    target_width: float = 0.2  # CI width the items-needed figure aims at
    cluster_by_case: bool = True


def scale_of(c: Criterion) -> Scale:
    return Scale(
        labels=tuple(c.allowed_labels()),
        level="ordinal" if c.scale.kind == "ordinal" else "nominal",
    )


def _codes(scale: Scale, labels: list[Any]) -> np.ndarray:
    clean = [None if (x is None or x in ABSTAIN) else x for x in labels]
    return scale.encode(clean)


def _boot(
    x: np.ndarray,
    y: np.ndarray,
    scale: Scale,
    statistic: str,
    settings: Settings,
    clusters: np.ndarray | None,
) -> BootstrapResult:
    return bootstrap_pairwise(
        x,
        y,
        k=scale.k,
        seed=settings.seed,
        statistic=statistic,  # type: ignore[arg-type]
        n_resamples=settings.n_resamples,
        confidence=settings.confidence,
        clusters=clusters,
    )


def stat_json(b: BootstrapResult, sides: list[Side]) -> dict[str, Any]:
    """The result as JSON, with its Landis-Koch band and, when the estimate or the interval
    is undefined, an explanation naming whose labels made it so."""
    d = b.to_dict()
    d["band"] = landis_koch_band(b)
    d["explanation"] = explain(d, sides)
    return d


def criterion_report(
    c: Criterion, gold: GoldSet, judgments: dict[str, Judgment], settings: Settings
) -> dict[str, Any]:
    """Everything the calibration report says about one criterion."""
    scale = scale_of(c)
    statistic = "weighted_kappa_linear" if scale.level == "ordinal" else "cohen_kappa"
    items = gold.item_ids
    clusters = (
        np.asarray([gold.items[i].case for i in items], dtype=object)
        if settings.cluster_by_case
        else None
    )
    cons = gold.labels_by(CONSENSUS, c.id)
    judge_raw: list[Any] = []
    failures: dict[str, int] = {}
    for i in items:
        j = judgments.get(i)
        if j is None or j.outcome != "verdict":
            outcome = "missing" if j is None else j.outcome
            failures[outcome] = failures.get(outcome, 0) + 1
            judge_raw.append(None)
        else:
            judge_raw.append(j.label(c.id))
    ref_raw = [cons.get(i) for i in items]
    x, y = _codes(scale, ref_raw), _codes(scale, judge_raw)
    judge_side = Side.of("the judge", judge_raw, failures)
    ref_side = Side.of("the consensus", ref_raw)
    judge_stat = _boot(x, y, scale, statistic, settings, clusters)
    extra = {
        name: stat_json(_boot(x, y, scale, name, settings, clusters), [ref_side, judge_side])
        for name in (
            ["cohen_kappa", "weighted_kappa_quadratic"]
            if scale.level == "ordinal"
            else ["gwet_ac1"]
        )
        + ["percent_agreement"]
    }
    n = len(items)
    abstained = sum(1 for v in judge_raw if v in ABSTAIN)
    covered = int(np.count_nonzero((x != MISSING) & (y != MISSING)))
    usable = sum(1 for v in judge_raw if v is not None and v not in ABSTAIN)
    coverage = usable / n if n else 0.0
    # agreement with abstention as its own category (failures stay missing)
    ab_scale = Scale(labels=(*scale.labels, "abstain"), level="nominal")
    ab_ref = [None if v is None else ("abstain" if v in ABSTAIN else v) for v in ref_raw]
    ab_judge = [None if v is None else ("abstain" if v in ABSTAIN else v) for v in judge_raw]
    ab = bootstrap_pairwise(
        ab_scale.encode(ab_ref),
        ab_scale.encode(ab_judge),
        k=ab_scale.k,
        seed=settings.seed,
        statistic="cohen_kappa",
        n_resamples=settings.n_resamples,
        confidence=settings.confidence,
        clusters=clusters,
    )
    # experts among themselves: the ceiling
    raters = sorted(gold.experts)
    expert_raw = [[gold.labels_by(r, c.id).get(i) for i in items] for r in raters]
    expert_sides = [Side.of(f"expert {r}", raw) for r, raw in zip(raters, expert_raw, strict=True)]
    expert_codes = [_codes(scale, raw) for raw in expert_raw]
    ceiling: BootstrapResult | None = None
    pairs = []
    for a in range(len(raters)):
        for b in range(a + 1, len(raters)):
            r = _boot(expert_codes[a], expert_codes[b], scale, statistic, settings, clusters)
            sides = [expert_sides[a], expert_sides[b]]
            pairs.append({"raters": [raters[a], raters[b]], **stat_json(r, sides)})
            if len(raters) == 2:
                ceiling = r
    if len(raters) > 2:
        ceiling = bootstrap_fleiss(
            np.vstack(expert_codes),
            k=scale.k,
            seed=settings.seed,
            n_resamples=settings.n_resamples,
            confidence=settings.confidence,
            clusters=clusters,
        )
    judge_vs_each = [
        {
            "rater": r,
            **stat_json(_boot(codes, y, scale, statistic, settings, clusters), [side, judge_side]),
        }
        for r, codes, side in zip(raters, expert_codes, expert_sides, strict=True)
    ]
    gate = release_gate(judge_stat, ceiling, coverage=coverage, settings=settings.gate)
    ceiling_value = (
        None if ceiling is None or isinstance(ceiling.estimate, Undefined) else ceiling.estimate
    )
    width = judge_stat.width
    need = (
        items_needed(
            observed_width=width,
            n=judge_stat.n_clusters or judge_stat.n,
            target_width=settings.target_width,
        )
        if not isinstance(width, Undefined)
        else width
    )
    return {
        "criterion": c.id,
        "title": c.title,
        "scale": [str(v) for v in scale.labels],
        "level": scale.level,
        "statistic": statistic,
        "n_items": n,
        "judge_vs_consensus": stat_json(judge_stat, [ref_side, judge_side]),
        "judge_vs_consensus_other": extra,
        "judge_vs_each_expert": judge_vs_each,
        "expert_ceiling": None if ceiling is None else stat_json(ceiling, expert_sides),
        "expert_ceiling_explanation": None
        if ceiling is not None
        else f"{len(raters)} expert(s) ({', '.join(raters) or 'none'}): no expert pair to "
        "measure the experts' own agreement",
        "expert_pairs": pairs,
        "revise_rubric": ceiling_value is not None and ceiling_value < settings.revise_below,
        "coverage": {
            "n_items": n,
            "usable": usable,
            "abstained": abstained,
            "failed": failures,
            "covered_pairs": covered,
            "coverage": coverage,
            "coverage_ci95": None if n == 0 else list(proportion(usable, n).ci95 or ()),
        },
        "with_abstention_category": stat_json(
            ab, [Side.of("the consensus", ab_ref), Side.of("the judge", ab_judge, failures)]
        ),
        "confusion": _confusion(scale, ref_raw, judge_raw),
        "gate": gate.to_dict(),
        "items_needed_for_width": {
            "target_width": settings.target_width,
            "items": None if isinstance(need, Undefined) else need,
            "unit": "cases" if judge_stat.n_clusters else "items",
            "undefined_reason": need.reason if isinstance(need, Undefined) else None,
        },
        "notes": constant_notes(judge_side, ref_side, expert_sides),
        "disagreements": _disagreements(c, gold, judgments, scale, ref_raw, judge_raw),
    }


def _confusion(scale: Scale, ref: list[Any], judge: list[Any]) -> dict[str, Any]:
    rows = [*map(str, scale.labels), "abstain", "missing"]
    cols = [*map(str, scale.labels), "abstain", "failed"]
    m = [[0] * len(cols) for _ in rows]

    def idx(v: Any, names: list[str], none: str) -> int:
        if v is None:
            return names.index(none)
        return names.index("abstain") if v in ABSTAIN else names.index(str(v))

    for r, j in zip(ref, judge, strict=True):
        m[idx(r, rows, "missing")][idx(j, cols, "failed")] += 1
    return {"rows_consensus": rows, "columns_judge": cols, "counts": m}


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
