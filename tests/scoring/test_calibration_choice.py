"""Which calibration corrects a batch: one library choice for `score`, its queue workers and the
service's score job. Nothing corrects unless a calibration is named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from calibrant.contracts import JudgeConfig
from calibrant.errors import CalibrantError
from calibrant.scoring.calibration_choice import choose_calibration, latest_hint
from calibrant.store import make_engine
from calibrant.store.runs import Runs

CFG = JudgeConfig(model="openai/m", prompt_template_version="v", rubric_hash="sha256:r")
OTHER = JudgeConfig(model="openai/other", prompt_template_version="v", rubric_hash="sha256:r")


def _report(config: JudgeConfig, n: int) -> dict[str, object]:
    return {
        "judge": {"hash": config.hash, "model": config.model},
        "rubric": {"hash": config.rubric_hash},
        "split": "heldout",
        "n_items": n,
        "created_at": "2026-12-01T00:00:00+00:00",
        "criteria": [
            {"criterion": "c", "pass_fail_by_case": [{"case": "a"}, {"case": "b"}]},
        ],
    }


def _calibrated(runs: Runs, config: JudgeConfig, n: int) -> str:
    run = runs.start("calibrate", judge=config)
    runs.finish(run, _report(config, n))
    return run


def test_no_choice_means_no_correction_and_latest_means_this_versions_latest(
    tmp_path: Path,
) -> None:
    runs = Runs(make_engine(f"sqlite:///{tmp_path / 'store.db'}"))
    assert latest_hint(runs, CFG) is None
    with pytest.raises(CalibrantError, match="no finished calibration of this judge version"):
        choose_calibration("latest", runs=runs, config=CFG)
    first = _calibrated(runs, CFG, 10)
    second = _calibrated(runs, CFG, 12)
    _calibrated(runs, OTHER, 99)  # another judge version's, later still
    assert choose_calibration(None, runs=runs, config=CFG) is None
    assert latest_hint(runs, CFG) == second
    latest = choose_calibration("latest", runs=runs, config=CFG)
    assert latest is not None and latest.run_id == second
    assert latest.describe().n_items == 12 and latest.describe().n_cases == 2
    assert latest.source == f"store: calibrate run {second}"
    by_prefix = choose_calibration(first[:8], runs=runs, config=CFG)
    assert by_prefix is not None and by_prefix.run_id == first
    # a run of another judge version is refused, by id as by file
    other = latest_hint(runs, OTHER)
    with pytest.raises(CalibrantError, match="calibrate this judge version first"):
        choose_calibration(other, runs=runs, config=CFG)


def test_a_file_is_a_choice_on_the_command_line_not_on_the_service(tmp_path: Path) -> None:
    runs = Runs(make_engine(f"sqlite:///{tmp_path / 'store.db'}"))
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(_report(CFG, 7)))
    chosen = choose_calibration(str(path), runs=runs, config=CFG)
    assert chosen is not None and chosen.file == str(path.resolve()) and chosen.run_id is None
    assert chosen.source == f"file {path}" and chosen.describe().n_items == 7
    with pytest.raises(CalibrantError, match=r"calibration_run .*: no finished calibrate run"):
        choose_calibration(str(path), runs=runs, config=CFG, files=False)
    with pytest.raises(CalibrantError, match="no such file and no finished calibrate run"):
        choose_calibration(str(tmp_path / "missing.json"), runs=runs, config=CFG)
