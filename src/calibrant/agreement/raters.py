"""Agreement among raters only (no judge), per criterion, from label files."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..contracts import CANT_TELL, NOT_APPLICABLE, Label, Rubric
from ..contracts.reports.agreement_parts import (
    AGREEMENT_SCHEMA_VERSION,
    AgreeCriterion,
    AgreeReport,
    RaterApplicability,
)
from .encode import Level, Scale
from .report import pairwise_report

__all__ = ["rater_agreement"]


def rater_agreement(
    labels: Sequence[Label],
    *,
    level: Level | None,
    rubric: Rubric | None,
    seed: int,
    n_resamples: int = 2000,
    clusters: Mapping[str, Any] | None = None,
    order: Sequence[str | int] | None = None,
) -> AgreeReport:
    """Per criterion its raters' pairs, Fleiss' kappa and Krippendorff's alpha, plus the seed,
    resample count and per-rater abstentions ("cant_tell", left out).
    `order` (low to high) makes every criterion ordinal on that scale."""
    by_crit: dict[str, list[Label]] = {}
    for x in labels:
        by_crit.setdefault(x.criterion, []).append(x)
    out: dict[str, AgreeCriterion] = {}
    for crit, rows in sorted(by_crit.items()):
        scale = None
        lvl = level
        outside: tuple[str, ...] = ()  # not_applicable on an ordinal scale: outside the levels
        if order is not None:
            scale = Scale(labels=tuple(order), level="ordinal")
        elif rubric is not None:
            try:
                c = rubric.criterion(crit)
            except KeyError:
                c = None
            if c is not None:
                lvl = level or ("ordinal" if c.scale.kind == "ordinal" else "nominal")
                allowed = tuple(c.allowed_labels())
                if lvl == "ordinal" and NOT_APPLICABLE in allowed:
                    allowed = tuple(v for v in allowed if v != NOT_APPLICABLE)
                    outside = (NOT_APPLICABLE,)
                scale = Scale(labels=allowed, level=lvl)
        report = pairwise_report(
            [(x.item, x.rater, x.label) for x in rows],
            seed=seed,
            scale=scale,
            level=None if scale is not None else (lvl or "nominal"),
            missing=(CANT_TELL, *outside),
            n_resamples=n_resamples,
            clusters={i: clusters[i] for i in {x.item for x in rows}} if clusters else None,
        )
        abst: dict[str, int] = {}
        for x in rows:
            if x.label == CANT_TELL:
                abst[x.rater] = abst.get(x.rater, 0) + 1
        na = _applicability(rows, seed=seed, n_resamples=n_resamples) if outside else None
        out[crit] = AgreeCriterion(
            **dict(report.as_criterion()),
            level=report.scale.level,
            scale=list(report.scale.labels),
            raters=list(report.raters),
            abstentions=abst,
            **({"not_applicable": na} if na is not None else {}),
        )
    return AgreeReport(
        schema_version=AGREEMENT_SCHEMA_VERSION,
        criteria=out,
        seed=seed,
        n_resamples=n_resamples,
        bootstrap=(
            "BCa ∪ cluster jackknife t(G-1) ∪ Wilson score floor, clustered by case"
            if clusters
            else "BCa ∪ Wilson score floor, by item"
        ),
    )


def _applicability(rows: Sequence[Label], *, seed: int, n_resamples: int) -> RaterApplicability:
    """not_applicable as its own category: items per rater and agreement on applicability."""
    per_rater: dict[str, int] = {}
    for x in rows:
        if x.label == NOT_APPLICABLE:
            per_rater[x.rater] = per_rater.get(x.rater, 0) + 1
    report = pairwise_report(
        [
            (x.item, x.rater, "not_applicable" if x.label == NOT_APPLICABLE else "applies")
            for x in rows
            if x.label != CANT_TELL
        ],
        seed=seed,
        scale=Scale(labels=("applies", NOT_APPLICABLE), level="nominal"),
        n_resamples=n_resamples,
    )
    return RaterApplicability(
        n_items_by_rater=per_rater, agreement_on_applicability=report.as_criterion()
    )
