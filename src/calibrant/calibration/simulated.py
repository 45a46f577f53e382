"""Simulated judges with planted behaviour, for testing the tester: their judgments go through
exactly the same statistics and gate as a real judge's."""

from __future__ import annotations

import random
from datetime import UTC, datetime

from ..contracts import (
    INSUFFICIENT_EVIDENCE,
    CriterionJudgment,
    JudgeConfig,
    Judgment,
    Rubric,
)
from ..gold import CONSENSUS, GoldSet
from .recorded import verdict_judgment

__all__ = ["simulated_judgments", "BEHAVIOURS"]

BEHAVIOURS = (
    "consensus",
    "copy:<rater>",
    "flip:<criterion>:<rate>",
    "always-pass",
    "abstain:<rate>",
)


def simulated_judgments(
    gold: GoldSet, rubric: Rubric, behaviour: str, *, seed: int = 0
) -> tuple[JudgeConfig, dict[str, Judgment]]:
    """Judgments a planted judge would give on every gold item.

    consensus: the consensus labels; copy:R: rater R's labels; flip:C:P: the consensus with a
    fraction P of criterion C's labels changed to another level; always-pass: the best level of
    every criterion; abstain:P: the consensus, but insufficient_evidence on a fraction P of
    items (all criteria)."""
    rng = random.Random(f"{seed}:{behaviour}")
    kind, _, arg = behaviour.partition(":")
    items = gold.item_ids
    labels = {c.id: dict(gold.labels_by(CONSENSUS, c.id)) for c in rubric.criteria}
    if kind == "copy":
        if arg not in gold.experts:
            raise ValueError(f"no rater {arg!r}; raters: {sorted(gold.experts)}")
        labels = {c.id: dict(gold.labels_by(arg, c.id)) for c in rubric.criteria}
    elif kind == "flip":
        crit, _, rate = arg.partition(":")
        c = rubric.criterion(crit)
        chosen = rng.sample(items, round(float(rate) * len(items)))
        for i in chosen:
            others = [v for v in c.allowed_labels() if str(v) != str(labels[crit].get(i))]
            labels[crit][i] = rng.choice(others)
    elif kind == "always-pass":
        labels = {c.id: {i: c.scale.levels[-1].value for i in items} for c in rubric.criteria}
    elif kind == "abstain":
        for i in rng.sample(items, round(float(arg) * len(items))):
            for c in rubric.criteria:
                labels[c.id][i] = INSUFFICIENT_EVIDENCE
    elif kind != "consensus":
        raise ValueError(f"unknown simulated behaviour {behaviour!r}; known: {BEHAVIOURS}")
    config = JudgeConfig(
        model=f"simulated/{behaviour}",
        prompt_template_version="simulated",
        rubric_hash=rubric.content_hash,
        seed=seed,
    )
    now = datetime.now(UTC)
    out = {}
    for i in items:
        out[i] = verdict_judgment(
            config,
            gold,
            i,
            [
                CriterionJudgment(
                    criterion=c.id, label=labels[c.id][i], rationale=f"planted: {behaviour}"
                )
                for c in rubric.criteria
                if i in labels[c.id]
            ],
            now,
        )
    return config, out
