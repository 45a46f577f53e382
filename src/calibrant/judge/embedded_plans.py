"""What the embedded model reads off a request's choice plans (embedded_choice): the options
that write one of some given values, and a fitted label prior put at each plan's branch points
(embedded_prior)."""

from __future__ import annotations

import json
import math
from typing import Any

from .embedded_choice import Choice
from .embedded_prior import LabelPrior, branch_prior
from .embedded_request import Request

Parts = tuple[tuple[str, tuple[str | Choice, ...]], ...]


def _options(plan: tuple[str | Choice, ...], values: tuple[str, ...]) -> dict[int, set[int]]:
    """Per choice of `plan`, the options that write one of the string `values`."""
    out: dict[int, set[int]] = {}
    for step, choice in enumerate(plan):
        if isinstance(choice, Choice):
            out[step] = {
                i
                for i, option in enumerate(choice.options)
                if any(option.lstrip('"').startswith(f'{v}"') for v in values)
            }
    return out


def _label_key(value: Any) -> str:
    """A label as a fitted prior names it: the string itself, an ordinal level as digits."""
    return value if isinstance(value, str) else json.dumps(value)


def _fitted_priors(llama: Any, request: Request, parts: Parts) -> dict[str, LabelPrior]:
    """The request's label-level prior (fitted on a reference set's own label probabilities)
    as each criterion's branch-point prior; a label it leaves out is not rebalanced."""
    assert request.label_prior is not None and request.schema_json is not None
    enums = json.loads(request.schema_json)["properties"]

    def tokenize(text: str) -> list[int]:
        return list(llama.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    out = {}
    for name, plan in parts:
        given = request.label_prior.get(name)
        if given:
            shares = [given.get(_label_key(v)) for v in enums[name]["enum"]]
            out[name] = branch_prior(
                plan, tokenize, [None if x is None else math.exp(x) for x in shares]
            )
    return out
