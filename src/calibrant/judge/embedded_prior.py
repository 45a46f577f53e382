"""Contextual calibration of the embedded judge's label choices ("Calibrate Before Use", Zhao et
al. 2021).

A small model prefers some labels whatever it reads (SmolLM2-135M answered ``fail`` on every
calibration item for three of five criteria). Measured on the held-out split, rebalancing did
not raise its kappa (benchmarks/results/embedded_calibration.md): it is an option, not the
default. The prior is measured on *content-free* inputs:
the same prompt with the evidence and the conversation replaced by ``N/A`` or by nothing. At
every point where the allowed labels' tokens branch, the content-free log-probabilities of the
branching tokens (renormalized over them) are the prior; an item's own log-probabilities minus
the prior (``W = diag(p_cf)^-1`` on the probabilities) decide the label. The content-free
inputs are averaged in probability.

With ``label_scoring: calibrated`` the judge picks each criterion's label on its own, right
after the prompt (embedded.py), so a criterion's prior is one content-free answer per input:
a handful of evaluations, once per model, content-free prompts and answer schema (the rubric
and the prompt version are in both), kept in memory and in a JSON file beside the saved prompt
states (see embedded_state).
``enumerate_prior`` also serves a joint answer, where a label follows the ones before it: it
walks every path of earlier labels, each branch point keyed by the answer's tokens before it
(238 points for the shipped rubric, about 4 minutes on two cores: why labels are picked on
their own); past ``MAX_POINTS`` a point not reached gets the prior of the same position on the
content-free input's most likely path.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

__all__ = [
    "LabelPrior",
    "MAX_POINTS",
    "enumerate_prior",
    "average_priors",
    "PriorFiles",
    "option_probabilities",
    "branch_prior",
]

MAX_POINTS = 1024
"""Branch points enumerated per content-free input, beyond which the prior is by position."""

Key = tuple[int, ...]
Position = tuple[int, Key]  # (choice index in the answer, tokens of the label before the point)


def log_softmax(values: Sequence[float]) -> list[float]:
    top = max(values)
    total = math.log(sum(math.exp(v - top) for v in values))
    return [v - top - total for v in values]


class PriorJson(TypedDict):
    """A prior as its file holds it: [answer prefix, [[token, log-probability], ...]] per exact
    branch point, [choice index, prefix, pairs] per position (read back by `from_json`)."""

    exact: list[list[Any]]
    by_position: list[list[Any]]


@dataclass
class LabelPrior:
    """Content-free log-probabilities of the branching tokens, by answer prefix and position."""

    exact: dict[Key, dict[int, float]] = field(default_factory=dict)
    by_position: dict[Position, dict[int, float]] = field(default_factory=dict)

    def lookup(self, key: Key, position: Position) -> Mapping[int, float] | None:
        """The prior at this branch point: the exact answer prefix, else the same position."""
        found = self.exact.get(key)
        return found if found is not None else self.by_position.get(position)

    def to_json(self) -> PriorJson:
        return {
            "exact": [[list(k), _pairs(v)] for k, v in self.exact.items()],
            "by_position": [[p[0], list(p[1]), _pairs(v)] for p, v in self.by_position.items()],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> LabelPrior:
        return cls(
            exact={tuple(k): {int(t): float(x) for t, x in v} for k, v in data["exact"]},
            by_position={
                (int(i), tuple(k)): {int(t): float(x) for t, x in v}
                for i, k, v in data["by_position"]
            },
        )


def _pairs(scores: Mapping[int, float]) -> list[list[float]]:
    return [[t, x] for t, x in sorted(scores.items())]


def calibrated(
    scores: Sequence[float], tokens: Sequence[int], prior: Mapping[int, float] | None
) -> list[float]:
    """The branching tokens' log-probabilities renormalized over them, minus the prior's: the
    rebalanced scores whose argmax (or softmax at a temperature) picks the token."""
    own = log_softmax(scores)
    if prior is None:
        return own
    return [s - prior.get(t, 0.0) for s, t in zip(own, tokens, strict=True)]


def enumerate_prior(
    plan: Sequence[Any],
    tokenize: Callable[[str], list[int]],
    logits_after: Callable[[Key], Any],
    *,
    unbalanced: Mapping[int, set[int]] | None = None,
    max_points: int = MAX_POINTS,
) -> LabelPrior:
    """Walk every path of labels through `plan` (choice_plan's forced texts and choices) after a
    content-free prompt: `logits_after(key)` gives the model's logits after the answer tokens
    `key`. Branches are visited most likely first, so the first visit of a position is on the
    content-free input's most likely path. `unbalanced`: per plan step, the options whose prior
    is left out (their branching tokens are not rebalanced: an abstention, whose tiny prior
    would otherwise make it win)."""
    prior = LabelPrior()
    unbalanced = unbalanced or {}

    def forced(step: int, key: Key) -> None:
        while step < len(plan) and isinstance(plan[step], str):
            key += tuple(tokenize(plan[step]))
            step += 1
        if step < len(plan):
            options = [tokenize(o) for o in plan[step].options]
            branch(step, key, options, list(range(len(options))), 0)

    def branch(step: int, key: Key, options: list[list[int]], alive: list[int], depth: int) -> None:
        if len(alive) == 1:  # the label is decided: its remaining tokens are forced
            forced(step + 1, key + tuple(options[alive[0]][depth:]))
            return
        if [i for i in alive if len(options[i]) == depth]:  # as _pick: the shorter one ends here
            forced(step + 1, key)
            return
        heads = sorted({options[i][depth] for i in alive})
        order = heads
        if len(heads) > 1:
            position = (step, key[len(key) - depth :] if depth else ())
            if len(prior.exact) >= max_points:
                if position in prior.by_position:
                    return  # enumeration stopped: this position's prior is known already
            logits = logits_after(key)
            scores = dict(zip(heads, log_softmax([float(logits[t]) for t in heads]), strict=True))
            order = sorted(heads, key=lambda t: -scores[t])
            skip = unbalanced.get(step, set())
            for head in heads:
                if all(i in skip for i in alive if options[i][depth] == head):
                    del scores[head]
            prior.exact[key] = scores
            prior.by_position.setdefault(position, scores)
        for head in order:
            sub = [i for i in alive if options[i][depth] == head]
            branch(step, key + (head,), options, sub, depth + 1)

    forced(0, ())
    return prior


def average_priors(priors: Iterable[LabelPrior]) -> LabelPrior:
    """Several content-free inputs' priors averaged in probability (as Zhao et al.)."""
    priors = list(priors)
    out = LabelPrior()
    for name in ("exact", "by_position"):
        merged: dict[Any, dict[int, list[float]]] = {}
        for p in priors:
            for k, scores in getattr(p, name).items():
                for t, x in scores.items():
                    merged.setdefault(k, {}).setdefault(t, []).append(math.exp(x))
        table = getattr(out, name)
        for k, per_token in merged.items():
            if all(len(v) == len(priors) for v in per_token.values()):
                total = sum(sum(v) for v in per_token.values())
                table[k] = {t: math.log(sum(v) / total) for t, v in per_token.items()}
    return out


def _single_choice(plan: Sequence[Any], tokenize: Callable[[str], list[int]]) -> tuple[int, Key]:
    """The index of a one-label plan's choice, and the forced tokens before it."""
    before: Key = ()
    for step, part in enumerate(plan):
        if not isinstance(part, str):
            if any(not isinstance(rest, str) for rest in plan[step + 1 :]):
                raise ValueError("a label prior needs a plan with one choice")
            return step, before
        before += tuple(tokenize(part))
    raise ValueError("a label prior needs a plan with one choice")


def option_probabilities(
    plan: Sequence[Any], tokenize: Callable[[str], list[int]], measured: LabelPrior
) -> list[float]:
    """Each option's probability under constrained decoding, for a plan with one choice (one
    criterion's label), from the branch points `enumerate_prior` measured on an item's own
    prompt: the product of the branching tokens' renormalized probabilities along the option's
    path. An option that another one is a prefix of is never reached (as in ``_pick``)."""
    step, before = _single_choice(plan, tokenize)
    options = [tokenize(o) for o in plan[step].options]
    out = [0.0] * len(options)

    def walk(alive: list[int], depth: int, mass: float) -> None:
        if len(alive) == 1:
            out[alive[0]] += mass
            return
        done = [i for i in alive if len(options[i]) == depth]
        if done:
            out[done[0]] += mass
            return
        heads = sorted({options[i][depth] for i in alive})
        if len(heads) == 1:
            walk(alive, depth + 1, mass)
            return
        scores = measured.exact[before + tuple(options[alive[0]][:depth])]
        for head in heads:
            sub = [i for i in alive if options[i][depth] == head]
            walk(sub, depth + 1, mass * math.exp(scores[head]))

    walk(list(range(len(options))), 0, 1.0)
    return out


def branch_prior(
    plan: Sequence[Any], tokenize: Callable[[str], list[int]], prior: Sequence[float | None]
) -> LabelPrior:
    """A label-level prior (each option's probability, None for an option left out of the
    rebalancing) as the branch-point prior ``_pick`` subtracts, for a plan with one choice: at
    each point where the options' tokens branch, a branching token's prior is the share of the
    options below it among those still alive. A token whose options are all left out gets no
    prior (its score is not rebalanced)."""
    step, _ = _single_choice(plan, tokenize)
    options = [tokenize(o) for o in plan[step].options]
    out = LabelPrior()

    def walk(alive: list[int], depth: int) -> None:
        if len(alive) == 1 or any(len(options[i]) == depth for i in alive):
            return
        heads = sorted({options[i][depth] for i in alive})
        if len(heads) > 1:
            kept = {h: [prior[i] for i in alive if options[i][depth] == h] for h in heads}
            total = sum(p for ps in kept.values() for p in ps if p is not None)
            scores = {
                h: math.log(sum(p for p in ps if p is not None) / total)
                for h, ps in kept.items()
                if total > 0 and any(p is not None and p > 0 for p in ps)
            }
            out.by_position[(step, tuple(options[alive[0]][:depth]))] = scores
        for head in heads:
            walk([i for i in alive if options[i][depth] == head], depth + 1)

    walk(list(range(len(options))), 0)
    return out


class PriorFiles:
    """Each criterion's prior, kept in memory and in a JSON file per model, content-free prompts
    and answer schema."""

    def __init__(self, folder: Path | None, identity: str) -> None:
        self.folder = folder
        self.identity = identity
        self._memory: dict[str, dict[str, LabelPrior]] = {}

    def key(self, prompts: Sequence[Sequence[int]], schema_json: str, unbalanced: str = "") -> str:
        digest = hashlib.sha256(f"{self.identity}\n{schema_json}\n{unbalanced}\n".encode())
        for tokens in prompts:
            digest.update(json.dumps(list(tokens)).encode("ascii") + b"\n")
        return digest.hexdigest()[:32]

    def get(self, key: str) -> dict[str, LabelPrior] | None:
        if key in self._memory:
            return self._memory[key]
        if self.folder is None:
            return None
        try:
            data = json.loads((self.folder / f"{key}.prior.json").read_text())
            priors = {name: LabelPrior.from_json(p) for name, p in data.items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None
        self._memory[key] = priors
        return priors

    def put(self, key: str, priors: dict[str, LabelPrior]) -> None:
        """Keep `priors`; a file that cannot be written costs only the next process's time."""
        self._memory[key] = priors
        if self.folder is None:
            return
        path = self.folder / f"{key}.prior.json"
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            data = {name: p.to_json() for name, p in priors.items()}
            tmp.write_text(json.dumps(data, separators=(",", ":")))
            os.replace(tmp, path)
        except OSError:
            tmp.unlink(missing_ok=True)
