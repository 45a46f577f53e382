"""Fault injection: named fault points a pack declares, fired deterministically by a schedule
(the n-th call of a tool), so a trial is reproducible.

A point fires in one of three phases of a call:
- `before_call`: something outside the agent changes first (a colleague edits the record, a
  grant is revoked, the tenant guard breaks for one read); `fire` does it and says what;
- `instead_of_call`: the service does not answer (`unavailable`), nothing runs;
- `after_commit`: the call took effect (a write committed, or the notification sink accepted
  the message), then its answer is lost: `lost_as="timeout"` (the agent is told the outcome is
  unknown) or `lost_as="crash"` (the agent process dies before its workflow checkpoint)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from .service import Caller, Service, revoke

__all__ = [
    "ScheduledFault",
    "Fault",
    "Fired",
    "FaultPointDecl",
    "FaultSchedule",
    "revoke_scope",
    "break_tenant_guard",
]

Phase = Literal["before_call", "instead_of_call", "after_commit"]


class ScheduledFault(Protocol):
    """A fault in a trial's schedule (a case's FaultSpec is one)."""

    @property
    def point(self) -> str: ...
    @property
    def on_tool(self) -> str: ...
    @property
    def occurrence(self) -> int: ...
    @property
    def params(self) -> Mapping[str, str | int | bool]: ...


@dataclass(frozen=True)
class Fault:
    """A scheduled fault, for packs whose cases do not use calibrant's FaultSpec."""

    point: str
    on_tool: str
    occurrence: int = 1
    params: Mapping[str, str | int | bool] = field(default_factory=dict)


@dataclass(frozen=True)
class Fired:
    """What a `before_call` point did: its instant, the event kind and a one-line detail."""

    seq: int
    kind: Literal["fault_fired", "external_change"]
    detail: str


FireFn = Callable[[Service, Caller, ScheduledFault, Mapping[str, str]], Fired]
"""fire(svc, caller, fault, context) -> Fired; `context` is what the trial knows (e.g. the
record the case is about), for a fault whose params leave it out."""


@dataclass(frozen=True)
class FaultPointDecl:
    """A named fault point and the phase it fires in (see the module's docstring)."""

    name: str
    phase: Phase
    fire: FireFn | None = None
    lost_as: Literal["timeout", "crash"] = "timeout"
    detail: str = ""
    message: str = "the service is not answering"
    per_tool: Mapping[str, tuple[str, str]] = field(default_factory=dict, hash=False)
    """tool -> (detail, message) of an outage placed on that tool: what the agent and the trial
    log are told names the service behind the tool; other tools get `detail` and `message`."""

    def __post_init__(self) -> None:
        if (self.phase == "before_call") != (self.fire is not None):
            raise ValueError(f"fault point {self.name}: `fire` is for before_call points only")

    def told(self, tool: str) -> tuple[str, str]:
        """(detail, message) of this point when it fires on `tool`."""
        return self.per_tool.get(tool, (self.detail, self.message))


class FaultSchedule:
    """Which scheduled fault is due on the current call of a tool (counted by the caller)."""

    def __init__(self, faults: Sequence[ScheduledFault], points: Sequence[FaultPointDecl]):
        self.points = {p.name: p for p in points}
        for f in faults:
            if f.point not in self.points:
                raise ValueError(
                    f"fault point {f.point!r} is not declared; the points are "
                    f"{', '.join(self.points)}"
                )
        self.faults = list(faults)
        self.counts: Counter[str] = Counter()

    def names(self, phase: Phase) -> tuple[str, ...]:
        return tuple(n for n, p in self.points.items() if p.phase == phase)

    def due(self, tool: str, phase: Phase) -> ScheduledFault | None:
        """The first fault of `phase` scheduled for this call of `tool` (a `persistent` one
        fires on every call from its occurrence on)."""
        n, names = self.counts[tool], self.names(phase)
        for f in self.faults:
            if f.on_tool != tool or f.point not in names:
                continue
            if n == f.occurrence or (f.params.get("persistent") and n >= f.occurrence):
                return f
        return None


def revoke_scope(scope: str, *, actor: str, detail: str) -> FireFn:
    """A `before_call` fire: the caller's grants of `scope` are revoked (by `actor`)."""

    def fire(
        svc: Service, caller: Caller, fault: ScheduledFault, context: Mapping[str, str]
    ) -> Fired:
        seq = revoke(svc, caller.principal, caller.tenant_id, scope, actor=actor)
        return Fired(seq, "external_change", detail)

    return fire


def break_tenant_guard(
    svc: Service, caller: Caller, fault: ScheduledFault, context: Mapping[str, str]
) -> Fired:
    """A `before_call` fire: the tenant guard lets one cross-tenant read through (for testing
    the checker only)."""
    svc.broken_guard_once = True
    return Fired(svc.now(), "fault_fired", "tenant guard disabled for one read")
