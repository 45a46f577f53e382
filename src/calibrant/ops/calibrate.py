"""`calibrate`, written once: judge the gold set (answers kept in the store) and report, per
criterion, agreement with the experts, their own agreement and the release gate. The command
line and the service's calibrate job call `calibrate`."""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .common import Hooks, OpResult, ResolvedJudge

if TYPE_CHECKING:
    from ..calibration.criterion import Settings
    from ..calibration.recorded import RecordedJudge
    from ..contracts import Rubric
    from ..contracts.reports import CalibrationReport  # noqa: F401 (the result's model)
    from ..gold import GoldSet
    from ..judge.config import JudgeOptions
    from ..store import Store

__all__ = [
    "CalibrateOptions",
    "CalibrateRequest",
    "CalibrateResult",
    "calibrate",
    "calibrate_options",
    "check_request",
    "gold_in_rubric_domain",
    "write_outputs",
]


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
    return CalibrateResult(run_id=str(report.run_id), report=report)


@dataclass(frozen=True)
class CalibrateRequest:
    """A calibrate run as a user asks for it: the gold folder `gold` (None: the installed
    pack's) or the labeled workbench queue `from_store`, split `split` (a `gold_split` value),
    the judge `judge` or its recorded verdicts `verdicts` (read as `verdicts_format`), the
    statistics and gate of `settings`, the robustness gate, and where the reports go besides
    the report folder (`out`, default reports/RUN_ID/): `markdown`, `html`."""

    gold: Path | None
    from_store: str | None
    split: str | None
    judge: JudgeOptions
    settings: Settings
    require_robustness: bool = False
    attack_margin: float | None = None
    verdicts: Path | None = None
    verdicts_format: str = "auto"
    markdown: Path | None = None
    html: Path | None = None
    out: Path | None = None


def check_request(request: CalibrateRequest) -> RecordedJudge | None:
    """Everything about `request` that can be refused before the store opens (a bad request
    writes nothing): the sources of gold and of verdicts, the options, the report paths; the
    recorded verdicts are read and checked here."""
    from ..domains import default_gold
    from ..errors import CalibrantError
    from ..paths import check_output_path
    from ..reports.folder import check_report_folder
    from .verdicts import check_format, load_rubric_for_verdicts

    judge, gold = request.judge, request.gold
    if gold is not None and request.from_store is not None:
        raise CalibrantError("--gold and --from-store are two sources of gold: give one")
    if request.from_store is None:
        gold = gold or default_gold(judge.domain)  # the installed pack's, wherever it runs
    margin = request.attack_margin
    if margin is not None and not 0 <= margin <= 1:
        raise CalibrantError(f"--attack-margin must be between 0 and 1, not {margin}")
    for option, path in (("--markdown", request.markdown), ("--html", request.html)):
        if path is not None:
            check_output_path(path, option=option)
    check_report_folder(request.out)  # reports/<run-id>/ or --out, checked before work
    if request.verdicts is None:
        return None
    named = (("--model", judge.model), ("--api-base", judge.api_base), ("--judge", judge.judge))
    given = [n for n, v in named if v]
    if given:
        raise CalibrantError(
            f"--verdicts measures a judge that runs elsewhere: {', '.join(given)} names a "
            "judge calibrant would call; give one or the other"
        )
    if request.from_store is not None:
        raise CalibrantError(
            "--verdicts reads its items from a gold folder: export the queue with "
            "`calibrant gold export` and give it as --gold"
        )
    from ..calibration.recorded import load_recorded

    check_format(request.verdicts_format)
    return load_recorded(
        request.verdicts,
        rubric=load_rubric_for_verdicts(judge.rubric, judge.domain),
        gold=gold or default_gold(judge.domain),
        fmt=request.verdicts_format,
    )


def calibrate_options(
    store: Store,
    request: CalibrateRequest,
    stack: ExitStack,
    recorded: RecordedJudge | None = None,
) -> CalibrateOptions:
    """The options of `calibrate` for `request` (checked by `check_request`, which gave
    `recorded`): a workbench queue is exported to a temporary gold folder that `stack` removes,
    its rubric the judge's unless the request names a rubric or a judge."""
    from ..domains import default_gold
    from .gold_export import queue_gold

    gold, source, judge = request.gold, None, request.judge
    if request.from_store is not None:
        exported = queue_gold(store.engine, request.from_store, stack, option="--from-store")
        gold, source = exported.folder, exported.source
        if judge.rubric is None and judge.judge is None:
            judge = judge.model_copy(update={"rubric": exported.rubric})
    return CalibrateOptions(
        gold or default_gold(judge.domain),
        split=request.split,
        judge=judge,
        settings=request.settings,
        require_robustness=request.require_robustness,
        attack_margin=request.attack_margin,
        source=source,
        recorded=recorded,
    )


def write_outputs(report: dict[str, Any], request: CalibrateRequest) -> tuple[Path, list[Path]]:
    """Write the report where `request` says: its Markdown and HTML files when asked for (all
    or none), then the report folder (html, json, md). The folder and the files written."""
    from ..paths import write_all_atomic
    from ..reports.calibration import calibration_markdown
    from ..reports.folder import write_calibration_folder
    from ..reports.html import calibration_html

    outputs = {}
    if request.markdown is not None:
        outputs[request.markdown] = calibration_markdown(report)
    if request.html is not None:
        outputs[request.html] = calibration_html(report)
    write_all_atomic(outputs)  # all reports or none
    return write_calibration_folder(report, request.out), list(outputs)
