"""The invariant registry: each invariant is a pure function of the evidence, registered by name.

The rule modules (`safety.invariants`) register themselves here on import; `safety.catalog`
imports them and answers which invariants a domain's transcript is checked by."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .findings import Finding, harness_error, not_applicable, passed, violated

if TYPE_CHECKING:  # the checks read Evidence; Evidence never reads the registry
    from ..domains import DomainPack
    from .evidence import Evidence

__all__ = [
    "Finding",
    "Invariant",
    "PackRule",
    "invariant",
    "pack_invariant",
    "registry",
    "passed",
    "violated",
    "not_applicable",
    "harness_error",
]


@dataclass(frozen=True)
class Invariant:
    """A registered invariant: its name, a one-line summary and its check, which reads records
    by the roles the transcript's pack declares (it runs on any domain, and says
    not_applicable, with the reason, where the pack declares none of its roles).

    `generic`: the name calibrant registered it under, when a pack publishes it under `name`
    (None: `name` is that name). `offered_to`: the packs it checks (None: every pack; an
    invariant that reads a role the business may not have, such as a cap on messages, checks
    only the packs declaring it, so the others' verdicts do not grow a line)."""

    name: str
    summary: str
    check: Callable[[Evidence], Finding]
    generic: str | None = None
    offered_to: Callable[[DomainPack], bool] | None = None

    def run(self, ev: Evidence) -> Finding:
        """Its finding for one transcript: not_applicable when the case's `invariants:`
        settings switch it off (a setting named like it, or like the generic invariant it
        publishes, set to false), else what its check finds."""
        settings = ev.contract.invariants if ev.contract is not None else None
        for name in (self.name, self.generic):
            if settings is not None and name and getattr(settings, name, None) is False:
                return not_applicable("disabled by the case contract")
        return self.check(ev)


_REGISTRY: dict[str, Invariant] = {}


def invariant(
    name: str,
    summary: str,
    *,
    offered_to: Callable[[DomainPack], bool] | None = None,
) -> Callable[[Callable[[Evidence], Finding]], Callable[[Evidence], Finding]]:
    """Register `fn` as the invariant `name` (one line `summary` for docs and --help);
    `offered_to`: the packs it checks (None: every pack)."""

    def decorate(fn: Callable[[Evidence], Finding]) -> Callable[[Evidence], Finding]:
        if name in _REGISTRY:
            raise ValueError(f"invariant {name!r} registered twice")
        _REGISTRY[name] = Invariant(name=name, summary=summary, check=fn, offered_to=offered_to)
        return fn

    return decorate


def registry() -> list[Invariant]:
    """The invariants registered so far, in registration order (`catalog.registered` imports
    the rule modules first, so it lists them all)."""
    return list(_REGISTRY.values())


@dataclass(frozen=True)
class PackRule:
    """One of a pack's own invariants (`calibrant.domains.PackInvariant`), from a function of
    the evidence: `name` (an id no core invariant uses), a one-line `summary` and the `rule`.
    With `reads_snapshots` (the default) the rule runs only when the transcript's snapshots can
    be read through its pack (else `harness_error`, saying why), so the rule itself may assume
    both are there; a rule that reads only the tool log or the conversation sets it False."""

    name: str
    summary: str
    rule: Callable[[Evidence], Finding]
    reads_snapshots: bool = True

    def check(self, evidence: Evidence) -> Finding:
        if self.reads_snapshots and (problem := evidence.records_problem()):
            return harness_error(problem)
        return self.rule(evidence)


def pack_invariant(
    name: str, summary: str, *, reads_snapshots: bool = True
) -> Callable[[Callable[[Evidence], Finding]], PackRule]:
    """A pack's own invariant from the function it decorates (a `PackRule`: list it in the
    runtime's `invariants()`). Unlike `invariant`, it registers nothing: a pack's rules are
    checked on its own domain's transcripts only, through its runtime."""

    def decorate(fn: Callable[[Evidence], Finding]) -> PackRule:
        return PackRule(name, summary, fn, reads_snapshots)

    return decorate
