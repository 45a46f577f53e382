"""Which items to label next: a ranked proposal for a criterion whose gate is UNDECIDED.

The gate's interval resamples cases (:mod:`calibrant.agreement.clustered`, the ``clusters=``
bootstrap), so its width shrinks with the number of *cases* labeled, not with the number of
items: a second item of a case already labeled adds little. The proposal therefore works case
first. Strategies (``benchmarks/bench_active.py`` compares them by simulation and
``docs/calibration.md`` "Which items to label next" gives the measured numbers):

* ``random``: a uniform draw from the pool (the baseline);
* ``stratified``: balance the judge's label classes (the rarer judged class first);
* ``unseen``: items of cases with the fewest labels first (a case without any label first), one
  item per case before a second item of any case;
* ``disagree``: items on which two judge versions disagree first;
* ``proposed``: the default: ``unseen`` cases first, keeping the judged classes at their share of
  the whole population (labeled and pool), so the labeled set stays a fair sample of what the
  judge sees. The simulation supports it only this far: it kept the measured kappa and the
  wrong-decision rate where random sampling keeps them, and needed 0.74-1.00 times random's
  median labels, no interval excluding 1 (no demonstrated saving). Balancing the classes beyond
  their share (``stratified``) or labeling where judges disagree (``disagree``) shifts kappa on
  a set that no longer looks like the population: the gate then measures another kappa, and
  the simulation counts the wrong decisions that follow.

Everything is reproducible by ``seed``: ties are broken by one ``random.Random(seed)`` draw per
pool item.
"""

from __future__ import annotations

import heapq
import random
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..contracts.reports.proposal import ItemCount, ProposalRow, Proposals
from ..errors import InputError

if TYPE_CHECKING:
    from ..contracts import Rubric

__all__ = [
    "STRATEGIES",
    "DEFAULT_STRATEGY",
    "LabeledItem",
    "PoolItem",
    "Proposal",
    "Strategy",
    "propose",
    "propose_for_gold",
]

Strategy = Literal["proposed", "random", "stratified", "unseen", "disagree"]
STRATEGIES: tuple[Strategy, ...] = ("proposed", "random", "stratified", "unseen", "disagree")
DEFAULT_STRATEGY: Strategy = "proposed"


@dataclass(frozen=True)
class LabeledItem:
    """An item of the labeled set: its case, the judge's label and the experts' consensus."""

    item: str
    case: Hashable
    judge: Hashable
    expert: Hashable


@dataclass(frozen=True)
class PoolItem:
    """An unlabeled item the judge has judged; ``judge_b`` is a second judge version's label."""

    item: str
    case: Hashable
    judge: Hashable
    judge_b: Hashable | None = None


@dataclass(frozen=True)
class Proposal:
    """One proposed item, its rank (1 = label first) and why it is proposed."""

    rank: int
    item: str
    case: Hashable
    judge: Hashable
    new_case: bool
    reason: str

    def to_row(self) -> ProposalRow:
        """The proposal as its report row (case and label as text)."""
        return ProposalRow(
            rank=self.rank,
            item=self.item,
            case=str(self.case),
            judge_label=str(self.judge),
            new_case=self.new_case,
            reason=self.reason,
        )


def _check(labeled: Sequence[LabeledItem], pool: Sequence[PoolItem], count: int) -> None:
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ValueError(f"count must be a positive integer, not {count!r}")
    seen: set[str] = set()
    for x in labeled:
        if x.item in seen:
            raise ValueError(f"item '{x.item}' is in the labeled set twice")
        seen.add(x.item)
    in_pool: set[str] = set()
    for p in pool:
        if p.item in seen:
            raise ValueError(f"item '{p.item}' is both labeled and in the pool")
        if p.item in in_pool:
            raise ValueError(f"item '{p.item}' is in the pool twice")
        in_pool.add(p.item)


