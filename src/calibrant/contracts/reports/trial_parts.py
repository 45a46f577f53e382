"""The trial report (`trials`, `sandbox`: an agent's trials over cases, what the run showed) and
the parts the paired comparisons share (`compare`'s figures of one criterion)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .base import Figure, Report, Strict, version_field
from .compare import McNemar

__all__ = [
    "TRIAL_RUN_SCHEMA_VERSION",
    "PairedFigures",
    "PassAtK",
    "TrialCase",
    "TrialProvenance",
    "TrialRunReport",
    "TrialSampling",
]

TRIAL_RUN_SCHEMA_VERSION = 2  # 2: intervals resample cases; pass^k for every k (`pass_k`)


class PairedFigures(Strict):
    """One criterion of two judges against the same reference: each kappa, B - A with its
    interval over cases, McNemar's counts, the family-wise call and why."""

    statistic: str
    n: int
    n_cases: int
    kappa_a: float | None
    kappa_b: float | None
    difference: float | None
    ci95: list[float] | None
    familywise_confidence: float | None
    familywise_ci: list[float] | None
    mcnemar: McNemar
    decision: Literal["B better", "B worse", "undecided"]
    cases_needed: int | None
    reason: str | None


class TrialSampling(Strict):
    """The agent model's sampling settings (all None for a scripted agent)."""

    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    seed: int | None = None


class TrialProvenance(Strict):
    """What ran the trials (the first trial's provenance; every policy version seen). Reports
    of the first version recorded fewer fields."""

    agent: str | None = None
    agent_model: str | None = None
    agent_version: str | None = None
    instructions_hash: str | None = None
    tool_schema_version: str | None = None
    harness_version: str | None = None
    policy_versions: list[str] | None = None
    sampling: TrialSampling | None = None
    seed: int | None = None


class PassAtK(Figure):
    """pass^k over cases at one k."""

    k: int


class TrialCase(Strict):
    """One case: its trials, successes, pass^k for every k, and the invariants violated."""

    case: str
    tags: list[str]
    trials: int
    successes: int
    pass_k: list[float | None] | None = None  # schema 2
    passed_all: bool
    passed_first: bool
    violated: dict[str, int]
    harness_errors: int


class TrialRunReport(Report):
    """The trial report of `trials` and `sandbox`: successes over trials, pass^k, violations,
    unresolved outcomes, latency, tool calls and cost per accepted outcome, every interval
    resampling cases (schema 2; version 1 counted trials)."""

    KIND = "trial-run"
    VERSION = TRIAL_RUN_SCHEMA_VERSION

    schema_version: int = version_field(TRIAL_RUN_SCHEMA_VERSION)
    provenance: TrialProvenance | None
    trials: int
    n_cases: int | None = None
    interval_method: str | None = None
    success_rate: Figure
    pass_k: list[PassAtK] | None = None
    pass_all_k: Figure
    pass_first_trial: Figure
    by_tag: dict[str, Figure]
    permission_violations: Figure
    duplicate_writes: Figure
    unresolved_outcomes: Figure
    harness_incidents: Figure
    latency_ms_mean: Figure
    latency_ms_p95: Figure
    tool_calls_mean: Figure
    cost_usd_per_accepted_outcome: Figure
    violations_by_invariant: dict[str, Figure] | None = None
    cases: list[TrialCase] = Field(description="Per case, by case id.")
