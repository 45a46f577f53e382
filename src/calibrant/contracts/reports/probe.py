"""The probe report (`probe`, the judge's robustness) and the stability report (`stability`,
the judge's agreement with itself)."""

from __future__ import annotations

from .base import Json, Report, RubricRef, Strict, version_field

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


class ProbeReport(Report):
    """`probe`'s report: the judge's robustness (injection, verbosity, order, stability, central
    tendency), each probe's figures as the probe measures them, and the flags raised."""

    KIND = "probe"
    VERSION = PROBE_SCHEMA_VERSION

    schema_version: int = version_field(PROBE_SCHEMA_VERSION)
    judge: ProbedJudge
    rubric: RubricRef
    gold: ProbeGold
    settings: Json
    judge_outcomes: dict[str, int]
    judgments: int
    probes: dict[str, Json]
    flags: list[str]
    from_cache: int | None = None
    run_id: str | None = None


class StabilityJudge(Strict):
    model: str
    hash: str
    temperature: float | None


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
    criteria: list[Json]
    run_id: str | None = None