def propose(
    labeled: Sequence[LabeledItem],
    pool: Sequence[PoolItem],
    *,
    count: int,
    strategy: Strategy = DEFAULT_STRATEGY,
    seed: int = 0,
) -> list[Proposal]:
    """Rank up to ``count`` pool items to label next by ``strategy`` (see the module docstring);
    ``ValueError`` on bad input (a duplicated item, a count below 1, an unknown strategy,
    ``disagree`` without a second judge label)."""
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy '{strategy}': one of {', '.join(STRATEGIES)}")
    _check(labeled, pool, count)
    if strategy == "disagree" and not any(p.judge_b is not None for p in pool):
        raise ValueError("strategy 'disagree' needs a second judge version's labels on the pool")
    rng = random.Random(seed)
    ties = [rng.random() for _ in pool]
    case_labels: Counter[Hashable] = Counter(x.case for x in labeled)
    class_labels: Counter[Hashable] = Counter(x.judge for x in labeled)
    population: Counter[Hashable] = Counter(x.judge for x in labeled)
    population.update(p.judge for p in pool)
    total = sum(population.values())
    by_case = strategy in ("proposed", "unseen")
    by_class = strategy in ("proposed", "stratified")
    differs = [p.judge_b is not None and p.judge_b != p.judge for p in pool]

    def key(i: int) -> tuple[int, int, float]:
        p = pool[i]
        return (
            0 if strategy == "disagree" and differs[i] else 1,
            case_labels[p.case] if by_case else 0,
            ties[i],
        )

    # one heap per judged class (one heap in all when classes are not balanced); a heap entry
    # whose case got a label since it was pushed is pushed again with its new count
    heaps: dict[Hashable, list[tuple[tuple[int, int, float], int]]] = {}
    for i, p in enumerate(pool):
        heaps.setdefault(p.judge if by_class else None, []).append((key(i), i))
    for h in heaps.values():
        heapq.heapify(h)
    out: list[Proposal] = []
    while len(out) < count and any(heaps.values()):
        live = [c for c, h in heaps.items() if h]
        if strategy == "stratified":
            cls = min(live, key=lambda c: (class_labels[c], population[c], str(c)))
        elif strategy == "proposed":
            n = sum(class_labels.values()) + 1
            cls = max(
                live, key=lambda c: (population[c] / total * n - class_labels[c], -population[c])
            )
        else:
            cls = live[0]
        h = heaps[cls]
        while True:
            k, i = heapq.heappop(h)
            fresh = key(i)
            if fresh == k or not h:
                break
            heapq.heappush(h, (fresh, i))
        p = pool[i]
        out.append(
            Proposal(
                rank=len(out) + 1,
                item=p.item,
                case=p.case,
                judge=p.judge,
                new_case=case_labels[p.case] == 0,
                reason=_reason(strategy, p, case_labels[p.case], class_labels, population, seed),
            )
        )
        case_labels[p.case] += 1
        class_labels[p.judge] += 1
    return out


def _reason(
    strategy: Strategy,
    p: PoolItem,
    in_case: int,
    class_labels: Counter[Hashable],
    population: Counter[Hashable],
    seed: int,
) -> str:
    if strategy == "random":
        return f"drawn at random (seed {seed})"
    parts = []
    if strategy == "disagree":
        if p.judge_b is not None and p.judge_b != p.judge:
            parts.append(f"the two judge versions disagree ('{p.judge}' vs '{p.judge_b}')")
        else:
            parts.append("no judge disagreement left; next in a random order")
    if strategy in ("proposed", "unseen"):
        parts.append(
            f"case {p.case} has no label yet: a new case narrows the case-clustered interval"
            if in_case == 0
            else f"case {p.case} has {in_case} label(s); no case with fewer is left"
        )
    if strategy == "stratified":
        parts.append(
            f"judged '{p.judge}', the judged class with the fewest labels "
            f"({class_labels[p.judge]} labeled or proposed before it)"
        )
    if strategy == "proposed":
        share = population[p.judge] / sum(population.values())
        parts.append(
            f"judged '{p.judge}', keeping that class at its {share:.0%} share of all judged "
            f"items ({class_labels[p.judge]} labeled or proposed before it)"
        )
    return "; ".join(parts)


