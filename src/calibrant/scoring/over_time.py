"""Agreement over time: the judge against the experts on the items audited after release, per
judge version and per time window, by the same statistics and gate as the calibration.

The window is the data model the drift monitor reads (keep it simple):

* :class:`AuditWindow` — one judge version (``judge_version``: the judge's content hash) over
  ``[start, end)`` (UTC; a day, an ISO week from Monday, or a calendar month, of the score runs'
  start times), with, per criterion, a list of :class:`AuditedItem`;
* :class:`AuditedItem` — ``(case_id, item_id, expert_label, judge_label)``: ``expert_label`` is
  the consensus (adjudicated, or agreed by two or more experts), else the one expert's label
  with ``single_expert`` set, else None (experts disagree and nobody adjudicated; or only
  "can't tell"); ``judge_label`` is what the judge recorded in the score run (None: no verdict).
  ``experts`` keeps each expert's own label (the gate's expert side) and
  ``inclusion_probability`` the audit design's (see ``audit_sample``).

Per criterion and window, :func:`window_criterion` gives kappa (linear-weighted on an ordinal
scale) with a case-clustered interval, sensitivity and specificity per label, n items and n
cases, the release gate's decision by its rule, and — on a pass/fail criterion, given the run's
judged counts — the pass rate corrected by the judge's errors measured on this window's audit
(score's Rogan-Gladen correction, the audited cases resampled). The audit over-samples small
cases and rare verdicts, so its raw error counts describe the sample, not the run: the
sensitivity and specificity of the correction weigh each audited item by ``1 /
inclusion_probability`` (the weights scaled to sum to the number of items, so the counts keep
their size), which makes them the run's (issue 31: unweighted, the corrected rate was off by
+0.039 when the judge's accuracy depends on the case's size, and did not shrink with more
audited items). Items audited by an earlier version carry no inclusion probability: when any
item lacks one, every item counts once (equal weights, as before) and ``correction`` says so.
Beside it,
``pass_rate_audited`` is the experts' own pass rate on the audited items weighted by
``1 / inclusion_probability`` (the weights scaled to sum to the number of items), with the
case-clustered interval of :mod:`calibrant.agreement.clustered`: the run's pass rate as the
experts would judge it, unbiased under the audit's design."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Literal

import numpy as np

from ..agreement import bootstrap_pairwise
from ..agreement.clustered import clustered_proportion
from ..agreement.gate import GateSettings
from ..calibration.criterion import scale_of, stat_json
from ..calibration.explain import ABSTAIN, Side
from ..calibration.gate_section import applicability_comparison, gate_part, per_label
from ..contracts import NOT_APPLICABLE, Criterion
from ..contracts.reports.base import Figure
from ..contracts.reports.monitor_parts import WindowAgreement
from ..contracts.reports.stats import PerLabel
from .correction import ErrorCounts, corrected_pass_rate

__all__ = [
    "WindowKind",
    "WINDOWS",
    "AuditedItem",
    "AuditWindow",
    "window_bounds",
    "window_criterion",
    "audit_error_counts",
]

WindowKind = Literal["day", "week", "month"]
WINDOWS: tuple[str, ...] = ("day", "week", "month")


@dataclass(frozen=True)
class AuditedItem:
    case_id: str
    item_id: str
    expert_label: str | int | None
    judge_label: str | int | None
    single_expert: bool = False
    experts: Mapping[str, str | int] = field(default_factory=dict)
    inclusion_probability: float | None = None


@dataclass(frozen=True)
class AuditWindow:
    judge_version: str
    start: datetime
    end: datetime
    criteria: dict[str, list[AuditedItem]]
    score_runs: tuple[str, ...] = ()
    audits: tuple[str, ...] = ()


def window_bounds(moment: datetime, kind: str) -> tuple[datetime, datetime]:
    """The window of `kind` (day, week from Monday, month) holding `moment`, in UTC."""
    t = (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).astimezone(UTC)
    day = t.replace(hour=0, minute=0, second=0, microsecond=0)
    if kind == "day":
        return day, day + timedelta(days=1)
    if kind == "week":
        start = day - timedelta(days=day.weekday())
        return start, start + timedelta(days=7)
    if kind == "month":
        start = day.replace(day=1)
        end = (
            start.replace(year=start.year + 1, month=1)
            if start.month == 12
            else start.replace(month=start.month + 1)
        )
        return start, end
    raise ValueError(f"window '{kind}' is not one of {', '.join(WINDOWS)}")


def window_criterion(
    c: Criterion,
    items: Sequence[AuditedItem],
    *,
    seed: int = 0,
    n_resamples: int = 2000,
    gate: GateSettings | None = None,
    judged: tuple[int, int] | None = None,
) -> WindowAgreement:
    """One criterion in one window (see the module docstring). `judged`: (passes, pass or fail
    verdicts) the judge gave in the window's score runs, to correct."""
    gate = gate or GateSettings()
    scale = scale_of(c)
    statistic = "weighted_kappa_linear" if scale.level == "ordinal" else "cohen_kappa"
    missing = (*ABSTAIN, NOT_APPLICABLE)
    rated = [it for it in items if it.expert_label is not None]
    ref_raw = [it.expert_label for it in rated]
    judge_raw = [it.judge_label for it in rated]
    x = scale.encode(ref_raw, missing=missing)
    y = scale.encode(judge_raw, missing=missing)
    cases = np.asarray([it.case_id for it in rated], dtype=object)
    both = (x >= 0) & (y >= 0)
    kappa = bootstrap_pairwise(
        x,
        y,
        k=scale.k,
        seed=seed,
        statistic=statistic,  # type: ignore[arg-type]
        n_resamples=n_resamples,
        clusters=cases if rated else None,
    )
    raters = sorted({r for it in rated for r in it.experts})
    expert_codes = [
        scale.encode([it.experts.get(r) for it in rated], missing=missing) for r in raters
    ]
    # coverage as the calibration counts it: an abstention, a failed answer, and not_applicable
    # on an item the experts rated are not usable labels
    usable = sum(
        1
        for e, j in zip(ref_raw, judge_raw, strict=True)
        if j is not None
        and j not in ABSTAIN
        and not (j == NOT_APPLICABLE and e != NOT_APPLICABLE and e not in ABSTAIN)
    )
    coverage = usable / len(rated) if rated else 0.0
    decision, comparison = gate_part(
        y,
        expert_codes,
        cases,
        k=scale.k,
        statistic=statistic,
        coverage=coverage,
        gate=gate,
        seed=seed,
        n_resamples=n_resamples,
        # the same applicability check as calibrate's gate
        applicability=applicability_comparison(
            judge_raw,
            [[it.experts.get(r) for it in rated] for r in raters],
            cases,
            seed=seed,
            n_resamples=n_resamples,
        )
        if c.not_applicable_when
        else None,
    )
    binary = c.scale.kind == "binary"
    corrected, correction = None, "not applied: the correction is defined for pass/fail criteria"
    if binary and judged is None:
        correction = "not applied: no judged counts for this window"
    elif binary and judged is not None:
        counts, weighting = audit_error_counts(rated)
        corrected = corrected_pass_rate(judged[0], judged[1], counts, seed=seed).typed()
        correction = (
            "Rogan-Gladen with the judge's errors on this window's audited items, their cases "
            f"resampled; {weighting}"
        )
    return WindowAgreement(
        criterion=c.id,
        statistic=statistic,
        n_items=int(both.sum()),
        n_cases=len({str(v) for v in cases[both]}),
        n_audited=len(items),
        n_unresolved=len(items) - len(rated),
        n_single_expert=sum(1 for it in rated if it.single_expert),
        coverage=coverage,
        kappa=stat_json(kappa, [Side.of("the experts", ref_raw), Side.of("the judge", judge_raw)]),
        per_label=[
            PerLabel.model_validate(row)
            for row in per_label(
                scale,
                x,
                y,
                cases if rated else None,
                seed=seed,
                n_resamples=n_resamples,
                confidence=0.95,
            )
        ],
        gate=decision.as_gate(),
        gate_comparison=comparison,
        pass_rate_corrected=corrected,
        pass_rate_audited=_audited_rate(rated, seed=seed) if binary else None,
        correction=correction,
    )


