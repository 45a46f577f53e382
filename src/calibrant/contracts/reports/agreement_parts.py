"""The agreement library's results as report parts, beside those in `stats`: the report of
`calibrant agree` (the raters' agreement among themselves: per criterion, every pair of raters
and the all-rater statistics), a question's family-wise decision, and a judge's abstentions.
Their JSON is what `calibrant.agreement` wrote before these models existed, byte for byte."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from .base import JsonScalar, Report, Strict, version_field

AGREEMENT_SCHEMA_VERSION = 1
"""`calibrant agree --json`: 1 since it carries a `schema_version` (output written before has
none and reads as 1: the same shape)."""

__all__ = [
    "AGREEMENT_SCHEMA_VERSION",
    "Familywise",
    "RaterPair",
    "PairwiseCriterion",
    "RaterApplicability",
    "AgreeCriterion",
    "AgreeReport",
    "Abstention",
]

RaterName = str | int
"""A rater (or a label of a scale) as the label files gave it: a string or an integer."""


class Familywise(Strict):
    """One question's family-wise decision (Holm's step-down), as a figure quotes it."""

    familywise_confidence: float | None = Field(
        description="The Holm level of the interval that decided it, or the last level tried "
        "(null: never tested: too few cases, or no interval)."
    )
    familywise_ci: list[float] | None = Field(description="That interval; null: undefined.")


class RaterPair(Strict):
    """Two raters on the items both rated: Cohen's kappa with its interval, the linear-weighted
    kappa with its own (ordinal scales), and why any of them is undefined (null). The intervals
    are named by their level: `ci95` and `weighted_kappa_ci95` at 95% (what `calibrant agree`
    writes); another level's (e.g. `ci90`) are further keys of the same shape."""

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, list[float] | None] = Field(init=False)

    raters: list[RaterName] = Field(min_length=2, max_length=2)
    n: int = Field(description="Items both raters rated.")
    cohen_kappa: float | None
    weighted_kappa: float | None = Field(description="Linear-weighted; null on a nominal scale.")
    ci95: list[float] | None = Field(default=None, description="Cohen's kappa's 95% interval.")
    weighted_kappa_ci95: list[float] | None = Field(
        default=None,
        description="The weighted kappa's own 95% interval (null on a nominal scale).",
    )
    why_undefined: dict[str, str] = Field(description="Key of an undefined value -> why.")


class PairwiseCriterion(Strict):
    """Agreement on one criterion: every pair of raters, and Fleiss' kappa and Krippendorff's
    alpha over all of them."""

    n_items: int
    fleiss_kappa: float | None
    krippendorff_alpha: float | None
    pairs: list[RaterPair]
    why_undefined: dict[str, str] = Field(description="Key of an undefined value -> why.")


class RaterApplicability(Strict):
    """not_applicable outside an ordinal scale's levels: items each rater put there, and the
    raters' agreement on applicability (applies / not_applicable)."""

    n_items_by_rater: dict[str, int]
    agreement_on_applicability: PairwiseCriterion


class AgreeCriterion(PairwiseCriterion):
    """One criterion of `calibrant agree`: its scale, its raters and their abstentions."""

    level: Literal["nominal", "ordinal"]
    scale: list[RaterName] = Field(description="The labels, lowest first on an ordinal scale.")
    raters: list[RaterName]
    abstentions: dict[str, int] = Field(description="Rater -> cant_tell labels (left out).")
    not_applicable: RaterApplicability | None = None


class AgreeReport(Report):
    """`calibrant agree`: the raters' agreement among themselves (no judge), per criterion."""

    KIND = "agreement"
    VERSION = AGREEMENT_SCHEMA_VERSION

    schema_version: int = version_field(AGREEMENT_SCHEMA_VERSION)
    criteria: dict[str, AgreeCriterion]
    seed: int
    n_resamples: int
    bootstrap: str = Field(description="How the intervals were made.")


class Abstention(Strict):
    """A judge that may abstain against a reference rater: coverage, agreement on the items
    neither abstained on, and agreement with abstention as one more category (null:
    undefined)."""

    n_items: int
    n_covered: int
    coverage: float | None
    judge_coverage: float | None
    reference_coverage: float | None
    covered_percent_agreement: float | None
    covered_kappa: float | None
    covered_weighted_kappa: float | None
    covered_ac1: float | None
    with_abstention_percent_agreement: float | None
    with_abstention_kappa: float | None
    labels_with_abstention: list[JsonScalar]
    confusion_with_abstention: list[list[int]]
