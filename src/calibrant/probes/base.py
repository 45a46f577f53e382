"""What every probe shares: the settings, the context (gold set, rubric, chosen items), a
request to judge one variant, and how labels are placed on a criterion's scale."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Literal

from ..agreement.intervals import Figure as IntervalFigure
from ..agreement.robustness import PROBE_MIN_CASES
from ..contracts import Criterion, Rubric, Transcript
from ..contracts.reports import Figure
from ..gold import CONSENSUS, GoldSet

__all__ = [
    "PROMPTS",
    "Answer",
    "AttackContext",
    "ProbeContext",
    "ProbeSettings",
    "Request",
    "rank",
    "is_failure",
    "clean_request",
    "part",
]

Prompt = Literal["defended", "naive", "evidence-reversed"]
PROMPTS: tuple[Prompt, ...] = ("defended", "naive", "evidence-reversed")
Answer = dict[str, str | int] | None
"""A judge's labels by criterion, or None when the judge gave no verdict (a failure outcome)."""


@dataclass(frozen=True)
class Request:
    """One variant to judge: `key` names it (variant|prompt|item|sample) and is shared by the
    probes that need the same answer."""

    key: str
    item: str
    variant: str
    transcript: Transcript
    prompt: Prompt = "defended"
    sample: int = 0


@dataclass(frozen=True)
class ProbeSettings:
    """What to run and how to decide (all configurable from `calibrant probe`)."""

    probes: tuple[str, ...]
    families: tuple[str, ...]
    channels: tuple[str, ...] = ("agent", "note")
    defenses: Literal["both", "on"] = "both"
    k: int = 3
    margin: float = 0.10
    min_items: int = 10
    min_cases: int = PROBE_MIN_CASES
    max_items: int | None = None
    seed: int = 0


@dataclass(frozen=True)
class AttackContext:
    """What an attack family may use to write its text: the clean transcript and the rubric."""

    transcript: Transcript
    rubric: Rubric
    channel: str


def rank(c: Criterion, label: object) -> int | None:
    """The position of `label` on the criterion's scale (0 = worst), or None for labels off
    the scale (not_applicable, insufficient_evidence)."""
    for n, level in enumerate(c.scale.levels):
        if str(level.value) == str(label):
            return n
    return None


def is_failure(c: Criterion, label: object) -> bool:
    """A label in the lower half of the scale (fail; 1-2 of 1-4; the middle of an odd scale
    counts as passing)."""
    r = rank(c, label)
    return r is not None and r < len(c.scale.levels) // 2


@dataclass
class ProbeContext:
    """The gold items a probe run uses, with their consensus labels."""

    gold: GoldSet
    rubric: Rubric
    settings: ProbeSettings
    items: list[str] = field(default_factory=list)  # every item of the split, sorted
    _consensus: dict[str, dict[str, str | int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.items = self.gold.item_ids
        for c in self.rubric.criteria:
            for item, label in self.gold.labels_by(CONSENSUS, c.id).items():
                self._consensus.setdefault(item, {})[c.id] = label

    @property
    def prompts(self) -> tuple[Prompt, ...]:
        return ("defended", "naive") if self.settings.defenses == "both" else ("defended",)

    def consensus(self, item: str) -> dict[str, str | int]:
        return self._consensus.get(item, {})

    def failures(self, item: str) -> list[str]:
        """The criteria the consensus marks as failed on this item."""
        labels = self.consensus(item)
        return [
            c.id for c in self.rubric.criteria if c.id in labels and is_failure(c, labels[c.id])
        ]

    def _choose(self, pool: list[str], salt: str) -> list[str]:
        n = self.settings.max_items
        if n is None or n >= len(pool):
            return pool
        return sorted(random.Random(f"{self.settings.seed}:{salt}").sample(pool, n))

    def failure_items(self) -> list[str]:
        """Items with at least one failed criterion (up to max_items, a seeded sample)."""
        return self._choose([i for i in self.items if self.failures(i)], "failures")

    def bias_items(self) -> list[str]:
        """Items for the bias probes (up to max_items, a seeded sample)."""
        return self._choose(list(self.items), "bias")


def clean_request(
    ctx: ProbeContext, item: str, prompt: Prompt = "defended", sample: int = 0
) -> Request:
    return Request(
        key=f"clean|{prompt}|{item}|{sample}",
        item=item,
        variant="clean",
        transcript=ctx.gold.transcripts[item],
        prompt=prompt,
        sample=sample,
    )


def part(f: IntervalFigure) -> Figure:
    """An interval figure as the report's part (what a probe's result quotes)."""
    return f.as_figure()
