"""The design of an audit sample: which scored transcripts of a score run experts label after
release, and with what probability each was drawn.

Two phases, each with a known probability, so every audited item carries its inclusion
probability and a rate measured on the sample can be weighted back to the run:

1. **Cases** (the unit): from each case keep at most ``per_case`` of its scored transcripts, drawn
   at random; an item of a case with ``M`` transcripts is kept with probability
   ``min(per_case, M) / M``.
2. **Verdicts**: the kept items are grouped into strata by the judge's verdict — the labels of
   the stratifying criteria together (``accuracy=pass|tone=fail``; by default the pass/fail
   criteria: an ordinal scale's levels would leave one item per stratum), or ``failed`` when
   the judge gave no verdict — and ``n`` items are allocated to the strata in proportion to
   their size (largest remainder), each stratum that has items getting at least one while
   ``n`` allows; each stratum is drawn by simple random sampling, an item with probability
   ``n_h / K_h`` (``K_h`` kept items in the stratum). When ``n`` is below the number of strata
   (many verdict combinations, a small audit), some strata would get no item, and their items
   no chance: the kept items are then put in a line by stratum (random order within) and drawn
   by a systematic sample with a random start (implicit stratification): each stratum gets
   the floor or the ceiling of its proportional share, every kept item probability ``n / K``.

An item's inclusion probability is the product of the two (the second given the first: the
double-expansion weight ``1 / probability`` is unbiased for two-phase sampling). Everything is
drawn from one ``random.Random(seed)`` over inputs in a fixed order: the same seed on the same
run gives the same sample."""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["Scored", "Drawn", "Stratum", "AuditDesign", "stratum_of", "draw_sample"]

FAILED = "failed"


@dataclass(frozen=True)
class Scored:
    """One scored transcript of the run: its position in the run, case, and the judge's labels
    (criterion -> label; None for a criterion the judge did not label)."""

    position: int
    transcript_id: str
    case_id: str
    outcome: str
    labels: Mapping[str, str | int | None]


@dataclass(frozen=True)
class Drawn:
    """A scored transcript drawn into the sample, with its probabilities."""

    scored: Scored
    stratum: str
    case_probability: float  # phase 1: kept from its case
    stratum_probability: float  # phase 2: drawn from its stratum, given phase 1

    @property
    def inclusion_probability(self) -> float:
        return self.case_probability * self.stratum_probability


@dataclass(frozen=True)
class Stratum:
    name: str
    population: int  # scored transcripts of the run in it
    kept: int  # after the per-case cap
    drawn: int


@dataclass(frozen=True)
class AuditDesign:
    target: int  # items asked for (from --count, or rate x the run's transcripts)
    items: tuple[Drawn, ...]
    strata: tuple[Stratum, ...]
    population: int
    kept: int
    cases: int  # cases of the run
    systematic: bool = False  # phase 2 was the systematic sample (fewer items than strata)

    @property
    def drawn_cases(self) -> int:
        return len({d.scored.case_id for d in self.items})


def stratum_of(row: Scored, criteria: Sequence[str]) -> str:
    """The stratum of a scored transcript: its verdict on `criteria`, or `failed`."""
    if row.outcome != "verdict":
        return FAILED
    return "|".join(f"{c}={row.labels.get(c)}" for c in criteria)


def _allocate(n: int, sizes: dict[str, int]) -> dict[str, int]:
    """`n` items over strata of `sizes`: proportional (largest remainder), at least one for
    every non-empty stratum while `n` allows, never more than a stratum holds."""
    total = sum(sizes.values())
    names = sorted(sizes)
    if n >= total:
        return dict(sizes)
    quota = {s: n * sizes[s] / total for s in names}
    alloc = {s: math.floor(quota[s]) for s in names}
    by_remainder = sorted(names, key=lambda s: (-(quota[s] - alloc[s]), s))
    for s in by_remainder[: n - sum(alloc.values())]:
        alloc[s] += 1
    empty = [s for s in names if sizes[s] and not alloc[s]]
    for s in sorted(empty, key=lambda s: (-sizes[s], s)):
        donor = max((d for d in names if alloc[d] > 1), key=lambda d: (alloc[d], d), default=None)
        if donor is None:
            break
        alloc[donor] -= 1
        alloc[s] += 1
    return alloc


def draw_sample(
    rows: Sequence[Scored],
    criteria: Sequence[str],
    *,
    seed: int,
    rate: float | None = None,
    count: int | None = None,
    per_case: int = 2,
) -> AuditDesign:
    """The sample (see the module docstring): `rate` of the run's transcripts, or `count`."""
    if (rate is None) == (count is None):
        raise ValueError("give a rate or a count")
    if rate is not None and not 0 < rate <= 1:
        raise ValueError(f"rate {rate} is not in (0, 1]")
    if count is not None and count <= 0:
        raise ValueError(f"count {count} is not positive")
    if per_case < 1:
        raise ValueError(f"per_case {per_case} is not positive")
    rng = random.Random(seed)
    ordered = sorted(rows, key=lambda r: r.position)
    target = count if count is not None else math.ceil((rate or 0) * len(ordered))
    by_case: dict[str, list[Scored]] = defaultdict(list)
    for r in ordered:
        by_case[r.case_id].append(r)
    kept: list[tuple[Scored, float]] = []
    for case in sorted(by_case):
        members = by_case[case]
        chosen = (
            members
            if len(members) <= per_case
            else sorted(rng.sample(members, per_case), key=lambda r: r.position)
        )
        p = min(per_case, len(members)) / len(members)
        kept.extend((r, p) for r in chosen)
    population: dict[str, int] = defaultdict(int)
    for r in ordered:
        population[stratum_of(r, criteria)] += 1
    strata: dict[str, list[tuple[Scored, float]]] = defaultdict(list)
    for r, p in kept:
        strata[stratum_of(r, criteria)].append((r, p))
    n = min(target, len(kept))
    items: list[Drawn] = []
    if n >= len(strata):
        alloc = _allocate(n, {s: len(v) for s, v in strata.items()})
        for s in sorted(strata):
            pool = strata[s]
            take = alloc.get(s, 0)
            for r, p in rng.sample(pool, take):
                items.append(Drawn(r, s, p, take / len(pool)))
        systematic = False
    else:  # fewer items than strata: implicit stratification, every kept item at n / kept
        line: list[tuple[str, Scored, float]] = []
        for s in sorted(strata):
            pool = list(strata[s])
            rng.shuffle(pool)
            line.extend((s, r, p) for r, p in pool)
        step = len(line) / n
        start = rng.random() * step
        for i in range(n):
            s, r, p = line[int(start + i * step)]
            items.append(Drawn(r, s, p, n / len(line)))
        alloc = {s: sum(1 for d in items if d.stratum == s) for s in strata}
        systematic = True
    items.sort(key=lambda d: d.scored.position)
    return AuditDesign(
        target=target,
        items=tuple(items),
        strata=tuple(
            Stratum(s, population[s], len(strata.get(s, [])), alloc.get(s, 0))
            for s in sorted(population)
        ),
        population=len(ordered),
        kept=len(kept),
        cases=len(by_case),
        systematic=systematic,
    )
