"""`stability`, written once: one judge configuration sampled k times on the gold items, and
how much its samples agree with one another per criterion (a 95% interval); the report is
stored as a finished run of kind "stability"."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .common import Hooks, OpResult, record_finished

if TYPE_CHECKING:
    from ..contracts.reports import StabilityReport  # noqa: F401 (the result's model)
    from ..judge.config import JudgeOptions
    from ..store import Store

__all__ = ["StabilityOptions", "StabilityResult", "stability"]


@dataclass(frozen=True)
class StabilityOptions:
    """The judge `judge` names, asked `samples` times about each item of the gold set at
    `gold` (split `split`: calibration, heldout or all); criteria whose self-agreement
    interval reaches below `min_self_agreement` are flagged."""

    gold: Path
    judge: JudgeOptions
    split: str = "calibration"
    samples: int = 5
    seed: int = 0
    min_self_agreement: float = 0.8


@dataclass(frozen=True)
class StabilityResult(OpResult["StabilityReport"]):
    """The stability run and its report."""

    KIND = "stability"


def stability(
    store: Store, options: StabilityOptions, hooks: Hooks | None = None
) -> StabilityResult:
    """Sample the judge on the gold set (answers cached in the store) and measure its
    self-agreement; the report is kept as a run."""
    from ..calibration.stability import judge_stability
    from ..gold import load_gold
    from ..judge.config import resolve_judge
    from ..judge.on_gold import judge_gold_samples

    hooks = hooks or Hooks()
    k = options.samples
    gold_set = load_gold(options.gold, split=None if options.split == "all" else options.split)
    resolved = resolve_judge(options.judge)
    config, rubric = resolved[0], resolved[1]
    gold_set.validate(rubric)
    items = gold_set.item_ids
    with hooks.progress("answers", len(items) * k) as progress:
        answers = judge_gold_samples(
            resolved,
            gold_set,
            store=store,
            samples=k,
            seed=options.seed,
            on_done=hooks.answered(progress),
        )
    report = judge_stability(
        items,
        answers.by_item,
        rubric=rubric,
        judge=config,
        k=k,
        clusters=[gold_set.items[i].case for i in items],
        seed=options.seed,
        min_self_agreement=options.min_self_agreement,
    ).model_dump(mode="json", exclude_unset=True)
    arguments = {"gold": str(options.gold), "split": options.split, "samples": k}
    run_id = record_finished(
        store, "stability", report, judge=config, arguments=arguments, seed=options.seed, samples=k
    )
    report["run_id"] = run_id
    hooks.run(run_id)
    return StabilityResult(run_id=run_id, report=StabilityResult.model_of(report))