def audit_error_counts(items: Sequence[AuditedItem]) -> tuple[list[ErrorCounts], str]:
    """The judge's error counts per audited case, each item weighted by ``1 /
    inclusion_probability`` (scaled so the weights sum to the number of items), and a sentence
    saying how they were weighted. Equal weights when any item has no recorded probability
    (audits drawn by an earlier version)."""
    pairs = [
        it
        for it in items
        if it.expert_label in ("pass", "fail") and it.judge_label in ("pass", "fail")
    ]
    known = all(it.inclusion_probability for it in pairs)
    weights = [1 / (it.inclusion_probability or 1.0) if known else 1.0 for it in pairs]
    scale = len(pairs) / sum(weights) if pairs else 1.0
    by_case: dict[str, list[float]] = {}
    for it, w in zip(pairs, weights, strict=True):
        cell = by_case.setdefault(it.case_id, [0.0, 0.0, 0.0, 0.0])
        e, j = it.expert_label, it.judge_label
        cell[(0 if e == "pass" else 2) + (0 if e == j else 1)] += w * scale
    counts = [ErrorCounts(*v) for _, v in sorted(by_case.items())]
    if known:
        return counts, "sensitivity and specificity weighted by 1 / inclusion probability"
    missing = sum(1 for it in pairs if not it.inclusion_probability)
    return counts, (
        f"unweighted: {missing} of {len(pairs)} audited items have no recorded inclusion "
        "probability (audited by an earlier version), so every item counts once (equal "
        "weights assumed)"
    )


def _audited_rate(items: Sequence[AuditedItem], *, seed: int) -> Figure | None:
    """The experts' pass rate on `items`, weighted by 1 / inclusion probability, by case."""
    rated = [it for it in items if it.expert_label in ("pass", "fail")]
    if not rated or any(not it.inclusion_probability for it in rated):
        return None
    weights = [1 / (it.inclusion_probability or 1) for it in rated]
    scale = len(rated) / sum(weights)
    passed: dict[str, float] = {}
    total: dict[str, float] = {}
    for it, w in zip(rated, weights, strict=True):
        total[it.case_id] = total.get(it.case_id, 0.0) + w * scale
        if it.expert_label == "pass":
            passed[it.case_id] = passed.get(it.case_id, 0.0) + w * scale
    cases = sorted(total)
    figure = clustered_proportion([passed.get(k, 0.0) for k in cases], [total[k] for k in cases])
    return figure.as_figure()
