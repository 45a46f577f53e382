"""Judging the gold set, written once: calibrate, compare, stability and the drift monitor's
anchors each ask one resolved judge about gold items through `judge_gold_samples`."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..contracts import JudgeConfig, Judgment, Rubric
    from ..gold import GoldSet
    from ..store import Store
    from .reliability import RetryPolicy
    from .runner import JudgeRun

__all__ = ["GoldAnswers", "judge_gold", "judge_gold_samples"]


@dataclass(frozen=True)
class GoldAnswers:
    """The judge's answers on gold items: each item's samples by id, and the run that got
    them (its judgments in order, how many came from the store, how many model calls)."""

    by_item: dict[str, list[Judgment]]
    run: JudgeRun

    def first(self) -> dict[str, Judgment]:
        """Each item's first answer, by id."""
        return {item: judged[0] for item, judged in self.by_item.items()}


def judge_gold_samples(
    resolved: tuple[JudgeConfig, Rubric, RetryPolicy, int],
    gold: GoldSet,
    *,
    store: Store,
    samples: int = 1,
    seed: int = 0,
    items: Sequence[str] | None = None,
    hashes: Mapping[str, str] | None = None,
    first_sample: int = 0,
    on_done: Callable[[Judgment, bool], None] | None = None,
) -> GoldAnswers:
    """The gold `items` (default: every item, in id order) each judged `samples` times by one
    resolved judge, by item id; answers this judge version already gave come from the store.
    `hashes`: the items' transcript hashes, when the caller has them; `first_sample`: the
    first sample number asked (the monitor's anchors ask under numbers of their own)."""
    from .runner import judge_transcripts

    config, rubric, policy, concurrency = resolved
    wanted = list(gold.item_ids if items is None else items)
    run = judge_transcripts(
        [gold.transcripts[i] for i in wanted],
        rubric=rubric,
        config=config,
        store=store,
        concurrency=concurrency,
        samples=samples,
        policy=policy,
        seed=seed,
        on_done=on_done,
        hashes=None if hashes is None else [hashes[i] for i in wanted],
        first_sample=first_sample,
    )
    by_item = {
        item: list(run.judgments[n * samples : (n + 1) * samples]) for n, item in enumerate(wanted)
    }
    return GoldAnswers(by_item=by_item, run=run)


def judge_gold(
    resolved: tuple[JudgeConfig, Rubric, RetryPolicy, int],
    gold: GoldSet,
    *,
    store: Store,
    seed: int = 0,
    items: Sequence[str] | None = None,
    hashes: Mapping[str, str] | None = None,
    first_sample: int = 0,
    on_done: Callable[[Judgment, bool], None] | None = None,
) -> dict[str, Judgment]:
    """One answer per gold item (`judge_gold_samples` with one sample), by item id."""
    return judge_gold_samples(
        resolved,
        gold,
        store=store,
        seed=seed,
        items=items,
        hashes=hashes,
        first_sample=first_sample,
        on_done=on_done,
    ).first()
