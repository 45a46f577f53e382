"""`calibrate`, written once: judge the gold set (answers kept in the store) and report, per
criterion, agreement with the experts, their own agreement and the release gate. The command
line and the service's calibrate job call `calibrate`."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .common import Hooks, OpResult, ResolvedJudge

if TYPE_CHECKING:
    from ..calibration.criterion import Settings
    from ..calibration.recorded import RecordedJudge
    from ..contracts import Rubric
    from ..contracts.reports import CalibrationReport  # noqa: F401 (the result's model)
    from ..gold import GoldSet
    from ..judge.config import JudgeOptions
    from ..store import Store

__all__ = ["CalibrateOptions", "CalibrateResult", "calibrate", "gold_in_rubric_domain"]


def _settings() -> Settings:
    from ..calibration.criterion import Settings

    return Settings()


@dataclass(frozen=True)
class CalibrateOptions:
    """The gold set at `gold`, split `split` (None: every item), judged by the judge `judge`
    resolves to (or `resolved`, a judge already resolved: a version kept in the store), with the
    statistics and gate of `settings`; `require_robustness`: the latest probe run's injection
    gate is part of the release gate (`attack_margin`, else the probe run's own); `source`: where
    the gold folder came from when it is not the user's own (a workbench queue exported for this
    run), said in the report. `recorded`: a judge that runs elsewhere, known by its recorded
    verdicts (`calibration.load_recorded`), in place of a judge calibrant calls."""

    gold: Path
    split: str | None = "calibration"
    judge: JudgeOptions | None = None
    resolved: ResolvedJudge | None = None
    settings: Settings = field(default_factory=_settings)
    require_robustness: bool = False
    attack_margin: float | None = None
    source: str | None = None
    recorded: RecordedJudge | None = None


@dataclass(frozen=True)
class CalibrateResult(OpResult["CalibrationReport"]):
    """The calibrate run and its report."""

    KIND = "calibration"


def gold_in_rubric_domain(gold: GoldSet, rubric: Rubric) -> None:
    """Refuse a gold set whose manifest or transcripts are not of the rubric's domain."""
    from ..domains import same_domain

    of = f"rubric '{rubric.rubric_id}'"
    for item_id in sorted(gold.items):
        manifest = gold.root / "manifest.yaml"
        same_domain(manifest, gold.items[item_id].domain, expected=rubric.domain, expected_from=of)
        path = gold.root / "transcripts" / f"{item_id}.json"
        same_domain(
            path, gold.transcripts[item_id].domain, expected=rubric.domain, expected_from=of
        )


def calibrate(
    store: Store, options: CalibrateOptions, hooks: Hooks | None = None
) -> CalibrateResult:
    """Calibrate the judge on the gold set; the run and its report are in the store."""
    from ..calibration import run_calibration
    from ..errors import ConfigError
    from ..judge.config import JudgeOptions

    hooks = hooks or Hooks()
    if options.recorded is not None and options.require_robustness:
        raise ConfigError(
            "--require-robustness needs a probe run, and calibrant can only probe a judge it "
            "calls: not with recorded verdicts"
        )
    with hooks.progress("gold items judged", None) as progress:
        report = run_calibration(
            options.gold,
            split=options.split,
            options=options.judge or JudgeOptions(),
            settings=options.settings,
            store=store,
            on_start=progress.set_total,
            on_done=hooks.answered(progress),
            require_robustness=options.require_robustness,
            attack_margin=options.attack_margin,
            resolved=options.resolved,
            on_run=hooks.on_run,
            check=gold_in_rubric_domain,
            source=options.source,
            recorded=options.recorded,
        )
    return CalibrateResult(run_id=str(report["run_id"]), report=report)
