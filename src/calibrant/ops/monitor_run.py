"""`calibrant monitor` as a user asks for it: the drift monitor of a judge version over the
store (`monitor.monitor_report`), with, first, the anchors re-scored by a saved judge
(`record_anchors`), or the monitor of a judge that runs elsewhere, known by its recorded
verdicts (`monitor_recorded`). The recorded file is read and checked before the store opens."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from .monitor_baseline import MonitorOptions

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from ..contracts.reports.monitor import MonitorReport

__all__ = ["MonitorRequest", "run_monitor", "saved_judge", "write_monitor_page"]


@dataclass(frozen=True)
class MonitorRequest:
    """The monitor of `options`; `anchors`: the calibration's gold folder, `per_window` of its
    cases re-scored per window not yet anchored (`anchor_scorings` scorings at release) by the
    saved judge `options.judge` names; `verdicts`: a judge that runs elsewhere, its recorded
    verdicts read as `verdicts_format` on `rubric`, audited items from the workbench queues
    `queues` (default any)."""

    options: MonitorOptions
    anchors: Path | None = None
    per_window: int = 20
    anchor_scorings: int = 3
    verdicts: Path | None = None
    verdicts_format: str = "auto"
    rubric: Path | None = None
    queues: tuple[str, ...] = ()


def saved_judge(name: str) -> bool:
    """Whether `name` is a saved judge's (judges/NAME.yaml), not a judge version."""
    from ..judge.config import judges_dir

    return "/" not in name and (judges_dir() / f"{name}.yaml").is_file()


def run_monitor(
    request: MonitorRequest, open_engine: Callable[[], Engine] | None = None
) -> MonitorReport:
    """The monitor's report for `request`, on the store `open_engine()` opens (default: the
    configured store), closed at the end."""
    from ..store import make_engine

    open_engine = open_engine or make_engine
    options = request.options
    if request.verdicts is not None:
        return _recorded(request, request.verdicts, open_engine)
    if request.rubric is not None or request.queues:
        raise ConfigError("monitor: --rubric and --queue go with --verdicts")
    version, resolved = options.judge, None
    if options.judge is not None and saved_judge(options.judge):
        from ..judge.config import JudgeOptions, resolve_judge

        resolved = resolve_judge(JudgeOptions(judge=options.judge))
        version = resolved[0].hash
    engine = open_engine()
    try:
        if request.anchors is not None:
            if resolved is None:
                raise ConfigError(
                    "monitor: --anchors re-scores gold items with the judge: give --judge NAME "
                    "(a saved judge)"
                )
            _anchors(engine, request, request.anchors, resolved)
        from .monitor import monitor_report

        return monitor_report(engine, replace(options, judge=version))
    finally:
        engine.dispose()


def _anchors(engine: Engine, request: MonitorRequest, gold: Path, resolved: Any) -> None:
    from .monitor_anchors import record_anchors

    config, rubric, policy, concurrency = resolved
    record_anchors(
        engine,
        gold=gold,
        config=config,
        rubric=rubric,
        policy=policy,
        window=request.options.window,
        per_window=request.per_window,
        seed=request.options.seed,
        concurrency=concurrency,
        release_scorings=request.anchor_scorings,
    )


def _recorded(
    request: MonitorRequest, verdicts: Path, open_engine: Callable[[], Engine]
) -> MonitorReport:
    """`monitor --verdicts`: the file read and checked before the store opens."""
    from .monitor_recorded import read_monitored, recorded_monitor_report
    from .verdicts import check_format, load_rubric_for_verdicts

    options, fmt = request.options, request.verdicts_format
    if options.judge is not None:
        raise ConfigError(
            "monitor: --verdicts names its judge (the file's judge_version): leave out --judge"
        )
    check_format(fmt)
    rubric = load_rubric_for_verdicts(request.rubric)
    judge = read_monitored(verdicts, rubric=rubric, window=options.window, fmt=fmt)
    engine = open_engine()
    try:
        return recorded_monitor_report(
            engine, options, judge, anchors=request.anchors, queues=request.queues
        )
    finally:
        engine.dispose()


def write_monitor_page(report: MonitorReport, path: Path) -> None:
    """The monitor's page (the time-series plot) written to `path`."""
    from ..reports.monitor_html import monitor_page

    path.write_text(monitor_page(report), encoding="utf-8")
