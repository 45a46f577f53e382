"""Answers whose JSON structure is fixed: the embedded model picks the values, writes nothing.

When the response schema is an object whose properties are all required, with no others, and
each property is an ``enum`` (or such an object again), every character of the answer is known
except the values. Generating that structure token by token under a grammar is most of the
embedded judge's time (~30 tokens/s). Here the structure is evaluated as forced text, in
batches (the values' common prefix, such as the opening quote, too), and each value is chosen
where the allowed values' tokens branch, by comparing the log-probabilities the model gives the
branching tokens, renormalized over them as constrained decoding does: the highest wins at
temperature 0, and at a higher temperature a token is sampled in proportion to
exp(log-probability / temperature), seeded by ``seed``. Usually the values differ in their
first token, so a choice costs no evaluation beyond the forced text. ``top_p`` is not used.

The answer is the same JSON a grammar would allow (keys in schema order, ``json.dumps``
spacing), so any parser of the schema reads it unchanged.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from .embedded_prior import LabelPrior, calibrated

if TYPE_CHECKING:  # imported with the model (llama_cpp needs it anyway), not with litellm
    import numpy as np

__all__ = ["Choice", "choice_plan", "criterion_plans", "choose", "read_logits"]

_ENUM_KEYS = {"enum", "type", "title", "description"}
_OBJECT_KEYS = {"type", "properties", "required", "additionalProperties", "title", "description"}


@dataclass(frozen=True)
class Choice:
    """One value to pick: the JSON text of each allowed value, and the forced text after it."""

    options: tuple[str, ...]
    after: str


def _walk(schema: Any, out: list[str | Choice]) -> bool:
    if not isinstance(schema, Mapping):
        return False
    if "enum" in schema and set(schema) <= _ENUM_KEYS:
        values = schema["enum"]
        if not values or len(values) != len(set(map(json.dumps, values))):
            return False
        out.append(Choice(tuple(json.dumps(v, ensure_ascii=False) for v in values), ""))
        return True
    props = schema.get("properties")
    if (
        set(schema) <= _OBJECT_KEYS
        and schema.get("type", "object") == "object"
        and isinstance(props, Mapping)
        and props
        and schema.get("additionalProperties") is False
        and set(schema.get("required") or []) == set(props)
    ):
        out.append("{")
        for i, (key, sub) in enumerate(props.items()):
            out.append(("" if i == 0 else ", ") + json.dumps(key, ensure_ascii=False) + ": ")
            if not _walk(sub, out):
                return False
        out.append("}")
        return True
    return False


@lru_cache(maxsize=64)
def choice_plan(schema_json: str) -> tuple[str | Choice, ...] | None:
    """The answer as forced texts and choices, or None when the schema leaves more open."""
    steps: list[str | Choice] = []
    if not _walk(json.loads(schema_json), steps):
        return None
    plan: list[str | Choice] = []
    for step in steps:  # merge forced texts, and give each choice the character after it
        if isinstance(step, str) and plan and isinstance(plan[-1], str):
            plan[-1] += step
        elif isinstance(step, str) and plan and isinstance(plan[-1], Choice):
            last = plan[-1]
            plan[-1] = Choice(tuple(o + step[:1] for o in last.options), "")
            if step[1:]:
                plan.append(step[1:])
        else:
            plan.append(step)
    out: list[str | Choice] = []
    for step in plan:  # the options' common prefix (the opening quote) is forced text too
        if isinstance(step, Choice):
            common = os.path.commonprefix(list(step.options))
            if common and all(len(o) > len(common) for o in step.options):
                if out and isinstance(out[-1], str):
                    out[-1] += common
                else:
                    out.append(common)
                step = Choice(tuple(o[len(common) :] for o in step.options), "")
        out.append(step)
    return tuple(out)


@lru_cache(maxsize=64)
def criterion_plans(schema_json: str) -> tuple[tuple[str, tuple[str | Choice, ...]], ...] | None:
    """One plan per property of an object schema whose properties each have a plan: the
    answer ``{"key": value}`` for that property alone, so each value is picked right after the
    prompt, not after the values before it. None when the schema has no such split."""
    schema = json.loads(schema_json)
    if choice_plan(schema_json) is None or not isinstance(schema.get("properties"), Mapping):
        return None
    out = []
    for key, sub in schema["properties"].items():
        alone = {"type": "object", "properties": {key: sub}, "required": [key]}
        plan = choice_plan(json.dumps({**alone, "additionalProperties": False}, sort_keys=True))
        if plan is None:
            return None
        out.append((key, plan))
    return tuple(out)


def read_logits(llama: Any) -> np.ndarray:
    """The model's logits after its last evaluated token."""
    import llama_cpp
    import numpy as np

    return np.ctypeslib.as_array(
        llama_cpp.llama_get_logits_ith(llama._ctx.ctx, -1), shape=(llama.n_vocab(),)
    ).astype(np.float64)


