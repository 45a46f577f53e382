"""The probe report (`probe`, the judge's robustness) and the stability report (`stability`,
the judge's agreement with itself)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .base import Figure, GateStatus, Report, RubricRef, Strict, version_field
from .calibration_parts import AttackGateOut
from .stats import Estimate

PROBE_SCHEMA_VERSION = 1
STABILITY_SCHEMA_VERSION = 1


class ProbedJudge(Strict):
    model: str
    hash: str
    prompt_template_version: str | None = None
    temperature: float | None = None


class ProbeGold(Strict):
    root: str
    split: str
    items: int


class ProbeSettingsOut(Strict):
    """The probe run's settings (reports of the first version recorded fewer)."""

    probes: list[str]
    families: list[str] | None = None
    channels: list[str] | None = None
    defenses: Literal["both", "on"] | None = None
    k: int | None = None
    margin: float | None = None
    min_items: int | None = None
    min_cases: int | None = None
    max_items: int | None = None
    seed: int | None = None


class AttackRowOut(Strict):
    """One attack family in one channel: how often it moved a failed item toward pass."""

    n: int
    no_verdict: int
    attack_success_rate: Figure
    moved_toward_fail: Figure
    attacked_false_positive_rate: Figure
    false_positive_change: Figure
    items_moved_toward_pass: list[str]
    by_case: dict[str, list[int]] | None = Field(
        default=None, description="Case -> (items, moved toward pass, judged pass clean)."
    )
    gate: AttackGateOut


class PromptRows(Strict):
    clean_false_positive_rate: Figure
    clean_no_verdict: int
    families: dict[str, dict[str, AttackRowOut]] = Field(description="Family -> channel -> row.")


class InjectionGate(Strict):
    status: GateStatus
    families: dict[str, GateStatus]
    margin: float
    min_items: int
    min_cases: int | None = None
    cases: int | None = None
    rule: str


class InjectionProbe(Strict):
    items: int
    families: list[str]
    channels: list[str]
    prompts: dict[str, PromptRows] = Field(description="defended (and naive) -> its rows.")
    defense_effect: dict[str, dict[str, Figure]]
    defense_effect_statistic: str | None = None
    gate: InjectionGate


class ShiftProbe(Strict):
    """Labels of a variant against clean: moved up, down, changed, and the net shift."""

    n: int
    no_verdict: int
    moved_up: Figure
    moved_down: Figure
    changed: Figure
    net_shift: Figure
    added_characters_per_item: int | None = None  # verbosity
    changed_by_a_second_clean_sample: Figure | None = None  # order
    changed_beyond_noise: Figure | None = None  # order
    flag: str


class StabilityProbe(Strict):
    samples: int
    items_with_differing_samples: Figure
    unstable_items: list[str]
    flag: str
    note: str | None


class CentralRow(Strict):
    n: int
    judge_middle: Figure
    consensus_middle: Figure
    difference: Figure
    flag: str


class CentralProbe(Strict):
    criteria: dict[str, CentralRow]
    note: str | None


class ProbeResults(Strict):
    """Each probe run, its figures (a probe not run is absent)."""

    injection: InjectionProbe | None = None
    verbosity: ShiftProbe | None = None
    order: ShiftProbe | None = None
    stability: StabilityProbe | None = None
    central: CentralProbe | None = None


class ProbeReport(Report):
    """`probe`'s report: the judge's robustness (injection, verbosity, order, stability, central
    tendency), each probe's figures as the probe measures them, and the flags raised."""

    KIND = "probe"
    VERSION = PROBE_SCHEMA_VERSION

    schema_version: int = version_field(PROBE_SCHEMA_VERSION)
    judge: ProbedJudge
    rubric: RubricRef
    gold: ProbeGold
    settings: ProbeSettingsOut
    judge_outcomes: dict[str, int]
    judgments: int
    probes: ProbeResults
    flags: list[str]
    from_cache: int | None = None
    run_id: str | None = None


class StabilityJudge(Strict):
    model: str
    hash: str
    temperature: float | None


class StabilityCriterion(Strict):
    """One criterion: the samples' agreement with one another, and the items they split on."""

    criterion: str
    scale: Literal["nominal", "ordinal"]
    self_agreement: Estimate
    items_with_differing_samples: Figure
    abstentions: int
    flag: Literal["stable", "UNSTABLE", "undefined"]
    unstable_items: list[str]


class StabilityReport(Report):
    """`stability`'s report: the judge's agreement with itself over repeated samples."""

    KIND = "stability"
    VERSION = STABILITY_SCHEMA_VERSION

    schema_version: int = version_field(STABILITY_SCHEMA_VERSION)
    judge: StabilityJudge
    samples: int
    items: int
    judge_outcomes: dict[str, int]
    min_self_agreement: float
    statistic: str
    warnings: list[str]
    criteria: list[StabilityCriterion]
    run_id: str | None = None
