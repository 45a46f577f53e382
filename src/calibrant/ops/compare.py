"""`compare` (compare-judges), written once: two saved judge versions on the same gold items —
per criterion kappa of A and B, a paired interval of the difference over whole cases, an exact
McNemar test, the flipped items and a decision over all criteria at once. The command line and
the service's compare job call `compare`, and record the run the same way: started before the
first model call (a job can follow and cancel it), finished with its report."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import CalibrantError
from .common import Hooks, OpResult, ResolvedJudge

if TYPE_CHECKING:
    from ..calibration.recorded import RecordedJudge
    from ..contracts import JudgeConfig, Rubric
    from ..contracts.reports import ComparisonReport  # noqa: F401 (the result's model)
    from ..gold import GoldSet
    from ..store import Store

__all__ = ["CompareOptions", "CompareResult", "compare", "side_name", "verdicts_rubric"]


@dataclass(frozen=True)
class CompareOptions:
    """Judge B (`name_b`, the candidate) against judge A (`name_a`, the baseline), each resolved
    or known by its recorded verdicts (`calibration.load_recorded`), on the gold set at `gold`,
    split `split` (`all`: every item)."""

    name_a: str
    name_b: str
    judge_a: ResolvedJudge | RecordedJudge
    judge_b: ResolvedJudge | RecordedJudge
    gold: Path
    split: str = "calibration"
    seed: int = 0
    resamples: int = 2000
    min_cases: int | None = None


@dataclass(frozen=True)
class CompareResult(OpResult["ComparisonReport"]):
    """The compare run and its report; `unmeasured`: the sides (by name) of which no gold item
    got a verdict, each with its first error (None: it gave none), when any: then nothing was
    measured, and the report's decision is no verdict (the run is stored as `no_verdict`)."""

    KIND = "comparison"

    unmeasured: tuple[tuple[str, str | None], ...] = ()


def _unmeasured(names: tuple[str, str], judged: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    """The sides whose judgments hold no verdict, each with its first error."""
    out = []
    for name, js in zip(names, judged, strict=True):
        if not any(j.outcome == "verdict" for j in js.values()):
            out.append((name, next((j.error for j in js.values() if j.error), None)))
    return out


def compare(store: Store, options: CompareOptions, hooks: Hooks | None = None) -> CompareResult:
    """Compare the two judges; every check (one rubric, labels it can read) before the first
    model call. Answers a judge version already gave come from the store."""
    from ..calibration.compare_judges import compare_judges
    from ..calibration.criterion import Settings
    from ..gold import load_gold
    from ..judge.on_gold import judge_gold
    from ..store.runs import Runs
    from .calibrate import gold_in_rubric_domain

    hooks = hooks or Hooks()
    split = None if options.split == "all" else options.split
    gold = load_gold(options.gold, split=split)
    (config_a, rubric), (config_b, rubric_b) = _side(options.judge_a), _side(options.judge_b)
    if rubric_b.content_hash != rubric.content_hash:
        raise CalibrantError(
            f"judges '{options.name_a}' and '{options.name_b}' read different rubrics "
            f"({rubric.content_hash[:15]} vs {rubric_b.content_hash[:15]}): compare judge "
            "versions on the same rubric"
        )
    gold.validate(rubric)
    gold_in_rubric_domain(gold, rubric)  # one domain per run: the rubric's
    runs = Runs(store.engine)
    run_id = runs.start(
        "compare",
        judge=config_b,
        seed=options.seed,
        arguments={
            "a": options.name_a,
            "b": options.name_b,
            "a_hash": config_a.hash,
            "gold": str(options.gold),
            "split": options.split,
            "min_cases": options.min_cases,
            **{
                f"verdicts_{side}": {"file": str(j.source), "sha256": j.sha256}
                for side, j in (("a", options.judge_a), ("b", options.judge_b))
                if not isinstance(j, tuple)
            },
        },
    )
    try:
        hooks.run(run_id)
        judged = []
        for name, resolved in (
            (options.name_a, options.judge_a),
            (options.name_b, options.judge_b),
        ):
            if not isinstance(resolved, tuple):
                judged.append(resolved.judgments(gold))  # recorded: no model call
                continue
            what = f"gold items judged by '{name}'"
            with hooks.progress(what, len(gold.item_ids)) as progress:
                judged.append(
                    judge_gold(
                        resolved,
                        gold,
                        seed=options.seed,
                        store=store,
                        on_done=hooks.answered(progress),
                    )
                )
        report: dict[str, Any] = compare_judges(
            gold,
            rubric,
            judge_a=config_a,
            judge_b=config_b,
            judgments_a=judged[0],
            judgments_b=judged[1],
            settings=Settings(seed=options.seed, n_resamples=options.resamples),
            split=split,
            min_cases=options.min_cases,
        ).json_data()
    except BaseException:
        runs.finish(run_id, None, status="failed")
        raise
    report["judges"]["a"]["name"], report["judges"]["b"]["name"] = options.name_a, options.name_b
    _recorded_coverage(report, gold, options)
    report["run_id"] = run_id
    unmeasured = _unmeasured((options.name_a, options.name_b), judged)
    runs.finish(run_id, report, status="no_verdict" if unmeasured else "finished")
    return CompareResult(
        run_id=run_id, report=CompareResult.model_of(report), unmeasured=tuple(unmeasured)
    )


def side_name(given: str, judge: ResolvedJudge | RecordedJudge) -> str:
    """A side's name in the report: the saved judge's as given, a recorded one's version."""
    return given if isinstance(judge, tuple) else judge.version


def verdicts_rubric(
    live: list[ResolvedJudge], given: Callable[[], Rubric] | None, *, option: str
) -> Rubric | None:
    """The rubric a side's verdicts file is checked on: that of the saved judge beside it; the
    one given (`option`, loaded by `given`) only when both sides are files (None: none given)."""
    if live and given is not None:
        raise CalibrantError(
            f"{option} is for two verdicts files; a saved judge brings its own rubric"
        )
    if live:
        return live[0][1]
    return None if given is None else given()


def _side(judge: ResolvedJudge | RecordedJudge) -> tuple[JudgeConfig, Rubric]:
    if isinstance(judge, tuple):
        return judge[0], judge[1]
    return judge.config, judge.rubric


def _recorded_coverage(report: dict[str, Any], gold: GoldSet, options: CompareOptions) -> None:
    """A recorded side without a row for some gold item abstains there (counted in
    `unusable`); each criterion's reason says how many, naming the file."""
    for side, judge in (("A", options.judge_a), ("B", options.judge_b)):
        if isinstance(judge, tuple):
            continue
        rows = {(r.item, r.criterion) for r in judge.rows}
        for c in report["criteria"]:
            n = sum((i, c["criterion"]) not in rows for i in gold.item_ids)
            if n:
                note = (
                    f"{side}: {n} gold item(s) without a row in {judge.source.name} count as "
                    "abstaining"
                )
                c["reason"] = f"{c['reason']}; {note}" if c["reason"] else note
