"""The store's listings are typed: a run's listing row and its detail are models, and the report
a run stored comes back as its report model — reports stored by earlier versions too; one this
calibrant cannot read as its model (a newer version) comes back as stored, never lost."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from calibrant.contracts.reports import CalibrationReport, ComparisonReport
from calibrant.store import make_engine
from calibrant.store.runs import RunDetail, RunInfo, Runs
from tests.compare.test_stored_reports import OLD_COMPARE
from tests.contracts.report_samples import calibration


def _runs(tmp_path: Path) -> Runs:
    return Runs(make_engine(f"sqlite:///{tmp_path / 's.db'}"))


def test_a_stored_calibration_comes_back_as_its_model(tmp_path: Path) -> None:
    runs = _runs(tmp_path)
    report = calibration()
    run_id = runs.start("calibrate", process=False)
    runs.finish(run_id, report)
    detail = runs.detail(run_id[:8])
    assert isinstance(detail, RunDetail) and detail.status == "finished"
    assert isinstance(detail.report, CalibrationReport)
    assert detail.report.gate.judge == report["gate"]["judge"]
    # the JSON view is the report as stored, field for field (`runs show --json`, the API)
    shown = runs.detail(run_id)
    assert shown is not None and shown.json_data()["report"] == CalibrationReport.model_validate(
        report
    ).model_dump(mode="json", by_alias=True, exclude_unset=True)
    listed = runs.recent(kind="calibrate")
    assert [type(r) for r in listed] == [RunInfo] and isinstance(listed[0].started_at, datetime)
    assert listed[0].json_data()["id"] == run_id


def test_an_old_comparison_loads_and_a_newer_report_is_kept_as_stored(tmp_path: Path) -> None:
    runs = _runs(tmp_path)
    old = runs.start("compare", process=False)
    runs.finish(old, OLD_COMPARE)
    got = runs.detail(old)
    assert got is not None and isinstance(got.report, ComparisonReport)
    assert got.report.schema_version == 1 and got.report.criteria[0].more_items_to_settle == 52
    newer = {**OLD_COMPARE, "schema_version": 99, "something_new": True}
    later = runs.start("compare", process=False)
    runs.finish(later, newer)
    kept = runs.detail(later)
    assert kept is not None and kept.report == newer
    batch = runs.start("batch", process=False)
    runs.finish(batch, {"provider": "openai", "batch_id": "b1"})
    raw = runs.detail(batch)
    assert raw is not None and raw.report == {"provider": "openai", "batch_id": "b1"}
