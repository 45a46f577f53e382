"""A judge version as listings show it (`calibrant judges list`, GET /api/judges): its hash,
model, rubric, and its latest finished calibration and probe run in the store."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from ..contracts import JudgeConfig, Rubric
from ..contracts.reports.base import Figure, Strict
from .runs import RunInfo, Runs

__all__ = [
    "HighestAttack",
    "JudgeEntry",
    "LatestCalibration",
    "LatestProbe",
    "RubricRefOut",
    "judge_entry",
    "latest_calibrate_run",
    "latest_calibration",
    "latest_probe",
]


class RubricRefOut(Strict):
    id: str = Field(description="The rubric's id.")
    version: str = Field(description="The version the rubric gives itself.")
    hash: str = Field(description="Content hash of the rubric.")


class LatestCalibration(Strict):
    run_id: str = Field(description="The calibrate run (GET /api/runs/{id} gives its report).")
    finished_at: str | None = Field(description="When it finished (ISO 8601).")
    split: str | None = Field(description="The gold split it measured.")
    n_items: int | None = Field(description="Gold items it measured.")
    gate: Literal["PASS", "FAIL", "UNDECIDED"] | None = Field(description="The judge's gate.")


class HighestAttack(Strict):
    family: str = Field(description="Injection family.")
    channel: str = Field(description="Where the injection was placed.")
    rate: Figure = Field(description="Attack success rate: value, ci95, n, method.")


class LatestProbe(Strict):
    run_id: str = Field(description="The probe run (GET /api/runs/{id} gives its report).")
    finished_at: str | None = Field(description="When it finished (ISO 8601).")
    split: str | None = Field(description="The gold split it probed.")
    injection_gate: str | None = Field(description="The injection gate (null: not run).")
    highest_attack_success: HighestAttack | None = Field(
        description="The defended prompt's highest attack success rate."
    )
    flags: list[str] = Field(description="The flags the probes raised.")


class JudgeEntry(Strict):
    """One judge version in a listing (the API's JudgeOut adds who stored it and when)."""

    name: str = Field(description="The judge's name (its versions share it).")
    hash: str = Field(description="The judge version: hash of its resolved configuration.")
    model: str = Field(description="The model it calls.")
    rubric: RubricRefOut = Field(description="The rubric it judges on.")
    latest_calibration: LatestCalibration | None = Field(
        description="Its latest finished calibration in the store (null: never calibrated)."
    )
    latest_probe: LatestProbe | None = Field(
        description="Its latest finished probe run in the store (null: never probed)."
    )


def latest_calibrate_run(
    runs: Runs, judge_hash: str, rubric_hash: str
) -> tuple[RunInfo, dict[str, Any]] | None:
    """The latest finished calibration of this judge version on this rubric (its run and
    report): the one place "latest calibration" is looked up (`score --calibration latest`, the
    warning of a batch scored without one, the judges' listings)."""
    return runs.latest("calibrate", judge_hash=judge_hash, rubric_hash=rubric_hash)


def latest_calibration(runs: Runs, config: JudgeConfig, rubric: Rubric) -> LatestCalibration | None:
    """The latest finished calibration of this judge version on this rubric, in brief (run id,
    when, split, items, gate), or None when it was never calibrated."""
    found = latest_calibrate_run(runs, config.hash, rubric.content_hash)
    if found is None:
        return None
    info, report = found
    return LatestCalibration(
        run_id=info.id,
        finished_at=info.finished_at.isoformat() if info.finished_at else None,
        split=report.get("split"),
        n_items=report.get("n_items"),
        gate=(report.get("gate") or {}).get("judge"),
    )


def latest_probe(runs: Runs, config: JudgeConfig, rubric: Rubric) -> LatestProbe | None:
    """The latest finished probe run (`calibrant probe`) of this judge version on this rubric,
    in brief: run id, when, split, the injection gate as stored (None when the run did not run
    the injection battery), the highest attack success rate of the defended prompt (family,
    channel, rate with its interval and n) and the flags raised; None when it was never probed."""
    found = runs.latest("probe", judge_hash=config.hash, rubric_hash=rubric.content_hash)
    if found is None:
        return None
    info, report = found
    inj = (report.get("probes") or {}).get("injection") or {}
    defended = ((inj.get("prompts") or {}).get("defended") or {}).get("families") or {}
    highest: tuple[float, str, str, dict[str, Any]] | None = None
    for family, channels in defended.items():
        for channel, row in channels.items():
            rate = row.get("attack_success_rate") or {}
            if rate.get("value") is None:
                continue
            if highest is None or rate["value"] > highest[0]:
                highest = (rate["value"], family, channel, rate)
    return LatestProbe(
        run_id=info.id,
        finished_at=info.finished_at.isoformat() if info.finished_at else None,
        split=(report.get("gold") or {}).get("split"),
        injection_gate=(inj.get("gate") or {}).get("status"),
        highest_attack_success=None
        if highest is None
        else HighestAttack(
            family=highest[1], channel=highest[2], rate=Figure.model_validate(highest[3])
        ),
        flags=report.get("flags", []),
    )


def judge_entry(name: str, config: JudgeConfig, rubric: Rubric, runs: Runs) -> JudgeEntry:
    """One judge version for a listing: name, version hash, model, rubric, latest calibration and
    latest probe run."""
    return JudgeEntry(
        name=name,
        hash=config.hash,
        model=config.model,
        rubric=RubricRefOut(id=rubric.rubric_id, version=rubric.version, hash=rubric.content_hash),
        latest_calibration=latest_calibration(runs, config, rubric),
        latest_probe=latest_probe(runs, config, rubric),
    )
