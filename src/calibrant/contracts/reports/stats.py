"""The statistics several reports quote from the agreement library, as models: a bootstrap
estimate with its interval (and, when either is not a number, why), a proportion figure, the
judge-against-experts comparison the gate decides on, the gate's decision, a label's rates, and
applicability beside quality. Their JSON is what `calibrant.agreement` writes (`to_dict`,
`as_json`): reports written before these models existed load unchanged."""

from __future__ import annotations

from pydantic import Field

from .base import GateStatus, Strict

__all__ = [
    "Estimate",
    "RaterEstimate",
    "PairEstimate",
    "GateComparison",
    "CriterionGate",
    "PerLabel",
    "Applicability",
    "Label",
]

Label = str | int | None
"""A label as a rater gave it (a level of the scale), or none."""


class Estimate(Strict):
    """A statistic from the bootstrap: its estimate and interval, each None when it is not a
    number, with the reason beside it (never a number standing for "undefined")."""

    statistic: str = Field(description="cohen_kappa, weighted_kappa_linear, percent_agreement...")
    estimate: float | None = Field(description="The point estimate; null: undefined (see why).")
    estimate_undefined_reason: str | None = Field(description="Why the estimate is undefined.")
    ci: list[float] | None = Field(description="The interval [low, high]; null: undefined.")
    ci_undefined_reason: str | None = Field(description="Why the interval is undefined.")
    confidence: float = Field(description="The interval's level, e.g. 0.95.")
    n: int = Field(description="Items used (for two raters: rated by both).")
    n_clusters: int | None = Field(description="Cases resampled; null: items were resampled.")
    n_resamples: int
    n_dropped: int = Field(description="Resamples on which the statistic was undefined.")
    seed: int
    method: str = Field(description="How the interval was made.")
    band: str | None = Field(
        default=None,
        description="The Landis-Koch band when the whole interval lies in one (null: it "
        "straddles a boundary or is undefined).",
    )
    explanation: str | None = Field(
        default=None, description="When undefined: whose labels made it so, in words."
    )

    @property
    def defined(self) -> bool:
        return self.estimate is not None


class RaterEstimate(Estimate):
    """The judge against one expert's own labels."""

    rater: str


class PairEstimate(Estimate):
    """Two experts against each other."""

    raters: list[str] = Field(min_length=2, max_length=2)


class GateComparison(Strict):
    """The judge side (the mean of its statistic with each expert), the expert side (the mean
    over expert pairs) and their difference D, from one bootstrap over cases."""

    statistic: str
    judge_side: Estimate
    expert_side: Estimate
    difference: Estimate = Field(description="D = judge side - expert side.")
    n_items: int
    n_cases: int | None
    n_expert_items: int
    n_expert_cases: int | None
    n_experts: int
    confidence: float | None = None
    margin: float | None = None
    note: str | None = None


class CriterionGate(Strict):
    """The release gate's decision on one criterion, with what it was decided on."""

    status: GateStatus
    reasons: list[str]
    n: int | None = None
    n_cases: int | None = None
    n_expert_cases: int | None = None
    min_items: int | None = None
    min_cases: int | None = None
    min_expert_cases: int | None = None
    margin: float | None = None
    difference_lower_bound: float | None = None
    difference_upper_bound: float | None = None
    # applicability (applies / not_applicable) gated beside quality; absent in older reports
    applicability_checked: bool | None = None
    applicability_n_cases: int | None = None
    applicability_difference_lower_bound: float | None = None
    applicability_difference_upper_bound: float | None = None
    rule: str | None = None
    run_to_run: str | None = None  # the judge's run-to-run noise on this criterion, in words
    ceiling_margin: float | None = None  # version 1's gate: the experts' kappa minus this


class PerLabel(Strict):
    """One label against the rest, the consensus as truth."""

    label: str
    sensitivity: Estimate
    specificity: Estimate
    always_agreement: Estimate = Field(
        description="The percent agreement of a judge that always gives this label."
    )


class Applicability(Strict):
    """`not_applicable` as its own category: how many items each side put there, and the
    judge's agreement on applicability (applies / not applicable) with the consensus."""

    when: str = Field(description="When the rubric allows not_applicable.")
    outside_scale: bool
    judge_vs_experts: GateComparison
    n_items: dict[str, int] = Field(description="Items each side called not applicable.")
    agreement_on_applicability: Estimate
    percent_agreement_on_applicability: Estimate
