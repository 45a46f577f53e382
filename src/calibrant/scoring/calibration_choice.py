"""Which calibration corrects a scoring batch: one place for `score`, its queue workers and the
service's score job.

Without a choice, nothing corrects: pass rates are as judged, and the summary says so (naming the
latest calibration of this judge version in the store, if there is one, and how to use it).
A choice is ``latest`` (this judge version's latest finished calibration in the store, on this
rubric), a calibrate run id (or an unambiguous prefix) from the store, or — on the command line —
a calibration report file (`calibrate --json`). Every choice is checked: a calibration of another
judge version or rubric is refused."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..contracts.reports.score import CalibrationUsed
from ..errors import ConfigError
from ..store.versions import latest_calibrate_run

if TYPE_CHECKING:
    from ..contracts import JudgeConfig
    from ..store.runs import Runs

__all__ = [
    "ChosenCalibration",
    "check_calibration",
    "choose_calibration",
    "latest_hint",
    "LATEST",
]

LATEST = "latest"


@dataclass(frozen=True)
class ChosenCalibration:
    """A calibration report and where it came from (a file, or a calibrate run of the store)."""

    report: dict[str, Any]
    source: str  # how the summary names it: "file PATH" or "store: calibrate run ID"
    run_id: str | None = None
    file: str | None = None  # absolute path

    def describe(self) -> CalibrationUsed:
        """The summary's `calibration` entry."""
        cases = {
            row["case"]
            for c in self.report.get("criteria", [])
            for row in (c.get("pass_fail_by_case") or [])
        }
        return CalibrationUsed(
            source=self.source,
            run_id=self.run_id,
            file=self.file,
            split=self.report.get("split"),
            n_items=self.report.get("n_items"),
            n_cases=len(cases) if cases else None,
            created_at=self.report.get("created_at"),
            calibrant_version=self.report.get("calibrant_version"),
        )


def check_calibration(calibration: dict[str, Any], config: JudgeConfig, source: str) -> None:
    """A calibration corrects only the judge version it measured, on the same rubric."""
    judge = calibration.get("judge") or {}
    if judge.get("hash") != config.hash:
        raise ConfigError(
            f"{source}: this calibration measured judge {str(judge.get('hash'))[:19]} "
            f"({judge.get('model')}), not the judge scoring now ({config.hash[:19]}, "
            f"{config.model}); calibrate this judge version first"
        )
    rubric = (calibration.get("rubric") or {}).get("hash")
    if rubric != config.rubric_hash:
        raise ConfigError(f"{source}: the calibration used another rubric ({rubric})")


def choose_calibration(
    choice: str | None, *, runs: Runs, config: JudgeConfig, files: bool = True
) -> ChosenCalibration | None:
    """The calibration `choice` names (None: no correction); see the module docstring.
    `files`: whether a file path is a valid choice (on the command line, not on the service)."""
    option = "--calibration" if files else "calibration_run"
    if choice is None:
        return None
    if choice == LATEST:
        found = latest_calibrate_run(runs, config.hash, config.rubric_hash)
        if found is None:
            raise ConfigError(
                f"{option} latest: the store holds no finished calibration of this judge "
                f"version ({config.hash[:19]}) on this rubric; run `calibrant calibrate` first"
            )
        info, report = found
        chosen = ChosenCalibration(report, f"store: calibrate run {info.id}", info.id)
    elif files and Path(choice).is_file():
        from ..files import load_json_document

        path = Path(choice)
        chosen = ChosenCalibration(
            load_json_document(path, "calibration report"),
            f"file {choice}",
            file=str(path.resolve()),
        )
    else:
        found_run = runs.detail(choice)
        stored = None if found_run is None or found_run.kind != "calibrate" else found_run.report
        if found_run is None or stored is None:
            what = "no such file and no" if files else "no"
            raise ConfigError(
                f"{option} {choice}: {what} finished calibrate run '{choice}' in the store "
                "(`calibrant runs list` lists them; `latest` takes this judge version's latest)"
            )
        report = stored if isinstance(stored, dict) else stored.json_data()
        chosen = ChosenCalibration(report, f"store: calibrate run {found_run.id}", found_run.id)
    check_calibration(chosen.report, config, chosen.source)
    return chosen


def latest_hint(runs: Runs, config: JudgeConfig) -> str | None:
    """The latest calibrate run of this judge version in the store, for the warning of a batch
    scored without a calibration (None when there is none)."""
    found = latest_calibrate_run(runs, config.hash, config.rubric_hash)
    return None if found is None else found[0].id
