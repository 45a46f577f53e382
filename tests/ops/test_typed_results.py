"""An operation's result holds its report's model (`OpResult[ReportT]`): `report` is the model
its result class names, with every field of the report as stored; `data` the JSON data."""

from __future__ import annotations

import typing

from calibrant.contracts.reports import REPORT_MODELS, CheckReport
from calibrant.ops.calibrate import CalibrateResult
from calibrant.ops.check import CheckOptions, CheckResult, check
from calibrant.ops.common import OpResult
from calibrant.ops.compare import CompareResult
from calibrant.ops.compare_trials import CompareTrialsResult
from calibrant.ops.judge import JudgeResult
from calibrant.ops.probe import ProbeResult
from calibrant.ops.score import ScoreResult
from calibrant.ops.stability import StabilityResult
from tests.conftest import ROOT

RESULTS: list[type[OpResult]] = [  # type: ignore[type-arg]
    CalibrateResult,
    CheckResult,
    CompareResult,
    CompareTrialsResult,
    JudgeResult,
    ProbeResult,
    ScoreResult,
    StabilityResult,
]  # not TrialsResult: a trials run's report (reports.trials.trial_report) has no model yet


def test_each_result_class_names_the_model_of_its_kind() -> None:
    import calibrant.contracts.reports as reports

    for cls in RESULTS:
        (base,) = [b for b in cls.__orig_bases__ if typing.get_origin(b) is OpResult]  # type: ignore[attr-defined]
        (arg,) = typing.get_args(base)
        name = arg.__forward_arg__ if isinstance(arg, typing.ForwardRef) else arg.__name__
        assert cls.KIND is not None
        assert getattr(reports, name) is REPORT_MODELS[cls.KIND], cls.__name__


def test_a_check_result_gives_its_report_as_the_model() -> None:
    result = check(None, CheckOptions(paths=(ROOT / "gold" / "transcripts",)))
    model = result.report
    assert isinstance(model, CheckReport) and result.typed() is model
    assert model.transcripts == result.data["transcripts"] > 0
    assert model.model_dump(mode="json", by_alias=True, exclude_unset=True) == result.data


def test_a_result_made_from_the_json_data_holds_the_same_model() -> None:
    """A producer may still pass the report's JSON data: the result validates it into the
    model of its kind, and gives the same JSON back, key for key."""
    made = check(None, CheckOptions(paths=(ROOT / "gold" / "transcripts",)))
    again = CheckResult(run_id=made.run_id, report=made.data, files=made.files, totals=made.totals)  # type: ignore[arg-type]
    assert isinstance(again.report, CheckReport) and again.report == made.report
    assert again.data == made.data


def test_a_report_that_is_not_of_its_kind_fails_where_the_result_is_made() -> None:
    import pytest
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        CheckResult(run_id="r", report={"schema_version": 1, "nonsense": True})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="holds no report"):
        CheckResult(run_id="r").typed()
