"""The invariant registry: each invariant is a pure function of the evidence, registered by name.

The rule modules (`safety.invariants`) register themselves here on import; `safety.catalog`
imports them and answers which invariants a domain's transcript is checked by."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .findings import Finding, harness_error, not_applicable, passed, violated

if TYPE_CHECKING:  # the checks read Evidence; Evidence never reads the registry
    from .evidence import Evidence

__all__ = [
    "Finding",
    "Invariant",
    "invariant",
    "registry",
    "passed",
    "violated",
    "not_applicable",
    "harness_error",
]


@dataclass(frozen=True)
class Invariant:
    """A registered invariant."""

    name: str
    summary: str
    check: Callable[[Evidence], Finding]
    by_role: bool = False
    """Whether it reads records by the roles a domain pack declares (it runs on any domain,
    and says not_applicable, with the reason, where the pack declares none of its roles)."""


_REGISTRY: dict[str, Invariant] = {}


def invariant(
    name: str, summary: str, *, by_role: bool = False
) -> Callable[[Callable[[Evidence], Finding]], Callable[[Evidence], Finding]]:
    """Register `fn` as the invariant `name` (one line `summary` for docs and --help);
    `by_role`: it reads records by their declared roles, so it runs on every domain."""

    def decorate(fn: Callable[[Evidence], Finding]) -> Callable[[Evidence], Finding]:
        if name in _REGISTRY:
            raise ValueError(f"invariant {name!r} registered twice")
        _REGISTRY[name] = Invariant(name=name, summary=summary, check=fn, by_role=by_role)
        return fn

    return decorate


def registry() -> list[Invariant]:
    """The invariants registered so far, in registration order (`catalog.registered` imports
    the rule modules first, so it lists them all)."""
    return list(_REGISTRY.values())
