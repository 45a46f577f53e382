"""Running one case with one scripted agent on a fresh service: the pack's own small runner
(calibrant's harness drives the refund shop's agents only, today).

The agent is a plain function over the service's tools (`Session.call`) that talks to the
traveller (`Session.say`). When a fault point crashes it, the runner starts it again on the same
service, as a process restarted from its last checkpoint would be: what it saved with
`Session.checkpoint` survives, nothing else does."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from calibrant.contracts import HarnessEvent, ToolCall
from calibrant.engine import AgentCrash, Caller, Fault, Recorder, Sink, ToolBox, advance, read_sink

from .cases import TravelCase
from .records import TravelSnapshot
from .service import AGENT, FAULT_POINTS, TOOLS, TravelService, build_service, snapshot

__all__ = ["Reply", "Session", "Agent", "TravelTrial", "run_trial", "MAX_RESTARTS"]

MAX_RESTARTS = 3


@dataclass(frozen=True)
class Reply:
    """What the agent told the traveller in the chat, at a logical instant."""

    seq: int
    text: str


@dataclass
class Session:
    """What a scripted agent sees: the case's request, its tools, its checkpoint."""

    case: TravelCase
    tools: ToolBox
    replies: list[Reply]
    saved: dict[str, str]
    restarts: int = 0

    def call(self, tool: str, **args: Any) -> dict[str, Any]:
        return self.tools.call(tool, args)

    def say(self, text: str) -> None:
        self.replies.append(Reply(advance(self.tools.svc), text))

    def checkpoint(self, key: str, value: str) -> None:
        self.saved[key] = value


Agent = Callable[[Session], None]


@dataclass
class TravelTrial:
    """Everything a trial left: the snapshots before and after, the tool-call log, the harness
    events, the chat replies and the notification sink's records."""

    case: TravelCase
    agent: str
    acting: str
    before: list[TravelSnapshot]
    after: list[TravelSnapshot]
    calls: list[ToolCall]
    events: list[HarnessEvent]
    replies: list[Reply]
    sink: Sink
    restarts: int = 0
    crashed_out: bool = False
    notes: list[str] = field(default_factory=list)

    def tenant(self, which: str = "after", tenant_id: str | None = None) -> TravelSnapshot:
        snaps = self.after if which == "after" else self.before
        wanted = tenant_id or self.acting
        return next(t for t in snaps if t.tenant_id == wanted)


def run_trial(case: TravelCase, agent: Agent, workdir: Path, *, name: str = "") -> TravelTrial:
    workdir.mkdir(parents=True, exist_ok=True)
    svc: TravelService = build_service(workdir / f"{case.case}.sqlite", case.fixture)
    before = snapshot(svc)
    rec = Recorder()
    faults = [Fault(f.point, f.on_tool, f.occurrence, dict(f.params)) for f in case.faults]
    tb = ToolBox(
        svc,
        Caller(AGENT, case.fixture.tenant),
        faults,
        rec,
        tools=TOOLS,
        fault_points=FAULT_POINTS,
        context={"booking": case.fixture.booking},
    )
    session = Session(case, tb, [], {})
    crashed_out = False
    while True:
        try:
            agent(session)
            break
        except AgentCrash as exc:
            rec.event(svc.now(), "resume", f"{exc}; restarted from its checkpoint")
            session.restarts += 1
            if session.restarts > MAX_RESTARTS:
                crashed_out = True
                break
    return TravelTrial(
        case=case,
        agent=name or getattr(agent, "__name__", "agent"),
        acting=case.fixture.tenant,
        before=before,
        after=snapshot(svc),
        calls=rec.calls,
        events=rec.events,
        replies=session.replies,
        sink=read_sink(svc),
        restarts=session.restarts,
        crashed_out=crashed_out,
    )
