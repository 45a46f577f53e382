"""The report models describe what calibrant produces: every producer, run on real inputs (the
shipped gold set and rubric, planted judges, the checker), validates into its model with nothing
lost; mistakes are caught; reports stored by earlier versions still load; docs/schemas/ is what
the models say."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from calibrant.contracts import reports as contracts
from calibrant.contracts.reports import (
    REPORT_MODELS,
    CalibrationReport,
    ReportVersionError,
    load_report,
    schema_files,
)
from tests.compare.test_stored_reports import OLD_COMPARE, OLD_PROBE, OLD_TRIALS
from tests.conftest import ROOT
from tests.contracts import report_samples

CURRENT = {
    "calibration": contracts.CALIBRATION_SCHEMA_VERSION,
    "score": contracts.SCORE_SCHEMA_VERSION,
    "comparison": contracts.COMPARISON_SCHEMA_VERSION,
    "trials": contracts.TRIALS_SCHEMA_VERSION,
    "probe": contracts.PROBE_SCHEMA_VERSION,
    "check": contracts.CHECK_SCHEMA_VERSION,
    "stability": contracts.STABILITY_SCHEMA_VERSION,
    "judge": contracts.JUDGE_SCHEMA_VERSION,
    "domains": contracts.DOMAINS_SCHEMA_VERSION,
    "audit": contracts.AUDIT_SCHEMA_VERSION,
    "agreement-over-time": contracts.AGREEMENT_OVER_TIME_SCHEMA_VERSION,
    "monitor": contracts.MONITOR_SCHEMA_VERSION,
    "trial-run": contracts.TRIAL_RUN_SCHEMA_VERSION,
    "agreement": contracts.AGREEMENT_SCHEMA_VERSION,
}


def _json(d: Any) -> Any:
    """What a report becomes once written to a file and read back."""
    return json.loads(json.dumps(d, sort_keys=True, default=str))


def test_every_report_kind_has_a_producer_here() -> None:
    kinds = {kind for kind, _ in report_samples.PRODUCERS.values()}
    assert kinds == set(REPORT_MODELS) == set(CURRENT)


@pytest.mark.parametrize("name", sorted(report_samples.PRODUCERS))
def test_each_producer_output_validates_into_its_model_with_nothing_lost(name: str) -> None:
    kind, producer = report_samples.PRODUCERS[name]
    produced = _json(producer())
    assert produced["schema_version"] == CURRENT[kind]
    model = load_report(kind, produced)
    assert isinstance(model, REPORT_MODELS[kind])
    # the model holds every field of the report, unchanged: dumping it gives the report back
    again = model.model_dump(mode="json", by_alias=True, exclude_unset=True)
    assert again == produced
    # and it is what the model class itself accepts (what the operations layer calls)
    assert REPORT_MODELS[kind].model_validate(produced) == model


def test_a_score_without_calibration_validates_too() -> None:
    produced = _json(report_samples.score(calibrated=False))
    assert produced["calibration"] is None
    load_report("score", produced)


@pytest.mark.parametrize(
    ("where", "change", "complaint"),
    [
        ((), {"gatee": {}}, "gatee"),  # a misspelt field
        (("gate",), {"judge": "OK"}, "judge"),  # a status that is not one
        (("settings",), {"seed": "zero"}, "seed"),  # a wrong type
        (("criteria", 0, "confusion"), {"extra": 1}, "extra"),  # deep in a criterion
    ],
)
def test_mistakes_in_a_calibration_report_are_caught(
    where: tuple[Any, ...], change: dict[str, Any], complaint: str
) -> None:
    report = copy.deepcopy(_json(report_samples.calibration()))
    part = report
    for key in where:
        part = part[key]
    part.update(change)
    with pytest.raises(ValidationError, match=complaint):
        CalibrationReport.model_validate(report)


def test_a_missing_field_is_caught() -> None:
    report = _json(report_samples.calibration())
    del report["criteria"][0]["coverage"]
    with pytest.raises(ValidationError, match="coverage"):
        CalibrationReport.model_validate(report)


def test_a_report_from_a_newer_calibrant_is_refused_not_misread() -> None:
    report = {**_json(report_samples.calibration()), "schema_version": 99}
    with pytest.raises(ReportVersionError, match="newer calibrant"):
        load_report("calibration", report)


def test_reports_stored_by_earlier_versions_still_load() -> None:
    """Schema 1 comparisons, trials comparisons and probe reports (as tests/compare's stored
    reports keep them) load, with what they did not record left unset."""
    old = load_report("comparison", OLD_COMPARE)
    assert isinstance(old, contracts.ComparisonReport)
    assert old.schema_version == 1 and old.alpha is None and old.min_cases is None
    assert old.criteria[0].more_items_to_settle == 52 and old.criteria[0].n_cases is None
    assert old.judges["a"].name == "a"
    assert old.model_dump(mode="json", exclude_unset=True) == OLD_COMPARE
    # the old trials and probe reports the stored-report tests render
    for kind, data in (("trials", OLD_TRIALS), ("probe", OLD_PROBE)):
        assert load_report(kind, data).model_dump(mode="json", exclude_unset=True) == data


def test_agree_json_written_before_it_had_a_schema_version_loads_as_version_1() -> None:
    """`agree --json` printed no `schema_version` before it was a report kind: such a file
    reads as version 1, every figure as it was; a newer one is refused."""
    new = _json(report_samples.agreement())
    old = {k: v for k, v in new.items() if k != "schema_version"}
    loaded = load_report("agreement", old)
    assert isinstance(loaded, contracts.AgreeReport) and loaded.schema_version == 1
    again = loaded.model_dump(mode="json", by_alias=True, exclude_unset=True)
    assert again == {**old, "schema_version": 1}
    with pytest.raises(ReportVersionError, match="newer calibrant"):
        load_report("agreement", {**new, "schema_version": 2})


def test_a_calibration_without_per_case_errors_loads() -> None:
    """Calibrations stored before `pass_fail_by_case` (score then refuses to correct with them)."""
    report = _json(report_samples.calibration())
    report["schema_version"] = 1
    for c in report["criteria"]:
        for key in ("pass_fail_by_case", "gate_comparison", "per_label", "baseline_sentence"):
            c.pop(key, None)
    loaded = load_report("calibration", report)
    assert loaded.schema_version == 1
    assert all(c.pass_fail_by_case is None for c in loaded.criteria)  # type: ignore[attr-defined]


def test_the_committed_json_schemas_are_up_to_date() -> None:
    folder = ROOT / "docs" / "schemas"
    expected = schema_files()
    committed = {p.name: p.read_text(encoding="utf-8") for p in folder.glob("*.schema.json")}
    stale = sorted(n for n in expected if committed.get(n) != expected[n])
    extra = sorted(set(committed) - set(expected))
    assert not stale and not extra, (
        f"docs/schemas is out of date ({', '.join(stale + extra)}): run "
        "`python scripts/write_schemas.py` and commit the result"
    )


def test_each_schema_names_its_version_and_rejects_unknown_fields() -> None:
    for name, text in schema_files().items():
        schema = json.loads(text)
        assert schema["additionalProperties"] is False, name
        assert "schema_version" in schema["properties"], name
    assert isinstance(ROOT, Path)


def test_a_monitor_report_written_before_issue_31_still_loads() -> None:
    """Monitor reports stored before rule 2 had reference windows and rule 3 release scorings
    lack those keys (and name the same verdicts): they load, the new fields empty."""
    old = _json(report_samples.monitor())
    for key in ("reference_windows", "min_anchor_cases", "shift_threshold"):
        old["settings"].pop(key)
    for b in old["baseline"].values():
        b.pop("anchor_cases")
        b.pop("anchor_scorings")
    for w in old["windows"]:
        for c in w["criteria"]:
            for key in ("agreement_bar", "anchors_held", "shift_reference"):
                c.pop(key)
    old["status"] = {name: ["product_changed"] for name in old["status"]}
    model = load_report("monitor", old)
    assert model.settings.reference_windows is None
    assert all(c.shift_reference is None for w in model.windows for c in w.criteria)
    assert all(v == ["product_changed"] for v in model.status.values())


def test_an_experts_section_of_its_first_version_still_loads() -> None:
    """The first experts section (before `n_shared`, its overall rows without `explanation`)
    loads with those left unset."""
    old = copy.deepcopy(_json(report_samples.calibration()))
    for row in old["experts"]["overall"]:
        row.pop("explanation")
        row.pop("n_shared")
    for c in old["experts"]["criteria"]:
        for row in c["consensus_followed"]:
            row.pop("n_shared")
    model = CalibrationReport.model_validate(old)
    assert model.experts is not None
    assert all(r.n_shared is None and r.explanation is None for r in model.experts.overall)
    assert model.model_dump(mode="json", by_alias=True, exclude_unset=True) == old
