"""The sections of the calibration report beside its criteria: how the judge was run (or the
recorded verdicts it was read from), the experts against each other and the consensus, the
judge's robustness (its latest probe run) and its run-to-run noise (its latest stability run)."""

from __future__ import annotations

from pydantic import Field

from .base import Figure, GateStatus, RecordedVerdicts, Strict
from .stats import Estimate

__all__ = [
    "FailureKind",
    "CalibrationRun",
    "ConsensusFollowed",
    "ExpertsCriterion",
    "ExpertsSection",
    "AttackGateOut",
    "AttackRow",
    "RunRef",
    "RobustnessSection",
    "StabilityRunRef",
    "RunToRunCriterion",
    "RunToRunSection",
]


class FailureKind(Strict):
    count: int
    sample: str | None


class CalibrationRun(Strict):
    """How the judge was run: calls made, tokens, cost, failures (or the verdicts file)."""

    from_cache: int | None = None
    model_calls: int | None = None
    latency_ms_total: int | float | None = None
    input_tokens: int | None = None
    cached_tokens: int | None = None
    output_tokens: int | None = None
    failures: dict[str, FailureKind] | None = None
    cost_usd: float | None = None
    recorded: RecordedVerdicts | None = None


class ConsensusFollowed(Strict):
    """Whom the consensus followed where two experts disagree, and whether it is close to one."""

    experts: list[str]
    n_shared: int | None = Field(
        default=None, description="Labels both experts gave (null: not recorded, older reports)."
    )
    n_disagreements: int
    followed: dict[str, int] = Field(description="Expert (or neither) -> disagreements followed.")
    closest: str | None
    closest_share: Figure
    close_to_one_expert: bool | None = Field(description="null: too few disagreements to tell.")
    explanation: str | None = None  # the overall rows of the first experts section had none


class ExpertsCriterion(Strict):
    criterion: str
    statistic: str
    judge_vs: dict[str, Estimate] = Field(description="Expert (or consensus) -> the judge's κ.")
    consensus_followed: list[ConsensusFollowed]


class ExpertsSection(Strict):
    raters: list[str]
    close_share: float
    min_disagreements: int
    note: str
    criteria: list[ExpertsCriterion]
    overall: list[ConsensusFollowed]


class AttackFigure(Strict):
    """An attack gate's difference (success rate - clean false-positive rate), over cases."""

    value: float | None
    n: int
    n_cases: int | None
    ci95: list[float] | None
    undefined_reason: str | None
    familywise_confidence: float | None = None
    familywise_ci: list[float] | None = None


class AttackGateOut(Strict):
    status: GateStatus
    reason: str
    difference: AttackFigure | None = None


class AttackRow(Strict):
    attack_success_rate: Figure
    gate: AttackGateOut


class RunRef(Strict):
    id: str
    finished_at: str | None
    who: str | None = None


class RobustnessSection(Strict):
    """The judge's latest probe run on this rubric, and its injection gate decided again."""

    probe_run: RunRef | None
    required: bool
    status: GateStatus | None
    note: str | None
    margin: float | None = None
    rule: str | None = None
    clean_false_positive_rate: Figure | None = None
    families: dict[str, dict[str, AttackRow]] = Field(description="Family -> channel -> row.")
    flags: list[str]


class StabilityRunRef(Strict):
    id: str
    finished_at: str | None
    samples: int | None
    items: int | None
    min_self_agreement: float | None


class RunToRunCriterion(Strict):
    self_agreement: Estimate
    items_with_differing_samples: Figure
    flag: str


class RunToRunSection(Strict):
    """The judge's run-to-run noise, from its latest stability run on this rubric."""

    measured: bool
    temperature: float
    stability_run: StabilityRunRef | None
    criteria: dict[str, RunToRunCriterion]
    note: str
