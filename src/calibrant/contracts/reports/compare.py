"""The comparison reports: `compare` (judge B against judge A on the same gold items) and
`compare-trials` (agent run B against run A, trial by trial over the same cases)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .base import ModelRef, Report, RubricRef, Strict, version_field

COMPARISON_SCHEMA_VERSION = 2  # 2: decisions over whole cases, family-wise
TRIALS_SCHEMA_VERSION = 2  # 2: decisions over whole cases, family-wise


class McNemar(Strict):
    a_only_right: int
    b_only_right: int
    p_value: float | None


class Flip(Strict):
    item: str
    case: str
    consensus: str | int | None
    a: str | int | None
    b: str | int | None
    direction: Literal["regression", "improvement"]
    rationale_a: str | None
    rationale_b: str | None


class ComparisonCriterion(Strict):
    criterion: str
    scale: str
    statistic: str
    n: int
    n_cases: int | None = None
    kappa_a: float | None
    kappa_b: float | None
    difference: float | None
    ci95: list[float] | None
    familywise_confidence: float | None = None
    familywise_ci: list[float] | None = None
    mcnemar: McNemar
    decision: str
    cases_needed: int | None = None
    more_items_to_settle: int | None = None  # schema 1
    reason: str | None
    unusable: dict[str, dict[str, int]]
    flips: list[Flip]


class ComparisonGold(Strict):
    split: str
    items: int
    cases: int | None = None


class ComparisonReport(Report):
    """`compare`'s report: judge B against judge A on the same gold items, per criterion the
    paired difference of agreement with the consensus and the decision."""

    KIND = "comparison"
    VERSION = COMPARISON_SCHEMA_VERSION

    schema_version: int = version_field(COMPARISON_SCHEMA_VERSION)
    rubric: RubricRef = Field(description="The rubric both judges judged on.")
    gold: ComparisonGold = Field(description="The gold items compared on.")
    judges: dict[Literal["a", "b"], ModelRef] = Field(description="Judge A and judge B.")
    interval: str = Field(description="How the intervals were computed.")
    decision_rule: str = Field(description="When B is called better or worse.")
    alpha: float | None = Field(default=None, description="Family-wise error (schema 2).")
    min_cases: int | None = Field(default=None, description="Cases needed to decide (schema 2).")
    overall: str = Field(description="The overall call: B better, B worse, mixed or undecided.")
    criteria: list[ComparisonCriterion] = Field(description="Per criterion: figures, decision.")
    run_id: str | None = Field(default=None, description="The run in the store (when recorded).")


class TrialFigure(Strict):
    a: float | None
    b: float | None
    difference: float | None
    n: int
    n_cases: int | None = None
    unit: str
    higher_is_better: bool
    ci95: list[float] | None
    familywise_confidence: float | None = None
    familywise_ci: list[float] | None = None
    b_is: Literal["better", "worse", "undecided"]
    cases_needed: int | None = None
    reason: str | None = None
    undefined_reason: str | None = None


class CaseChange(Strict):
    case: str
    trials: int
    successes_a: int
    successes_b: int
    change: Literal["regressed", "improved", "same"]
    b_transcripts_newly_violating: list[str] = Field(default_factory=list)


class Sides(Strict):
    a: list[str]
    b: list[str]


class TrialsReport(Report):
    """`compare-trials`' report: agent run B against run A, trial by trial over the same cases."""

    KIND = "trials"
    VERSION = TRIALS_SCHEMA_VERSION

    schema_version: int = version_field(TRIALS_SCHEMA_VERSION)
    paired_trials: int = Field(description="Trials of A and B paired by case and trial.")
    cases: int = Field(description="Cases with paired trials.")
    unpaired: Sides = Field(description="Trials of one run without a partner in the other.")
    interval: str = Field(description="How the intervals were computed.")
    decision_rule: str | None = None
    alpha: float | None = None
    min_cases: int | None = None
    figures: dict[str, TrialFigure] = Field(description="Each figure for A, B and B - A.")
    b_worse_on: list[str] | None = None
    regressed_cases: list[str] = Field(description="Cases where B succeeded less often.")
    by_case: list[CaseChange] = Field(description="Per case, regressions first.")
    runs: dict[Literal["a", "b"], str] | None = None
    run_id: str | None = None