def _pick(
    llama: Any,
    options: list[list[int]],
    temperature: float,
    rng: random.Random,
    *,
    at: tuple[tuple[int, ...], int] = ((), 0),
    prior: LabelPrior | None = None,
    logits_of: Callable[[Any], Any] = read_logits,
) -> tuple[int, int]:
    """Descend the options' token trie from the evaluated position: at each point where they
    branch, compare the model's log-probabilities of the branching tokens (renormalized over
    them, as constrained decoding does; minus the content-free `prior` there, if one is given)
    and keep the best, or sample at `temperature`. `at`: the answer's tokens before the options
    and the choice's index in the plan (where the prior is looked up). Returns (option index,
    how many of its tokens were evaluated on the way)."""
    import numpy as np

    before, step = at
    alive, depth, logits = list(range(len(options))), 0, logits_of(llama)
    while len(alive) > 1:
        done = [i for i in alive if len(options[i]) == depth]
        if done:  # an option ended where others go on: tokenization made it a prefix
            return done[0], depth
        branches = sorted({options[i][depth] for i in alive})
        if len(branches) > 1:
            raw = [float(logits[t]) for t in branches]
            if prior is not None:
                inside = tuple(options[alive[0]][:depth])
                raw = calibrated(raw, branches, prior.lookup(before + inside, (step, inside)))
            scores = np.array(raw)
            if temperature > 0:
                weights = np.exp((scores - scores.max()) / temperature)
                token = branches[rng.choices(range(len(branches)), weights=list(weights))[0]]
            else:
                token = branches[int(np.argmax(scores))]
            alive = [i for i in alive if options[i][depth] == token]
            if len(alive) == 1:
                break
        llama.eval([options[alive[0]][depth]])  # shared by every option still alive
        depth += 1
        logits = logits_of(llama)
    return alive[0], depth


def choose(
    llama: Any,
    plan: tuple[str | Choice, ...],
    *,
    temperature: float,
    seed: int | None,
    stopped: Callable[[], bool],
    prior: LabelPrior | None = None,
    logits_of: Callable[[Any], Any] = read_logits,
) -> tuple[str, list[int]] | None:
    """Write the answer after the evaluated prompt: (text, its tokens), or None if `stopped()`
    said to give up. The model's last logits must be those of the prompt's last token.
    `prior`: the content-free label prior to rebalance each choice by (see embedded_prior)."""
    rng = random.Random(seed)
    text, tokens = "", list[int]()
    pending: list[int] = []  # forced tokens not evaluated yet

    def tok(s: str) -> list[int]:
        return list(llama.tokenize(s.encode("utf-8"), add_bos=False, special=False))

    for index, step in enumerate(plan):
        if isinstance(step, str):
            pending += tok(step)
            text += step
            continue
        if stopped():
            return None
        options = [tok(o) for o in step.options]
        at = (tuple(tokens + pending), index)
        if pending:
            llama.eval(pending)
            tokens += pending
        pick, evaluated = _pick(
            llama, options, temperature, rng, at=at, prior=prior, logits_of=logits_of
        )
        tokens += options[pick][:evaluated]
        pending = options[pick][evaluated:]
        text += step.options[pick]
    tokens += pending  # the last forced text needs no evaluation: nothing follows it
    return text, tokens
