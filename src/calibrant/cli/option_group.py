"""Option groups: several options of a command received as one value. A command declares one
parameter, `gate: GateSettings = GROUP`, and the decorator `option_group(options, build,
into="gate")` puts the group's options in its place: in `--help` they stand where that parameter
stands, in the group's order, and the command receives `build(**given)` (the judge options have
their own group, cli/judge_group.py)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

__all__ = ["GROUP", "option_group"]

GROUP: Any = None
"""The default of the parameter a group replaces (the decorator removes it: no command sees it)."""

F = TypeVar("F", bound=Callable[..., Any])


def option_group(
    options: Mapping[str, tuple[Any, Any]], build: Callable[..., Any], *, into: str
) -> Callable[[F], F]:
    """Give the command the options `options` (parameter name: (annotation, default)) in place
    of its parameter `into`, which receives `build(**given)`."""

    def wrap(command: F) -> F:
        signature = inspect.signature(command)
        params = [
            p if p.name == into else p.replace(annotation=_evaluated(p, command))
            for p in signature.parameters.values()
        ]
        at = [p.name for p in params].index(into)
        params[at : at + 1] = [
            inspect.Parameter(
                name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default, annotation=ann
            )
            for name, (ann, default) in options.items()
        ]

        @functools.wraps(command)
        def run(**kwargs: Any) -> Any:
            kwargs[into] = build(**{name: kwargs.pop(name) for name in options})
            return command(**kwargs)

        run.__signature__ = signature.replace(parameters=params, return_annotation=None)  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation for p in params}
        del run.__wrapped__  # typer reads the signature above, not the command's own
        return run  # type: ignore[return-value]

    return wrap


def _evaluated(param: inspect.Parameter, command: Callable[..., Any]) -> Any:
    """The parameter's annotation, evaluated in the command's module. One known to type checkers
    only, on a parameter defaulting to None, is left as it is: another group's parameter (a
    `judge: JudgeOptions = JUDGE_GROUP`), which that group's decorator, outside this one,
    replaces."""
    if not isinstance(param.annotation, str):
        return param.annotation
    try:
        return eval(param.annotation, command.__globals__)  # noqa: S307 (the module's own source)
    except NameError:
        if param.default is None:
            return param.annotation
        raise
