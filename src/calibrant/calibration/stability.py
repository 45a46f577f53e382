"""Judge stability: one judge configuration sampled k times on the same items, and how much its
samples agree with one another.

The k samples are treated as k raters of the same items: Fleiss' kappa on pass/fail criteria,
Krippendorff's ordinal alpha on ordinal ones, each with a bootstrap interval over items (whole
cases when clustered). Beside it, the share of items on which the samples did not all give the
same label. A judge whose self-agreement interval reaches below `min_self_agreement` is flagged:
its single answers are partly a coin toss, and its calibration will not hold from run to run.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..agreement import bootstrap_fleiss, bootstrap_krippendorff
from ..agreement.intervals import proportion
from ..contracts import Criterion, JudgeConfig, Judgment, Rubric
from ..contracts.reports import STABILITY_SCHEMA_VERSION
from ..contracts.reports.probe import StabilityCriterion, StabilityJudge, StabilityReport
from .criterion import ABSTAIN, _codes, scale_of

__all__ = ["judge_stability"]


def _criterion(
    c: Criterion,
    items: list[str],
    samples: dict[str, list[Judgment]],
    k: int,
    clusters: np.ndarray | None,
    *,
    seed: int,
    n_resamples: int,
    min_self_agreement: float,
) -> StabilityCriterion:
    scale = scale_of(c)
    raw = [
        [
            samples[i][s].label(c.id)
            if s < len(samples[i]) and samples[i][s].outcome == "verdict"
            else None
            for i in items
        ]
        for s in range(k)
    ]
    matrix = np.stack([_codes(scale, row) for row in raw])  # (samples, items)
    if scale.level == "ordinal":
        result = bootstrap_krippendorff(
            matrix,
            k=scale.k,
            seed=seed,
            level="ordinal",
            n_resamples=n_resamples,
            clusters=clusters,
        )
    else:
        result = bootstrap_fleiss(
            matrix, k=scale.k, seed=seed, n_resamples=n_resamples, clusters=clusters
        )
    stat = result.as_estimate()
    rated = matrix >= 0
    comparable = rated.sum(axis=0) >= 2
    differs = np.array(
        [len(set(matrix[rated[:, j], j].tolist())) > 1 for j in range(matrix.shape[1])]
    )
    unstable = int((differs & comparable).sum())
    abstained = sum(1 for row in raw for v in row if v in ABSTAIN)
    lower = stat.ci[0] if stat.ci else None
    if stat.estimate is None or lower is None:
        flag = "undefined"  # no estimate, or no interval (e.g. one case: no clustered interval)
    elif lower < min_self_agreement:
        flag = "UNSTABLE"
    else:
        flag = "stable"
    differing = proportion(unstable, int(comparable.sum())).as_figure()
    return StabilityCriterion(
        criterion=c.id,
        scale=scale.level,
        self_agreement=stat,
        items_with_differing_samples=differing,
        abstentions=abstained,
        flag=flag,
        unstable_items=[items[j] for j in np.flatnonzero(differs & comparable)][:50],
    )


def judge_stability(
    items: list[str],
    samples: dict[str, list[Judgment]],
    *,
    rubric: Rubric,
    judge: JudgeConfig,
    k: int,
    clusters: list[Any] | None,
    seed: int = 0,
    n_resamples: int = 2000,
    min_self_agreement: float = 0.8,
) -> StabilityReport:
    """The stability report (its JSON: `model_dump(mode="json", exclude_unset=True)`)."""
    cl = None if clusters is None else np.asarray(clusters, dtype=object)
    criteria = [
        _criterion(
            c,
            items,
            samples,
            k,
            cl,
            seed=seed,
            n_resamples=n_resamples,
            min_self_agreement=min_self_agreement,
        )
        for c in rubric.criteria
    ]
    outcomes: dict[str, int] = {}
    for js in samples.values():
        for j in js:
            outcomes[j.outcome] = outcomes.get(j.outcome, 0) + 1
    warnings = []
    if judge.temperature == 0:
        warnings.append(
            "temperature is 0: samples differ only through the provider's nondeterminism; "
            "use the temperature the judge runs at (or --temperature) to measure stability"
        )
    return StabilityReport(
        schema_version=STABILITY_SCHEMA_VERSION,
        judge=StabilityJudge(model=judge.model, hash=judge.hash, temperature=judge.temperature),
        samples=k,
        items=len(items),
        judge_outcomes=dict(sorted(outcomes.items())),
        min_self_agreement=min_self_agreement,
        statistic="Fleiss' kappa (pass/fail), Krippendorff's ordinal alpha (ordinal), "
        "samples as raters, bootstrap over " + ("whole cases" if clusters is not None else "items"),
        warnings=warnings,
        criteria=criteria,
    )