def propose_for_gold(
    gold: Path,
    verdicts: Path,
    *,
    rubric: Rubric,
    criterion: str,
    count: int,
    verdicts_b: Path | None = None,
    strategy: Strategy = DEFAULT_STRATEGY,
    seed: int = 0,
    split: str | None = "calibration",
    source: str | None = None,
) -> Proposals:
    """The proposal for one criterion of the gold folder ``gold`` (``source``: what errors call
    it when it is not the user's own folder, e.g. a workbench queue exported for this call):
    its items with a consensus label are the labeled set, the items of the split without one
    the pool; the judge's labels come from a recorded verdicts file (``verdicts_b``: a second
    judge version's, for ``disagree``). Items the judge abstained on (or has no row for) are
    left out and counted. Bad input raises one :class:`InputError` or :class:`ConfigError`
    line."""
    from ..errors import ConfigError
    from ..gold import load_gold, read_manifest
    from .explain import ABSTAIN

    ids = [c.id for c in rubric.criteria]
    if criterion not in ids:
        raise ConfigError(
            f"--criterion {criterion}: not a criterion of the rubric ({', '.join(ids)})"
        )
    if strategy not in STRATEGIES:
        raise ConfigError(f"--strategy {strategy}: unknown; one of {', '.join(STRATEGIES)}")
    if count < 1:
        raise ConfigError(f"--count must be at least 1, not {count}")
    if strategy == "disagree" and verdicts_b is None:
        raise ConfigError("--strategy disagree needs a second judge version's --verdicts-b")
    manifest_path = gold / "manifest.yaml"
    if not manifest_path.exists():
        raise InputError(manifest_path, "no gold manifest here")
    manifest = read_manifest(manifest_path)  # read once: the verdicts are checked against it
    known = (manifest, source or str(manifest_path))
    judged = _judged(verdicts, rubric, known, criterion)
    judged_b = None if verdicts_b is None else _judged(verdicts_b, rubric, known, criterion)
    loaded = load_gold(gold, split=split)
    loaded.validate(rubric)
    consensus = loaded.labels_by("consensus", criterion)
    in_split = [i for i, m in sorted(manifest.items()) if split in (None, m.split)]
    labeled, pool, left_out = [], [], 0
    for i in in_split:
        j = judged.get(i)
        usable = j is not None and j not in ABSTAIN
        if i in consensus:
            if usable and consensus[i] not in ABSTAIN:
                labeled.append(LabeledItem(i, manifest[i].case, j, consensus[i]))
        elif usable:
            b = None if judged_b is None else judged_b.get(i)
            pool.append(PoolItem(i, manifest[i].case, j, None if b in ABSTAIN else b))
        else:
            left_out += 1
    if not pool:
        raise InputError(
            gold / "manifest.yaml",
            f"no unlabeled item of split '{split or 'all'}' with a judge label on {criterion}: "
            "nothing to propose",
        )
    try:
        picks = propose(labeled, pool, count=count, strategy=strategy, seed=seed)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    return Proposals(
        criterion=criterion,
        strategy=strategy,
        seed=seed,
        labeled=ItemCount(items=len(labeled), cases=len({x.case for x in labeled})),
        pool=ItemCount(items=len(pool), cases=len({p.case for p in pool})),
        left_out_no_judge_label=left_out,
        proposed_new_cases=sum(1 for p in picks if p.new_case),
        proposals=[p.to_row() for p in picks],
    )


def _judged(
    path: Path, rubric: Rubric, known: tuple[Mapping[str, Any], str], criterion: str
) -> dict[str, Hashable]:
    """The judge's label per item on ``criterion``, from a verdicts file checked as
    ``calibrate --verdicts`` checks it."""
    from .recorded import check_verdicts, read_verdicts

    _, rows = read_verdicts(path)
    check_verdicts(rows, rubric=rubric, items=known[0], gold_name=known[1])
    return {r.item: r.label for r in rows if r.criterion == criterion}
