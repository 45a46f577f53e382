"""Agreement among raters only (no judge), per criterion, from label files."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..contracts import CANT_TELL, Label, Rubric
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
) -> dict[str, Any]:
    """`{"criteria": {C: {"n_items", "fleiss_kappa", "krippendorff_alpha", "pairs": [...]}}}`
    plus the seed, resample count and per-rater abstentions ("cant_tell", left out).
    `order` (low to high) makes every criterion ordinal on that scale."""
    by_crit: dict[str, list[Label]] = {}
    for x in labels:
        by_crit.setdefault(x.criterion, []).append(x)
    out: dict[str, Any] = {}
    for crit, rows in sorted(by_crit.items()):
        scale = None
        lvl = level
        if order is not None:
            scale = Scale(labels=tuple(order), level="ordinal")
        elif rubric is not None:
            try:
                c = rubric.criterion(crit)
            except KeyError:
                c = None
            if c is not None:
                lvl = level or ("ordinal" if c.scale.kind == "ordinal" else "nominal")
                scale = Scale(labels=tuple(c.allowed_labels()), level=lvl)
        report = pairwise_report(
            [(x.item, x.rater, x.label) for x in rows],
            seed=seed,
            scale=scale,
            level=None if scale is not None else (lvl or "nominal"),
            missing=(CANT_TELL,),
            n_resamples=n_resamples,
            clusters={i: clusters[i] for i in {x.item for x in rows}} if clusters else None,
        )
        d = report.to_dict()
        abst: dict[str, int] = {}
        for x in rows:
            if x.label == CANT_TELL:
                abst[x.rater] = abst.get(x.rater, 0) + 1
        d["level"] = report.scale.level
        d["scale"] = list(report.scale.labels)
        d["raters"] = list(report.raters)
        d["abstentions"] = abst
        out[crit] = d
    return {
        "criteria": out,
        "seed": seed,
        "n_resamples": n_resamples,
        "bootstrap": "percentile" + (", clustered by case" if clusters else ", by item"),
    }
