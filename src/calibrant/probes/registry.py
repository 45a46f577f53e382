"""The open sets of the probes: attack families and probes, each registered by a decorator.

An attack family is a pure function from an :class:`~.base.AttackContext` (the clean transcript
and the rubric) to the text it plants in the agent's message or the customer note. A probe is an
object with two pure methods: ``requests(ctx)``, the variants it needs judged, and
``measure(ctx, answers)``, its figures from the judge's answers (a part of the report: a
strict model, e.g. :class:`~calibrant.contracts.reports.probe.ShiftProbe`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from ..contracts.reports.base import Strict
    from .base import Answer, AttackContext, ProbeContext, Request

__all__ = ["ATTACKS", "PROBES", "AttackFn", "Probe", "attack", "probe"]

AttackFn = Callable[["AttackContext"], str]


class Probe(Protocol):
    name: str
    summary: str

    def requests(self, ctx: ProbeContext) -> list[Request]: ...

    def measure(self, ctx: ProbeContext, answers: dict[str, Answer]) -> Strict:
        """The probe's figures, as the part of the probe report it fills (`ProbeResults`)."""
        ...


ATTACKS: dict[str, AttackFn] = {}
PROBES: dict[str, Probe] = {}
T = TypeVar("T")


def attack(name: str) -> Callable[[AttackFn], AttackFn]:
    """Register an attack family under `name`."""

    def register(fn: AttackFn) -> AttackFn:
        if name in ATTACKS:
            raise ValueError(f"attack family {name!r} registered twice")
        ATTACKS[name] = fn
        return fn

    return register


def probe(name: str) -> Callable[[type[T]], type[T]]:
    """Register a probe class (instantiated once) under `name`."""

    def register(cls: type[T]) -> type[T]:
        if name in PROBES:
            raise ValueError(f"probe {name!r} registered twice")
        instance: Any = cls()
        instance.name = name
        PROBES[name] = instance
        return cls

    return register
