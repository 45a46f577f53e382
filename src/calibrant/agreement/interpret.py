"""Reading the numbers: Landis-Koch bands, sample-size planning, and judge abstentions."""

from __future__ import annotations

import math
from collections.abc import Collection, Hashable, Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from calibrant.agreement.encode import MISSING, Scale, is_missing
from calibrant.agreement.pairwise import (
    cohen_kappa,
    confusion_matrix,
    gwet_ac1,
    percent_agreement,
)
from calibrant.agreement.resample import BootstrapResult
from calibrant.agreement.undefined import Undefined, or_none
from calibrant.contracts.reports.agreement_parts import Abstention

__all__ = [
    "ABSTAIN_LABEL",
    "AbstentionReport",
    "LANDIS_KOCH_BANDS",
    "abstention_report",
    "items_needed",
    "landis_koch_band",
]

LANDIS_KOCH_BANDS: tuple[tuple[str, float], ...] = (
    ("poor", 0.0),  # value < 0
    ("slight", 0.20),  # 0 <= value <= 0.20
    ("fair", 0.40),  # 0.20 < value <= 0.40
    ("moderate", 0.60),
    ("substantial", 0.80),
    ("almost perfect", 1.0),
)
"""Landis & Koch (1977) bands as ``(name, upper bound)``; see :func:`landis_koch_band`."""

ABSTAIN_LABEL = "<abstain>"
"""Label of the extra category used when abstention is treated as a category of its own."""


def _band_of(value: float) -> str | None:
    if math.isnan(value) or value > 1.0:
        return None
    if value < 0.0:
        return "poor"
    for name, upper in LANDIS_KOCH_BANDS[1:]:
        if value <= upper:
            return name
    return None  # pragma: no cover - unreachable, value <= 1.0 here


def landis_koch_band(
    ci: tuple[float, float] | Undefined | BootstrapResult,
) -> str | None:
    """Landis-Koch band of a kappa-like statistic, given its confidence interval.

    Bands: < 0 "poor", 0-0.20 "slight", (0.20, 0.40] "fair", (0.40, 0.60] "moderate",
    (0.60, 0.80] "substantial", (0.80, 1] "almost perfect" (each upper bound belongs to the
    lower band). The band is returned ONLY when the whole interval lies inside one band;
    when the interval straddles a boundary, or is undefined, the result is ``None``: the data
    do not support a single verbal label.
    """
    interval = ci.ci if isinstance(ci, BootstrapResult) else ci
    if isinstance(interval, Undefined):
        return None
    lo, hi = float(interval[0]), float(interval[1])
    if lo > hi:
        raise ValueError(f"interval lower bound {lo} exceeds upper bound {hi}")
    band = _band_of(lo)
    return band if band is not None and band == _band_of(hi) else None


def items_needed(*, observed_width: float, n: int, target_width: float) -> int | Undefined:
    """Items needed for a CI of ``target_width``, given a CI of ``observed_width`` from ``n`` items.

    Assumes the interval width shrinks like ``1 / sqrt(n)`` with the same underlying agreement
    and label distribution, so ``n_needed = ceil(n * (observed_width / target_width) ** 2)``.
    This is a rough planning figure: it ignores small-sample effects and, for a cluster
    bootstrap, ``n`` must be the number of clusters and the answer is in clusters. It may be
    below ``n`` when the interval is already narrower than the target. Undefined when the
    observed width is 0 (the extrapolation has nothing to scale).
    """
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    if not target_width > 0:
        raise ValueError(f"target_width must be > 0, got {target_width}")
    if not observed_width >= 0 or math.isinf(observed_width):
        raise ValueError(f"observed_width must be a finite number >= 0, got {observed_width}")
    if observed_width == 0:
        return Undefined("observed interval has zero width; 1/sqrt(n) scaling does not apply")
    raw = n * (observed_width / target_width) ** 2
    return max(1, math.ceil(raw - 1e-9 * raw))


