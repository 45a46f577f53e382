"""The parts of a criterion's report that decide and explain its gate: the judge against the
experts by the same statistic on both sides (pass/fail or the ordered levels on applicable
items; applicability beside it), and, per label, sensitivity, specificity and the agreement of a
judge that always gives it."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..agreement import Scale
from ..agreement.gate import GATE_CONFIDENCE, GateDecision, GateSettings, release_gate
from ..agreement.noninferiority import PairedComparison, paired_comparison
from ..agreement.perlabel import one_vs_rest
from ..contracts import NOT_APPLICABLE
from ..contracts.reports.calibration import CalibrationCriterion
from ..contracts.reports.stats import Estimate, GateComparison
from .explain import ABSTAIN

__all__ = [
    "applicability_comparison",
    "baseline_sentence",
    "comparison_json",
    "gate_part",
    "per_label",
]


def comparison_json(p: PairedComparison, margin: float | None) -> GateComparison:
    """The comparison the gate decides on, as its report part (with the gate's confidence,
    margin and what its intervals mean)."""
    d = p.as_comparison().json_data()
    d["confidence"] = GATE_CONFIDENCE
    d["margin"] = margin
    d["note"] = (
        f"{GATE_CONFIDENCE:.0%} intervals: each end is a nominal one-sided "
        f"{(1 + GATE_CONFIDENCE) / 2 * 100:g}% confidence bound; the gate's measured false-PASS "
        "rate at D = -margin is at most 5%, its stated level"
    )
    return GateComparison.model_validate(d)


def gate_part(
    judge: np.ndarray,
    experts: list[np.ndarray],
    cases: np.ndarray,
    *,
    k: int,
    statistic: str,
    coverage: float,
    gate: GateSettings,
    seed: int,
    n_resamples: int,
    applicability: PairedComparison | None = None,
) -> tuple[GateDecision, GateComparison]:
    """The gate decision and its comparison (always resampled by case: the gate's unit).
    ``applicability``: :func:`applicability_comparison` of a criterion that allows
    not_applicable, gated beside the quality comparison."""
    comparison = paired_comparison(
        judge,
        np.vstack(experts) if experts else np.full((0, judge.size), -1),
        k=k,
        seed=seed,
        statistic=statistic,  # type: ignore[arg-type]
        n_resamples=n_resamples,
        confidence=GATE_CONFIDENCE,
        clusters=cases,
    )
    decision = release_gate(
        comparison, coverage=coverage, settings=gate, applicability=applicability
    )
    return decision, comparison_json(comparison, gate.margin if gate.use_ceiling else None)


def _applies(raw: list[Any]) -> np.ndarray:
    yes_no = Scale(labels=("applies", NOT_APPLICABLE), level="nominal")
    return yes_no.encode(
        [
            None
            if v is None or v in ABSTAIN
            else (NOT_APPLICABLE if v == NOT_APPLICABLE else "applies")
            for v in raw
        ]
    )


def applicability_comparison(
    judge_raw: list[Any],
    experts_raw: list[list[Any]],
    cases: np.ndarray,
    *,
    seed: int,
    n_resamples: int,
) -> PairedComparison:
    """Agreement on applicability (applies / not_applicable), judge side against expert side by
    Cohen's kappa, paired by case, as the gate compares quality (the gate reads it too)."""
    comparison = paired_comparison(
        _applies(judge_raw),
        np.vstack([_applies(r) for r in experts_raw])
        if experts_raw
        else np.full((0, len(judge_raw)), -1),
        k=2,
        seed=seed,
        statistic="cohen_kappa",
        n_resamples=n_resamples,
        confidence=GATE_CONFIDENCE,
        clusters=cases,
    )
    return comparison


def per_label(
    scale: Scale,
    reference: np.ndarray,
    judge: np.ndarray,
    clusters: np.ndarray | None,
    *,
    seed: int,
    n_resamples: int,
    confidence: float,
) -> list[dict[str, Any]]:
    """Per label of the scale: sensitivity, specificity (the consensus as truth, one label
    against the rest) and the percent agreement of a judge that always gives that label."""
    rates = one_vs_rest(
        reference,
        judge,
        k=scale.k,
        seed=seed,
        n_resamples=n_resamples,
        confidence=confidence,
        clusters=clusters,
    )
    return [
        {
            "label": str(scale.labels[r.code]),
            "sensitivity": r.sensitivity.as_estimate().json_data(),
            "specificity": r.specificity.as_estimate().json_data(),
            "always_agreement": r.always.as_estimate().json_data(),
        }
        for r in rates
    ]


def _pct(s: Estimate) -> str:
    """'64% [52%, 75%]' or 'undefined (<why>)' for a proportion figure."""
    if s.estimate is None:
        return f"undefined ({s.estimate_undefined_reason})"
    ci = s.ci
    interval = f" [{ci[0]:.0%}, {ci[1]:.0%}]" if ci else f" (CI undefined: {s.ci_undefined_reason})"
    return f"{s.estimate:.0%}{interval}"


def _kappa(s: Estimate) -> str:
    if s.estimate is None:
        return f"undefined ({s.estimate_undefined_reason})"
    ci = s.ci
    interval = f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else " (CI undefined)"
    return f"{s.estimate:.2f}{interval}"


_NAMES = {"cohen_kappa": "Cohen's κ", "weighted_kappa_linear": "linear-weighted κ"}


def baseline_sentence(c: CalibrationCriterion) -> str | None:
    """The always-one-label baseline and the judge's per-label sensitivity and specificity, in
    plain sentences (``None`` when the report has no per-label figures)."""
    labels = c.per_label
    if not labels:
        return None
    always = sorted(
        (x for x in labels if x.always_agreement.estimate is not None),
        key=lambda x: -(x.always_agreement.estimate or 0.0),
    )
    if not always:
        return "No item has a label from both the judge and the consensus: no baseline."
    if c.level == "ordinal":  # the best constant judge: the most common level
        always = always[:1]
    top = always[0].always_agreement
    size = f"{top.n} items" + (f" ({top.n_clusters} cases)" if top.n_clusters else "")
    text = (
        f"A judge that always says '{always[0].label}' would agree with the consensus on "
        f"{_pct(top)} of the {size} both labelled"
        + "".join(
            f", and one that always says '{x.label}' on {_pct(x.always_agreement)}"
            for x in always[1:]
        )
        + "; its κ is 0 by construction. "
    )
    pa = c.judge_vs_consensus_other.get("percent_agreement")
    if pa is not None:
        name = _NAMES.get(c.statistic, c.statistic)
        text += f"This judge agrees on {_pct(pa)}, with {name} {_kappa(c.judge_vs_consensus)}. "
    per = "; ".join(
        f"'{x.label}' sensitivity {_pct(x.sensitivity)} (n={x.sensitivity.n}), "
        f"specificity {_pct(x.specificity)} (n={x.specificity.n})"
        for x in labels
    )
    return text + f"Per label, with the consensus as truth (one label against the rest): {per}."
