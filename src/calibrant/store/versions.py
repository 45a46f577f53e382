"""A judge version as listings show it (`calibrant judges list`, GET /api/judges): its hash,
model, rubric, and its latest finished calibration and probe run in the store."""

from __future__ import annotations

from typing import Any

from ..contracts import JudgeConfig, Rubric
from .runs import RunInfo, Runs

__all__ = ["judge_entry", "latest_calibrate_run", "latest_calibration", "latest_probe"]


def latest_calibrate_run(
    runs: Runs, judge_hash: str, rubric_hash: str
) -> tuple[RunInfo, dict[str, Any]] | None:
    """The latest finished calibration of this judge version on this rubric (its run and
    report): the one place "latest calibration" is looked up (`score --calibration latest`, the
    warning of a batch scored without one, the judges' listings)."""
    return runs.latest("calibrate", judge_hash=judge_hash, rubric_hash=rubric_hash)


def latest_calibration(runs: Runs, config: JudgeConfig, rubric: Rubric) -> dict[str, Any] | None:
    """The latest finished calibration of this judge version on this rubric, in brief (run id,
    when, split, items, gate), or None when it was never calibrated."""
    found = latest_calibrate_run(runs, config.hash, rubric.content_hash)
    if found is None:
        return None
    info, report = found
    return {
        "run_id": info.id,
        "finished_at": info.finished_at.isoformat() if info.finished_at else None,
        "split": report.get("split"),
        "n_items": report.get("n_items"),
        "gate": (report.get("gate") or {}).get("judge"),
    }


def latest_probe(runs: Runs, config: JudgeConfig, rubric: Rubric) -> dict[str, Any] | None:
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
    highest = None
    for family, channels in defended.items():
        for channel, row in channels.items():
            rate = row.get("attack_success_rate") or {}
            if rate.get("value") is None:
                continue
            if highest is None or rate["value"] > highest["rate"]["value"]:
                highest = {"family": family, "channel": channel, "rate": rate}
    return {
        "run_id": info.id,
        "finished_at": info.finished_at.isoformat() if info.finished_at else None,
        "split": (report.get("gold") or {}).get("split"),
        "injection_gate": (inj.get("gate") or {}).get("status"),
        "highest_attack_success": highest,
        "flags": report.get("flags", []),
    }


def judge_entry(name: str, config: JudgeConfig, rubric: Rubric, runs: Runs) -> dict[str, Any]:
    """One judge version for a listing: name, version hash, model, rubric, latest calibration and
    latest probe run."""
    return {
        "name": name,
        "hash": config.hash,
        "model": config.model,
        "rubric": {"id": rubric.rubric_id, "version": rubric.version, "hash": rubric.content_hash},
        "latest_calibration": latest_calibration(runs, config, rubric),
        "latest_probe": latest_probe(runs, config, rubric),
    }
