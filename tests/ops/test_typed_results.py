"""An operation's result holds its report's model (`OpResult[ReportT]`): `typed()` gives the
model its result class names, with every field of the report as stored."""

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
from calibrant.ops.trials import TrialsResult
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
    TrialsResult,
]


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
    model = result.typed()
    assert isinstance(model, CheckReport)
    assert model.transcripts == result.report["transcripts"] > 0
    assert model.model_dump(mode="json", by_alias=True, exclude_unset=True) == result.report
