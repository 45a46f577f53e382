"""The main job: judge the gold set (cached) and build the calibration report."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..contracts import JudgeConfig, Judgment, Rubric
from ..contracts.reports import CalibrationReport
from ..contracts.reports.calibration_parts import CalibrationRun, FailureKind, RunToRunSection
from ..gold import GoldSet, load_gold
from ..judge.config import JudgeOptions, resolve_judge
from ..judge.on_gold import judge_gold_samples
from ..judge.reliability import RetryPolicy
from ..store import Store
from ..store.runs import Runs
from .build import calibration_report
from .criterion import Settings
from .noise import apply_run_to_run, run_to_run_section
from .robustness import combine_gate, robustness_section

if TYPE_CHECKING:
    from .recorded import RecordedJudge

__all__ = ["run_calibration", "failure_summary"]


def failure_summary(judgments: list[Judgment]) -> dict[str, FailureKind]:
    """Judge failures by kind (every outcome but verdict): how many, and one sample message."""
    out: dict[str, FailureKind] = {}
    for j in judgments:
        if j.outcome == "verdict":
            continue
        entry = out.setdefault(j.outcome, FailureKind(count=0, sample=None))
        entry.count += 1
        if entry.sample is None and j.error:
            entry.sample = j.error
    return dict(sorted(out.items()))


def run_calibration(
    gold_dir: Path,
    *,
    split: str | None,
    options: JudgeOptions,
    settings: Settings,
    store: Store,
    on_start: Callable[[int], None] | None = None,
    on_done: Callable[[Judgment, bool], None] | None = None,
    require_robustness: bool = False,
    attack_margin: float | None = None,
    resolved: tuple[JudgeConfig, Rubric, RetryPolicy, int] | None = None,
    on_run: Callable[[str], None] | None = None,
    check: Callable[[GoldSet, Rubric], None] | None = None,
    source: str | None = None,
    recorded: RecordedJudge | None = None,
) -> CalibrationReport:
    """Judge every gold item of `split` and report agreement, gates and safety, with the latest
    probe run of this judge version (`require_robustness`: its injection gate, decided with
    `attack_margin` or the probe run's own margin, is part of the release gate). `resolved` (a
    judge already resolved, e.g. a version kept in the store) takes the place of `options`;
    `on_run` hears the run id as soon as the run is recorded; `check(gold, rubric)` may refuse
    the pair before anything is recorded (a gold set of another domain); `source` says where the
    gold folder came from (report's `gold.source`). The run, its answers and its report are kept
    in `store` (the caller's, opened once per process). `recorded`: a judge known by its
    recorded verdicts (checked already), measured without any model call."""
    gold = load_gold(gold_dir, split=split)
    if recorded is not None:
        config, rubric = recorded.config, recorded.rubric
        policy, concurrency = RetryPolicy(), 1
    else:
        config, rubric, policy, concurrency = resolved or resolve_judge(options)
    gold.validate(rubric)  # every label readable by this rubric, before any model call
    if check is not None:
        check(gold, rubric)
    runs = Runs(store.engine)
    run_id = runs.start(
        "calibrate",
        judge=config,
        seed=settings.seed,
        arguments={
            "gold": str(gold_dir),
            **({"gold_source": source} if source else {}),
            "split": split or "all",
            **(
                {}
                if recorded is None
                else {"verdicts": {"file": str(recorded.source), "sha256": recorded.sha256}}
            ),
            "n_resamples": settings.n_resamples,
            "gate": {
                "min_lower": settings.gate.min_lower,
                "min_coverage": settings.gate.min_coverage,
                "use_ceiling": settings.gate.use_ceiling,
                "min_items": settings.gate.min_items,
                "min_cases": settings.gate.min_cases,
                "min_expert_cases": settings.gate.min_expert_cases,
                "margin": settings.gate.margin,
            },
        },
    )
    try:
        if on_run is not None:
            on_run(run_id)
        if recorded is not None:
            report = _recorded_report(gold, recorded, settings, split)
        else:
            report = _judge_and_report(
                gold, rubric, config, policy, concurrency, store, settings, split, on_start, on_done
            )
    except BaseException:
        runs.finish(run_id, None, status="failed")
        raise
    if source:
        report.gold.source = source
    report.robustness = robustness_section(
        store.engine,
        judge_hash=config.hash,
        rubric_hash=rubric.content_hash,
        required=require_robustness,
        margin=attack_margin,
    )
    section = run_to_run_section(store.engine, judge=config, rubric=rubric)
    if recorded is not None:
        section = _recorded_notes(report, section)
    apply_run_to_run(report, section)
    combine_gate(report.gate, report.robustness)
    report.run_id = run_id
    verdicts = report.judge_outcomes.get("verdict", 0)
    runs.finish(run_id, report.json_data(), status="finished" if verdicts else "no_verdict")
    return report


def _recorded_report(
    gold: GoldSet, recorded: RecordedJudge, settings: Settings, split: str | None
) -> CalibrationReport:
    """The report of a judge known by its recorded verdicts: the same statistics and gate; a
    gold item without a row counts as an abstention, and the report says how many."""
    section = recorded.section(gold)
    report = calibration_report(
        gold,
        recorded.rubric,
        recorded.judgments(gold),
        settings=settings,
        judge=recorded.config,
        split=split,
        run=CalibrationRun(model_calls=0, recorded=section),
    )
    assert report.judge is not None  # a recorded judge has its configuration
    report.judge.recorded = section
    without = len(section.items_without_verdict)
    report.judge_outcomes = {
        "verdict": section.items_with_verdicts,
        **({"no_recorded_verdict": without} if without else {}),
    }
    if section.verdicts_missing:
        report.warnings.append(section.note)
    return report


def _recorded_notes(report: CalibrationReport, run_to_run: RunToRunSection) -> RunToRunSection:
    """What cannot be measured of a judge calibrant never called, said plainly: in the report's
    robustness section, and in the run-to-run section returned."""
    assert report.judge is not None and report.judge.recorded is not None
    assert report.robustness is not None
    version = report.judge.recorded.judge_version
    if report.robustness.probe_run is None:
        report.robustness.note = (
            f"not measured: judge '{version}' runs elsewhere (recorded verdicts), and "
            "`calibrant probe` can only attack a judge it calls"
        )
    if run_to_run.measured:
        return run_to_run
    note = (
        f"Run-to-run noise was not measured: judge '{version}' gave one recorded answer per "
        "item; record it twice and compare the files with `calibrant compare FILE1 FILE2`."
    )
    return run_to_run.model_copy(update={"note": note})


def _judge_and_report(
    gold: GoldSet,
    rubric: Rubric,
    config: JudgeConfig,
    policy: RetryPolicy,
    concurrency: int,
    store: Store,
    settings: Settings,
    split: str | None,
    on_start: Callable[[int], None] | None,
    on_done: Callable[[Judgment, bool], None] | None,
) -> CalibrationReport:
    items = gold.item_ids
    if on_start:
        on_start(len(items))
    answers = judge_gold_samples(
        (config, rubric, policy, concurrency),
        gold,
        store=store,
        seed=settings.seed,
        on_done=on_done,
    )
    run, judgments = answers.run, answers.first()
    return calibration_report(
        gold,
        rubric,
        judgments,
        settings=settings,
        judge=config,
        split=split,
        run=CalibrationRun(
            from_cache=run.from_cache,
            model_calls=run.model_calls,
            latency_ms_total=sum(j.latency_ms for j in run.judgments if j.attempts),
            input_tokens=sum(j.input_tokens for j in run.judgments),
            cached_tokens=sum(j.cached_tokens for j in run.judgments),
            output_tokens=sum(j.output_tokens for j in run.judgments),
            failures=failure_summary(run.judgments),
            cost_usd=None
            if any(j.cost_usd is None for j in run.judgments if j.outcome == "verdict")
            else sum(j.cost_usd or 0.0 for j in run.judgments),
        ),
    )
