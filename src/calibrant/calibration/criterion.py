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
    bootstrap_pairwise,
    items_needed,
    landis_koch_band,
)
from ..agreement.gate import GateSettings
from ..agreement.intervals import proportion
from ..agreement.meanpair import bootstrap_mean_pairwise
from ..agreement.noninferiority import PairedComparison
from ..contracts import NOT_APPLICABLE, Criterion, Judgment
from ..contracts.reports.calibration import (
    CalibrationCriterion,
    Coverage,
    Disagreement,
    ItemsNeeded,
)
from ..contracts.reports.stats import (
    Applicability,
    Estimate,
    PairEstimate,
    PerLabel,
    RaterEstimate,
)
from ..gold import CONSENSUS, GoldSet
from .confusion import _confusion, _disagreements
from .explain import ABSTAIN, Side, constant_notes, explain
from .gate_section import (
    applicability_comparison,
    baseline_sentence,
    comparison_json,
    gate_part,
    per_label,
)

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
    """The criterion's scale for the statistics. ``not_applicable`` is never a level of the
    scale: not "above" the best level of an ordinal criterion, and not a third answer beside
    pass/fail (a judge that only spots applicability would otherwise earn kappa for it). The
    statistics use the items both raters found applicable, and applicability is reported
    beside them under ``not_applicable``."""
    if c.scale.kind == "ordinal":
        return Scale(labels=tuple(c.scale.values()), level="ordinal")
    return Scale(labels=tuple(c.scale.values()), level="nominal")


def _codes(scale: Scale, labels: list[Any]) -> np.ndarray:
    clean = [
        None
        if (x is None or x in ABSTAIN or (x == NOT_APPLICABLE and x not in scale.labels))
        else x
        for x in labels
    ]
    return scale.encode(clean)


def _applicability(
    c: Criterion,
    sides: list[tuple[str, list[Any]]],
    settings: Settings,
    clusters: np.ndarray | None,
    comparison: PairedComparison | None,
) -> Applicability | None:
    """``not_applicable`` as its own category: how many items each side put there, and the
    agreement on applicability (applies / does not apply) of the judge with the consensus."""
    if not c.not_applicable_when or comparison is None:
        return None
    yes_no = Scale(labels=("applies", NOT_APPLICABLE), level="nominal")

    def applies(raw: list[Any]) -> list[Any]:
        return [
            None
            if v is None or v in ABSTAIN
            else (NOT_APPLICABLE if v == NOT_APPLICABLE else "applies")
            for v in raw
        ]

    counts = {name: sum(1 for v in raw if v == NOT_APPLICABLE) for name, raw in sides}
    (ref_name, ref_raw), (judge_name, judge_raw) = sides[0], sides[1]
    a, b = applies(ref_raw), applies(judge_raw)
    agreement = bootstrap_pairwise(
        yes_no.encode(a),
        yes_no.encode(b),
        k=2,
        seed=settings.seed,
        statistic="cohen_kappa",
        n_resamples=settings.n_resamples,
        confidence=settings.confidence,
        clusters=clusters,
    )
    percent = bootstrap_pairwise(
        yes_no.encode(a),
        yes_no.encode(b),
        k=2,
        seed=settings.seed,
        statistic="percent_agreement",
        n_resamples=settings.n_resamples,
        confidence=settings.confidence,
        clusters=clusters,
    )
    pair = [Side.of(ref_name, a), Side.of(judge_name, b)]
    return Applicability(
        when=c.not_applicable_when,
        outside_scale=True,
        judge_vs_experts=comparison_json(comparison, settings.gate.margin),
        n_items=counts,
        agreement_on_applicability=stat_json(agreement, pair),
        percent_agreement_on_applicability=stat_json(percent, pair),
    )


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


def stat_json(b: BootstrapResult, sides: list[Side]) -> Estimate:
    """The result as its report part, with its Landis-Koch band and, when the estimate or the
    interval is undefined, an explanation naming whose labels made it so."""
    d = b.as_estimate().json_data()
    d["band"] = landis_koch_band(b)
    d["explanation"] = explain(d, sides)
    return Estimate.model_validate(d)


def _pair(raters: list[str], e: Estimate) -> PairEstimate:
    return PairEstimate.model_validate({"raters": raters, **e.model_dump(exclude_unset=True)})


def _rater(rater: str, e: Estimate) -> RaterEstimate:
    return RaterEstimate.model_validate({"rater": rater, **e.model_dump(exclude_unset=True)})


