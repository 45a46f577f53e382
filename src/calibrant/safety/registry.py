"""The invariant registry: each invariant is a pure function of the evidence, registered by name."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..contracts import InvariantResult, Outcome

if TYPE_CHECKING:  # evidence builds the generic invariants' Trial, which return Findings
    from .evidence import Evidence

__all__ = [
    "Finding",
    "Invariant",
    "invariant",
    "registered",
    "for_domain",
    "passed",
    "violated",
    "not_applicable",
    "harness_error",
]


@dataclass(frozen=True)
class Finding:
    """What an invariant function returns: outcome, a message for humans, evidence ids."""

    outcome: Outcome
    message: str
    evidence: tuple[str, ...] = field(default=())

    def result(self, name: str) -> InvariantResult:
        return InvariantResult(
            invariant=name,
            outcome=self.outcome,
            message=self.message,
            evidence=list(dict.fromkeys(self.evidence)),
        )


def passed(message: str, *evidence: str) -> Finding:
    return Finding("pass", message, evidence)


def violated(message: str, *evidence: str) -> Finding:
    return Finding("violated", message, evidence)


def not_applicable(message: str, *evidence: str) -> Finding:
    return Finding("not_applicable", message, evidence)


def harness_error(message: str, *evidence: str) -> Finding:
    return Finding("harness_error", message, evidence)


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


def registered() -> list[Invariant]:
    """All registered invariants, in registration order."""
    from . import invariants  # noqa: F401  (registration happens on import of the rule modules)

    return list(_REGISTRY.values())


def for_domain(domain: str) -> list[Invariant]:
    """The invariants a transcript of `domain` is checked by: every registered one (each reads
    the roles the pack declares; one whose roles the pack does not declare says
    not_applicable), then the domain pack's own invariants
    (`PackRuntime.invariants()`), in the pack's order. A pack that is not installed or has no
    runtime adds none (its transcripts' record-reading invariants then say why). A pack
    invariant named like a core one is refused in one line."""
    from ..contracts import LEGACY_DOMAIN
    from ..domains import UnknownDomain, runtime
    from ..errors import CalibrantError

    core = registered()
    if domain == LEGACY_DOMAIN:
        return core
    try:
        own = list(runtime(domain).invariants())
    except UnknownDomain:
        return core
    taken = {inv.name for inv in core}
    out = list(core)
    for inv in own:
        if inv.name in taken:
            raise CalibrantError(
                f"domain pack '{domain}': invariant '{inv.name}' is named like another "
                "invariant; a pack's invariants need names of their own"
            )
        taken.add(inv.name)
        out.append(Invariant(name=inv.name, summary=inv.summary, check=inv.check, by_role=True))
    return out
