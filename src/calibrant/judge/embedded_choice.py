"""Answers whose JSON structure is fixed: the embedded model picks the values, writes nothing.

When the response schema is an object whose properties are all required, with no others, and
each property is an ``enum`` (or such an object again), every character of the answer is known
except the values. Generating that structure token by token under a grammar is most of the
embedded judge's time (~30 tokens/s). Here the structure is evaluated as forced text, in
batches, and each value is chosen by comparing the log-probabilities the model gives the tokens
of each allowed value (with the character that follows it, so that no value is a prefix of
another): the highest wins at temperature 0, and at a higher temperature values are sampled in
proportion to exp(log-probability / temperature), seeded by ``seed``. ``top_p`` is not used.

The answer is the same JSON a grammar would allow (keys in schema order, ``json.dumps``
spacing), so any parser of the schema reads it unchanged.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

__all__ = ["Choice", "choice_plan", "choose"]

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
    return tuple(plan)


def _log_softmax(llama: Any) -> np.ndarray:
    import llama_cpp

    logits = np.ctypeslib.as_array(
        llama_cpp.llama_get_logits_ith(llama._ctx.ctx, -1), shape=(llama.n_vocab(),)
    ).astype(np.float64)
    top = logits.max()
    return logits - top - math.log(float(np.exp(logits - top).sum()))  # type: ignore[no-any-return]


def choose(
    llama: Any,
    plan: tuple[str | Choice, ...],
    *,
    temperature: float,
    seed: int | None,
    stopped: Callable[[], bool],
) -> tuple[str, list[int]] | None:
    """Write the answer after the evaluated prompt: (text, its tokens), or None if `stopped()`
    said to give up. The model's last logits must be those of the prompt's last token."""
    rng = random.Random(seed)
    text, tokens = "", []
    pending: list[int] = []  # forced tokens not evaluated yet

    def tok(s: str) -> list[int]:
        return list(llama.tokenize(s.encode("utf-8"), add_bos=False, special=False))

    for step in plan:
        if isinstance(step, str):
            pending += tok(step)
            text += step
            continue
        if stopped():
            return None
        if pending:
            llama.eval(pending)
            tokens += pending
            pending = []
        base, first = llama.n_tokens, _log_softmax(llama)
        scores, option_tokens = [], []
        for option in step.options:
            ids = tok(option)
            total = float(first[ids[0]])
            for k in range(1, len(ids)):
                llama.n_tokens = base + k - 1
                llama.eval([ids[k - 1]])
                total += float(_log_softmax(llama)[ids[k]])
            scores.append(total)
            option_tokens.append(ids)
        if temperature > 0:
            top = max(scores)
            weights = [math.exp((s - top) / temperature) for s in scores]
            pick = rng.choices(range(len(scores)), weights=weights)[0]
        else:
            pick = scores.index(max(scores))
        llama.n_tokens = base
        pending = option_tokens[pick]
        text += step.options[pick]
    tokens += pending  # the last forced text needs no evaluation: nothing follows it
    return text, tokens