def criterion_report(
    c: Criterion, gold: GoldSet, judgments: dict[str, Judgment], settings: Settings
) -> CalibrationCriterion:
    """Everything the calibration report says about one criterion."""
    scale = scale_of(c)
    statistic = "weighted_kappa_linear" if scale.level == "ordinal" else "cohen_kappa"
    items = gold.item_ids
    cases = np.asarray([gold.items[i].case for i in items], dtype=object)
    clusters = cases if settings.cluster_by_case else None
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
    # not_applicable on an item the consensus rated is a wrong answer, not a rating: it counts
    # against coverage like an abstention (else a judge could dodge hard items in it and pass)
    dodged = sum(
        1
        for r, v in zip(ref_raw, judge_raw, strict=True)
        if v == NOT_APPLICABLE and r is not None and r != NOT_APPLICABLE and r not in ABSTAIN
    )
    usable = sum(1 for v in judge_raw if v is not None and v not in ABSTAIN) - dodged
    coverage = usable / n if n else 0.0
    # agreement with abstention as its own category (failures stay missing)
    outside = (
        (NOT_APPLICABLE,) if c.not_applicable_when and NOT_APPLICABLE not in scale.labels else ()
    )
    ab_scale = Scale(labels=(*scale.labels, *outside, "abstain"), level="nominal")
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
    ceiling_kind = "none"
    pairs = []
    for a in range(len(raters)):
        for b in range(a + 1, len(raters)):
            r = _boot(expert_codes[a], expert_codes[b], scale, statistic, settings, clusters)
            sides = [expert_sides[a], expert_sides[b]]
            pairs.append(_pair([raters[a], raters[b]], stat_json(r, sides)))
            if len(raters) == 2:
                ceiling, ceiling_kind = r, f"{statistic} between the two experts"
    if len(raters) > 2:
        # the judge's own statistic, averaged over expert pairs (not a many-rater statistic)
        ceiling = bootstrap_mean_pairwise(
            np.vstack(expert_codes),
            k=scale.k,
            seed=settings.seed,
            statistic=statistic,  # type: ignore[arg-type]
            n_resamples=settings.n_resamples,
            confidence=settings.confidence,
            clusters=clusters,
        )
        ceiling_kind = f"mean {statistic} over the {len(pairs)} expert pairs"
    judge_vs_each = [
        _rater(
            r, stat_json(_boot(codes, y, scale, statistic, settings, clusters), [side, judge_side])
        )
        for r, codes, side in zip(raters, expert_codes, expert_sides, strict=True)
    ]
    applicability = (
        applicability_comparison(
            judge_raw, expert_raw, cases, seed=settings.seed, n_resamples=settings.n_resamples
        )
        if c.not_applicable_when
        else None
    )
    gate, comparison = gate_part(
        y,
        expert_codes,
        cases,
        k=scale.k,
        statistic=statistic,
        coverage=coverage,
        gate=settings.gate,
        seed=settings.seed,
        n_resamples=settings.n_resamples,
        applicability=applicability,
    )
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
    out = CalibrationCriterion(
        criterion=c.id,
        title=c.title,
        scale=[str(v) for v in scale.labels],
        level=scale.level,
        statistic=statistic,
        n_items=n,
        judge_vs_consensus=stat_json(judge_stat, [ref_side, judge_side]),
        judge_vs_consensus_other=extra,
        judge_vs_each_expert=judge_vs_each,
        expert_ceiling=None if ceiling is None else stat_json(ceiling, expert_sides),
        expert_ceiling_statistic=ceiling_kind,
        expert_ceiling_explanation=None
        if ceiling is not None
        else f"{len(raters)} expert(s) ({', '.join(raters) or 'none'}): no expert pair to "
        "measure the experts' own agreement",
        expert_pairs=pairs,
        revise_rubric=ceiling_value is not None and ceiling_value < settings.revise_below,
        coverage=Coverage(
            n_items=n,
            usable=usable,
            abstained=abstained,
            not_applicable_on_rated=dodged,
            failed=failures,
            covered_pairs=covered,
            coverage=coverage,
            coverage_ci95=None if n == 0 else list(proportion(usable, n).ci95 or ()),
        ),
        with_abstention_category=stat_json(
            ab, [Side.of("the consensus", ab_ref), Side.of("the judge", ab_judge, failures)]
        ),
        confusion=_confusion(scale, ref_raw, judge_raw, outside),
        not_applicable=_applicability(
            c,
            [("the consensus", ref_raw), ("the judge", judge_raw)],
            settings,
            clusters,
            applicability,
        ),
        gate=gate.as_gate(),
        gate_comparison=comparison,
        per_label=[
            PerLabel.model_validate(p)
            for p in per_label(
                scale,
                x,
                y,
                clusters,
                seed=settings.seed,
                n_resamples=settings.n_resamples,
                confidence=settings.confidence,
            )
        ],
        items_needed_for_width=ItemsNeeded(
            target_width=settings.target_width,
            items=None if isinstance(need, Undefined) else need,
            unit="cases" if judge_stat.n_clusters else "items",
            undefined_reason=need.reason if isinstance(need, Undefined) else None,
        ),
        notes=constant_notes(judge_side, ref_side, expert_sides),
        disagreements=[
            Disagreement.model_validate(d)
            for d in _disagreements(c, gold, judgments, scale, ref_raw, judge_raw)
        ],
    )
    out.baseline_sentence = baseline_sentence(out)
    return out
