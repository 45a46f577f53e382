"""Per-criterion agreement report from long-format ``(item, rater, label)`` rows.

:func:`pairwise_report` gives, for one criterion, every rater pair's n, Cohen's kappa,
linear-weighted kappa (ordinal scales only) and a bootstrap CI of Cohen's kappa, plus Fleiss'
kappa and Krippendorff's alpha over all raters. ``CriterionReport.as_criterion()`` is one
criterion of ``calibrant agree``'s report (its JSON: ``None`` for undefined).
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from calibrant.agreement.bootstrap import bootstrap_pairwise
from calibrant.agreement.encode import MISSING, Level, Scale, long_to_matrix
from calibrant.agreement.multirater import fleiss_kappa, krippendorff_alpha
from calibrant.agreement.pairwise import cohen_kappa
from calibrant.agreement.resample import BootstrapResult
from calibrant.agreement.undefined import Undefined, or_none
from calibrant.contracts.reports.agreement_parts import PairwiseCriterion, RaterPair

__all__ = ["CriterionReport", "PairReport", "ci_key", "pairwise_report"]


def ci_key(confidence: float) -> str:
    """JSON key for an interval at ``confidence``: ``0.95 -> "ci95"``, ``0.9 -> "ci90"``."""
    return f"ci{confidence * 100:g}"


@dataclass(frozen=True, slots=True)
class PairReport:
    """Agreement of one pair of raters on the items both of them rated (``n``).

    ``bootstrap`` holds the CI of ``cohen_kappa`` with its seed, resample count and drops.
    ``weighted_kappa`` is linear-weighted, and :class:`Undefined` on a nominal scale;
    ``weighted_bootstrap`` is its own interval (same seed and resamples), ``None`` on a
    nominal scale.
    """

    raters: tuple[Hashable, Hashable]
    n: int
    cohen_kappa: float | Undefined
    weighted_kappa: float | Undefined
    bootstrap: BootstrapResult
    weighted_bootstrap: BootstrapResult | None = None

    def as_pair(self) -> RaterPair:
        """The report part: ``raters``, ``n``, ``cohen_kappa``, ``weighted_kappa``, ``ci95``
        (``cohen_kappa``'s interval, named by its level: ``ci90`` at 90%),
        ``weighted_kappa_ci95`` (``weighted_kappa``'s) and ``why_undefined``: None for an
        undefined value, and its reason under ``why_undefined[key]``."""
        ci = self.bootstrap.ci
        key = ci_key(self.bootstrap.confidence)
        values = {"cohen_kappa": self.cohen_kappa, "weighted_kappa": self.weighted_kappa, key: ci}
        wkey = f"weighted_kappa_{key}"
        wci: list[float] | None = None
        if self.weighted_bootstrap is not None:
            w = self.weighted_bootstrap.ci
            if isinstance(self.weighted_kappa, Undefined):
                w = Undefined(f"the estimate is undefined: {self.weighted_kappa.reason}")
            values[wkey] = w
            wci = None if isinstance(w, Undefined) else list(w)
        return RaterPair.model_validate(
            {
                wkey: wci,
                "raters": [self.raters[0], self.raters[1]],
                "n": self.n,
                "cohen_kappa": or_none(self.cohen_kappa),
                "weighted_kappa": or_none(self.weighted_kappa),
                key: None if isinstance(ci, Undefined) else list(ci),
                "why_undefined": _reasons(values),
            }
        )


@dataclass(frozen=True, slots=True)
class CriterionReport:
    """Agreement on one criterion: all-rater statistics and one :class:`PairReport` per pair."""

    scale: Scale
    raters: tuple[Hashable, ...]
    n_items: int
    fleiss_kappa: float | Undefined
    krippendorff_alpha: float | Undefined
    pairs: tuple[PairReport, ...]

    def as_criterion(self) -> PairwiseCriterion:
        """The report part of one criterion (``n_items``, ``fleiss_kappa``, ...)."""
        values = {"fleiss_kappa": self.fleiss_kappa, "krippendorff_alpha": self.krippendorff_alpha}
        return PairwiseCriterion(
            n_items=self.n_items,
            fleiss_kappa=or_none(self.fleiss_kappa),
            krippendorff_alpha=or_none(self.krippendorff_alpha),
            pairs=[pair.as_pair() for pair in self.pairs],
            why_undefined=_reasons(values),
        )


def _reasons(values: Mapping[str, object]) -> dict[str, str]:
    """``{key: reason}`` for every :class:`Undefined` value."""
    return {k: v.reason for k, v in values.items() if isinstance(v, Undefined)}


def _who(name: Hashable, codes: np.ndarray, scale: Scale, on: np.ndarray) -> str:
    """What rater ``name`` gave on the items ``on``: nothing, or one label only."""
    used = sorted({int(c) for c in codes[on] if c != MISSING})
    if not on.any() or not used:
        return f"{name} gave no usable label on them"
    if len(used) == 1:
        return f"{name} used only '{scale.labels[used[0]]}'"
    return f"{name} used {len(used)} labels"


def _named(
    value: float | Undefined,
    names: tuple[Hashable, Hashable],
    x: np.ndarray,
    y: np.ndarray,
    scale: Scale,
) -> float | Undefined:
    """The same :class:`Undefined`, its reason now naming whose labels made it so."""
    if not isinstance(value, Undefined):
        return value
    a, b = names
    both = (x != MISSING) & (y != MISSING)
    n = int(both.sum())
    if n == 0:
        missing = [str(r) for r, c in ((a, x), (b, y)) if not (c != MISSING).any()]
        who = (
            f"{' and '.join(missing)} gave no usable label"
            if missing
            else f"{a} and {b} labelled different items"
        )
        return Undefined(f"no item rated by both {a} and {b} ({who})")
    if n < 2:
        return Undefined(f"only {n} item rated by both {a} and {b}: {value.reason}")
    detail = f"{_who(a, x, scale, both)} and {_who(b, y, scale, both)} on the {n} shared items"
    return Undefined(f"{value.reason} ({detail})")


def _named_all(
    value: float | Undefined, raters: Sequence[Hashable], matrix: np.ndarray, scale: Scale
) -> float | Undefined:
    """The same :class:`Undefined`, saying which label filled the items with 2+ ratings."""
    if not isinstance(value, Undefined):
        return value
    pairable = (matrix != MISSING).sum(axis=0) >= 2
    seen = matrix[:, pairable]
    seen = seen[seen != MISSING]
    if seen.size and np.unique(seen).size == 1:
        return Undefined(
            f"{value.reason} (on the {int(pairable.sum())} item(s) rated by two or more of the "
            f"{len(list(raters))} raters, every rating is '{scale.labels[int(seen[0])]}')"
        )
    return value


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
            weighted_boot = (
                bootstrap_pairwise(
                    x,
                    y,
                    k=sc.k,
                    seed=seed,
                    statistic="weighted_kappa_linear",
                    n_resamples=n_resamples,
                    confidence=confidence,
                    clusters=None if cluster_ids is None else np.asarray(cluster_ids, dtype=object),
                )
                if sc.level == "ordinal"
                else None
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
                    cohen_kappa=_named(boot.estimate, (raters[i], raters[j]), x, y, sc),
                    weighted_kappa=_named(weighted, (raters[i], raters[j]), x, y, sc)
                    if sc.level == "ordinal"
                    else weighted,
                    bootstrap=boot
                    if not isinstance(boot.estimate, Undefined)
                    else replace(
                        boot,
                        ci=Undefined(
                            "the estimate is undefined: "
                            + _named(boot.estimate, (raters[i], raters[j]), x, y, sc).reason  # type: ignore[union-attr]
                        ),
                    ),
                    weighted_bootstrap=weighted_boot,
                )
            )
    return CriterionReport(
        scale=sc,
        raters=tuple(raters),
        n_items=len(items),
        fleiss_kappa=_named_all(fleiss_kappa(matrix, k=sc.k), raters, matrix, sc),
        krippendorff_alpha=_named_all(
            krippendorff_alpha(matrix, k=sc.k, level=sc.level), raters, matrix, sc
        ),
        pairs=tuple(pairs),
    )
