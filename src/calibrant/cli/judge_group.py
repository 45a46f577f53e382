"""The judge option group, defined once: `--model`, `--api-base`, `--rubric`, `--domain`,
`--judge`, `--concurrency`, `--timeout`, `--max-attempts`. A command that judges declares one
parameter, `judge: JudgeOptions = JUDGE_GROUP`, and `@judge_group(...)` names which of the
group's options it offers; in `--help` they stand where that parameter stands, in the group's
order, and the command receives them as one `JudgeOptions` (None: not given)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from .app import (
    ApiBaseOpt,
    AttemptsOpt,
    ConcurrencyOpt,
    DomainOpt,
    JudgeOpt,
    ModelOpt,
    RubricOpt,
    TimeoutOpt,
    judge_options,
)

__all__ = ["ALL", "JUDGE_GROUP", "judge_group"]

GROUP: dict[str, Any] = {
    "model": ModelOpt,
    "api_base": ApiBaseOpt,
    "rubric": RubricOpt,
    "domain": DomainOpt,
    "judge_name": JudgeOpt,
    "concurrency": ConcurrencyOpt,
    "timeout": TimeoutOpt,
    "max_attempts": AttemptsOpt,
}
"""Each option of the group, by its parameter name, in the order `--help` shows them."""
ALL = tuple(GROUP)
JUDGE_GROUP: Any = None
"""The default of a command's `judge: JudgeOptions` parameter: where the group's options go
(the decorator replaces it, so no command ever sees this value)."""

F = TypeVar("F", bound=Callable[..., Any])


def judge_group(*names: str, into: str = "judge") -> Callable[[F], F]:
    """Give the command the group's options `names` (default: all of them) in place of its
    parameter `into`, which receives them as one `JudgeOptions`."""
    offered = tuple(n for n in GROUP if n in (names or ALL))
    unknown = set(names) - set(GROUP)
    if unknown:
        raise ValueError(f"not in the judge option group: {sorted(unknown)}")

    def wrap(command: F) -> F:
        signature = inspect.signature(command)
        # the command's own annotations, evaluated (`into`'s type may be known to type checkers
        # only: it is replaced, never read)
        params = [
            p if p.name == into else p.replace(annotation=_evaluated(p.annotation, command))
            for p in signature.parameters.values()
        ]
        at = [p.name for p in params].index(into)
        group = [
            inspect.Parameter(
                n, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None, annotation=GROUP[n]
            )
            for n in offered
        ]
        params[at : at + 1] = group

        @functools.wraps(command)
        def run(**kwargs: Any) -> Any:
            given = {n: kwargs.pop(n) for n in offered}
            kwargs[into] = judge_options(
                given.get("model"),
                given.get("api_base"),
                given.get("rubric"),
                given.get("judge_name"),
                given.get("concurrency"),
                given.get("timeout"),
                given.get("max_attempts"),
                domain=given.get("domain"),
            )
            return command(**kwargs)

        run.__signature__ = signature.replace(parameters=params, return_annotation=None)  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation for p in params}
        del run.__wrapped__  # typer reads the signature above, not the command's own
        return run  # type: ignore[return-value]

    return wrap


def _evaluated(annotation: Any, command: Callable[..., Any]) -> Any:
    if not isinstance(annotation, str):
        return annotation
    return eval(annotation, command.__globals__)  # noqa: S307 (the module's own source)
