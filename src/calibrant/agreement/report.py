"""Per-criterion agreement report from long-format ``(item, rater, label)`` rows.

:func:`pairwise_report` gives, for one criterion, every rater pair's n, Cohen's kappa,
linear-weighted kappa (ordinal scales only) and a bootstrap CI of Cohen's kappa, plus Fleiss'
kappa and Krippendorff's alpha over all raters. ``CriterionReport.to_dict()`` has the shape of
one criterion in the CLI's JSON output (plain Python floats, ``None`` for undefined).
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from calibrant.agreement.bootstrap import bootstrap_pairwise
from calibrant.agreement.encode import MISSING, Level, Scale, long_to_matrix
from calibrant.agreement.multirater import fleiss_kappa, krippendorff_alpha
from calibrant.agreement.pairwise import cohen_kappa
from calibrant.agreement.resample import BootstrapResult
from calibrant.agreement.undefined import Undefined, or_none

__all__ = ["CriterionReport", "PairReport", "ci_key", "pairwise_report"]


def ci_key(confidence: float) -> str:
    """JSON key for an interval at ``confidence``: ``0.95 -> "ci95"``, ``0.9 -> "ci90"``."""
    return f"ci{confidence * 100:g}"


@dataclass(frozen=True, slots=True)
class PairReport:
    """Agreement of one pair of raters on the items both of them rated (``n``).

    ``bootstrap`` holds the CI of ``cohen_kappa`` with its seed, resample count and drops.
    ``weighted_kappa`` is linear-weighted, and :class:`Undefined` on a nominal scale.
    """

    raters: tuple[Hashable, Hashable]
    n: int
    cohen_kappa: float | Undefined
    weighted_kappa: float | Undefined
    bootstrap: BootstrapResult

    def to_dict(self) -> dict[str, object]:
        """``{"raters", "n", "cohen_kappa", "weighted_kappa", "ci95"}`` with None if undefined."""
        ci = self.bootstrap.ci
        return {
            "raters": [self.raters[0], self.raters[1]],
            "n": self.n,
            "cohen_kappa": or_none(self.cohen_kappa),
            "weighted_kappa": or_none(self.weighted_kappa),
            ci_key(self.bootstrap.confidence): None if isinstance(ci, Undefined) else list(ci),
        }


@dataclass(frozen=True, slots=True)
class CriterionReport:
    """Agreement on one criterion: all-rater statistics and one :class:`PairReport` per pair."""

    scale: Scale
    raters: tuple[Hashable, ...]
    n_items: int
    fleiss_kappa: float | Undefined
    krippendorff_alpha: float | Undefined
    pairs: tuple[PairReport, ...]

    def to_dict(self) -> dict[str, object]:
        """The CLI's per-criterion JSON object (``n_items``, ``fleiss_kappa``, ...)."""
        return {
            "n_items": self.n_items,
            "fleiss_kappa": or_none(self.fleiss_kappa),
            "krippendorff_alpha": or_none(self.krippendorff_alpha),
            "pairs": [pair.to_dict() for pair in self.pairs],
        }


def _resolve_scale(
    rows: Sequence[Sequence[Hashable]],
    scale: Scale | None,
    level: Level | None,
    missing: Collection[Hashable],
) -> Scale:
    if scale is None:
        return Scale.infer((row[2] for row in rows), level=level or "nominal", missing=missing)
    if level is not None and level != scale.level:
        raise ValueError(f"level={level!r} contradicts the scale's level {scale.level!r}")
    return scale


def pairwise_report(
    rows: Iterable[Sequence[Hashable]],
    *,
    seed: int,
    scale: Scale | None = None,
    level: Level | None = None,
    missing: Collection[Hashable] = (),
    n_resamples: int = 2000,
    confidence: float = 0.95,
    clusters: Mapping[Any, Hashable] | None = None,
) -> CriterionReport:
    """Agreement report for one criterion from ``(item, rater, label)`` rows.

    ``scale`` fixes the categories and their order; without it the scale is inferred
    (:meth:`Scale.infer`) at ``level`` (default nominal). Labels that are ``None``, ``nan`` or in
    ``missing`` (e.g. ``{"can't tell"}``) count as no rating. Every pair of raters (in order of
    first appearance) gets Cohen's kappa, the linear weighted kappa when the scale is ordinal,
    and a percentile bootstrap CI of Cohen's kappa (``seed``, ``n_resamples``, ``confidence``;
    each pair uses the same seed). ``clusters`` maps each item to a cluster (e.g. its case id)
    for a cluster bootstrap. Fleiss' kappa (nominal) and Krippendorff's alpha (at the scale's
    level) use all raters. ``n_items`` is the number of distinct items in ``rows``.
    """
    materialized = [tuple(row) for row in rows]
    sc = _resolve_scale(materialized, scale, level, missing)
    matrix, raters, items = long_to_matrix(materialized, scale=sc, missing=missing)
    cluster_ids: list[Hashable] | None = None
    if clusters is not None:
        absent = [item for item in items if item not in clusters]
        if absent:
            raise ValueError(f"no cluster given for items {absent[:5]!r}")
        cluster_ids = [clusters[item] for item in items]
    pairs: list[PairReport] = []
    for i in range(len(raters)):
        for j in range(i + 1, len(raters)):
            x, y = matrix[i], matrix[j]
            boot = bootstrap_pairwise(
                x,
                y,
                k=sc.k,
                seed=seed,
                statistic="cohen_kappa",
                n_resamples=n_resamples,
                confidence=confidence,
                clusters=None if cluster_ids is None else np.asarray(cluster_ids, dtype=object),
            )
            weighted: float | Undefined = (
                cohen_kappa(x, y, k=sc.k, weights="linear")
                if sc.level == "ordinal"
                else Undefined("weighted kappa is not applicable to a nominal scale")
            )
            pairs.append(
                PairReport(
                    raters=(raters[i], raters[j]),
                    n=int(np.count_nonzero((x != MISSING) & (y != MISSING))),
                    cohen_kappa=boot.estimate,
                    weighted_kappa=weighted,
                    bootstrap=boot,
                )
            )
    return CriterionReport(
        scale=sc,
        raters=tuple(raters),
        n_items=len(items),
        fleiss_kappa=fleiss_kappa(matrix, k=sc.k),
        krippendorff_alpha=krippendorff_alpha(matrix, k=sc.k, level=sc.level),
        pairs=tuple(pairs),
    )
