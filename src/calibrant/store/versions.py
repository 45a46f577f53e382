"""A judge version as listings show it (`calibrant judges list`, GET /api/judges): its hash,
model, rubric, and its latest finished calibration in the store."""

from __future__ import annotations

from typing import Any

from ..contracts import JudgeConfig, Rubric
from .runs import Runs

__all__ = ["judge_entry", "latest_calibration"]


def latest_calibration(runs: Runs, config: JudgeConfig, rubric: Rubric) -> dict[str, Any] | None:
    """The latest finished calibration of this judge version on this rubric, in brief (run id,
    when, split, items, gate), or None when it was never calibrated."""
    found = runs.latest("calibrate", judge_hash=config.hash, rubric_hash=rubric.content_hash)
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


def judge_entry(name: str, config: JudgeConfig, rubric: Rubric, runs: Runs) -> dict[str, Any]:
    """One judge version for a listing: name, version hash, model, rubric, latest calibration."""
    return {
        "name": name,
        "hash": config.hash,
        "model": config.model,
        "rubric": {"id": rubric.rubric_id, "version": rubric.version, "hash": rubric.content_hash},
        "latest_calibration": latest_calibration(runs, config, rubric),
    }