@dataclass(frozen=True, slots=True)
class AbstentionReport:
    """Coverage and agreement of a judge that may abstain, against a reference rater.

    ``n_items`` counts items where both sides gave something (a label or an abstention); the
    coverages are fractions of ``n_items``. ``covered_*`` statistics use only the
    ``n_covered`` items where neither side abstained, on the original scale
    (``covered_weighted_kappa`` is linear-weighted, undefined for a nominal scale).
    ``with_abstention_*`` statistics add abstention as one extra nominal category
    (:data:`ABSTAIN_LABEL`, last row/column of ``confusion_with_abstention``).
    """

    n_items: int
    n_covered: int
    coverage: float | Undefined
    judge_coverage: float | Undefined
    reference_coverage: float | Undefined
    covered_percent_agreement: float | Undefined
    covered_kappa: float | Undefined
    covered_weighted_kappa: float | Undefined
    covered_ac1: float | Undefined
    with_abstention_percent_agreement: float | Undefined
    with_abstention_kappa: float | Undefined
    labels_with_abstention: tuple[Hashable, ...]
    confusion_with_abstention: NDArray[np.int64]

    def as_abstention(self) -> Abstention:
        """The report part (null for an undefined value)."""
        return Abstention(
            n_items=self.n_items,
            n_covered=self.n_covered,
            coverage=or_none(self.coverage),
            judge_coverage=or_none(self.judge_coverage),
            reference_coverage=or_none(self.reference_coverage),
            covered_percent_agreement=or_none(self.covered_percent_agreement),
            covered_kappa=or_none(self.covered_kappa),
            covered_weighted_kappa=or_none(self.covered_weighted_kappa),
            covered_ac1=or_none(self.covered_ac1),
            with_abstention_percent_agreement=or_none(self.with_abstention_percent_agreement),
            with_abstention_kappa=or_none(self.with_abstention_kappa),
            labels_with_abstention=list(self.labels_with_abstention),
            confusion_with_abstention=self.confusion_with_abstention.tolist(),
        )


def _fraction(num: int, den: int) -> float | Undefined:
    return num / den if den else Undefined("no item where both sides gave a label")


def abstention_report(
    reference: Iterable[Hashable],
    judge: Iterable[Hashable],
    *,
    scale: Scale,
    abstain: Hashable | Collection[Hashable],
    missing: Collection[Hashable] = (),
) -> AbstentionReport:
    """Coverage and agreement when either side may abstain.

    ``reference`` (e.g. an expert, whose "can't tell" is an abstention) and ``judge`` (whose
    ``insufficient_evidence`` is one) are raw label sequences of equal length. ``abstain`` is
    one abstention label or a collection of them; they must not be on ``scale``. ``None``,
    ``nan`` and labels in ``missing`` mean "no rating" and drop the item entirely. Any other
    label off the scale raises ``ValueError``.
    """
    if isinstance(abstain, str | bytes) or not isinstance(abstain, Collection):
        abstain_set: frozenset[Hashable] = frozenset([abstain])
    else:
        abstain_set = frozenset(abstain)
    if not abstain_set:
        raise ValueError("give at least one abstention label")
    clash = [a for a in abstain_set if a in set(scale.labels)]
    if clash:
        raise ValueError(f"abstention labels {clash!r} are also on the scale")
    ref = list(reference)
    jdg = list(judge)
    if len(ref) != len(jdg):
        raise ValueError(f"reference and judge differ in length: {len(ref)} vs {len(jdg)}")
    k = scale.k
    abstain_code = k

    def encode(values: list[Hashable]) -> NDArray[np.int64]:
        is_abstain = np.array(
            [not is_missing(v, missing) and v in abstain_set for v in values], dtype=bool
        )
        kept = [None if a else v for v, a in zip(values, is_abstain, strict=True)]
        codes = scale.encode(kept, missing=missing)
        codes[is_abstain] = abstain_code
        return codes

    r, j = encode(ref), encode(jdg)
    both = (r != MISSING) & (j != MISSING)
    r, j = r[both], j[both]
    n_items = int(r.size)
    r_ok, j_ok = r != abstain_code, j != abstain_code
    covered = r_ok & j_ok
    rc, jc = r[covered], j[covered]
    weighted: float | Undefined = (
        cohen_kappa(rc, jc, k=k, weights="linear")
        if scale.level == "ordinal"
        else Undefined("weighted kappa is not applicable to a nominal scale")
    )
    return AbstentionReport(
        n_items=n_items,
        n_covered=int(covered.sum()),
        coverage=_fraction(int(covered.sum()), n_items),
        judge_coverage=_fraction(int(j_ok.sum()), n_items),
        reference_coverage=_fraction(int(r_ok.sum()), n_items),
        covered_percent_agreement=percent_agreement(rc, jc, k=k),
        covered_kappa=cohen_kappa(rc, jc, k=k),
        covered_weighted_kappa=weighted,
        covered_ac1=gwet_ac1(rc, jc, k=k),
        with_abstention_percent_agreement=percent_agreement(r, j, k=k + 1),
        with_abstention_kappa=cohen_kappa(r, j, k=k + 1),
        labels_with_abstention=(*scale.labels, ABSTAIN_LABEL),
        confusion_with_abstention=confusion_matrix(r, j, k=k + 1),
    )
