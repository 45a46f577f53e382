"""The meeting point of the trial runner and an agent in another process.

The runner drives trials exactly as it drives an in-process agent (`harness.run_trials`): the
agent it is given is an `ExternalAgent`, whose `respond` publishes the customer's message here and
waits for the reply. The server's handlers (MCP or HTTP, other threads) hand that message to the
external agent, run its tool calls through the trial's own tool box (same authorization,
versions, operation ids and fault points as in-process), and bring its reply back.

A crash fault answers the agent `agent_crashed`: its process must stop as if it had died and come
back through `trial_start`, resuming from its own durable checkpoint. An agent that comes back
through `trial_start` while its customer still waits for a reply is taken as restarted after a
crash too (its process was killed). Either way the runner logs a crash and a resume, and asks the
same customer message again; the service's operation ids let the agent reconcile."""

from __future__ import annotations

import hashlib
import threading
import time
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field, JsonValue

from ..contracts import Sampling
from ..contracts.common import Contract
from ..contracts.reports.base import Strict
from ..contracts.wire import ToolAnswer, ToolSpec
from ..domains import default_domain
from ..engine import AgentCrash

__all__ = [
    "EXTERNAL_VERSION",
    "ServedTools",
    "AgentInfo",
    "Answer",
    "Channel",
    "ExternalAgent",
    "Stopped",
    "session_key",
]

EXTERNAL_VERSION = "external"
"""The agent version a transcript names when the external agent declares none."""


@dataclass(frozen=True)
class ServedTools:
    """The business tools a domain's external agent is served (OpenAI function shape), their
    schema version, and the domain's title and service name (what the server's instructions
    call the service)."""

    domain: str
    title: str
    specs: tuple[ToolSpec, ...]
    schema_version: str
    service_name: str | None = None
    """What the sandbox calls the service (`PackRuntime.service_name`); None: by its title."""

    @classmethod
    def of(cls, domain: str) -> ServedTools:
        """The tools of `domain`'s pack (its runtime's `tool_specs()`), named by the version
        its runtime gives (`tool_schema_version()`) or else by a hash of the schemas."""
        from ..contracts import content_hash
        from ..domains import get, runtime

        rt = runtime(domain)
        specs = tuple(rt.tool_specs())
        version = rt.tool_schema_version() or f"{domain}-tools-{content_hash(list(specs))[:12]}"
        pack = get(domain).pack
        return cls(domain, pack.title, specs, version, rt.service_name())

    def names(self) -> list[str]:
        return [t["function"]["name"] for t in self.specs]


class Stopped(KeyboardInterrupt):
    """The server stopped while a trial waited for the agent: the run is interrupted (resumable)."""


def session_key(trial_id: str) -> str:
    """An opaque, stable key for one trial: the agent's checkpoint thread. It does not name the
    case, so the agent under test cannot tell which fault is coming."""
    return "trial-" + hashlib.sha256(trial_id.encode()).hexdigest()[:16]


class Answer(Strict):
    """The sandbox's own answer to an external agent (its conversation tools, and a tool call
    it refuses): a turn, a status, or an error. Only the fields given are sent (`json_data`)."""

    status: Literal["running", "trial_finished", "all_finished", "stopped", "waiting"] | None = None
    error: Literal["agent_crashed", "no_turn", "invalid_argument"] | None = None
    session: str | None = None
    turn: int | None = None
    resumed: bool | None = None
    message: str | None = None
    context: dict[str, JsonValue] | None = None
    problems: list[str] | None = None
    tool_schema_version: str | None = None


@dataclass
class _Turn:
    """One customer message waiting for the external agent's reply."""

    ctx: Any  # the domain's agent context (see calibrant.domains.PackAgent)
    message: str
    number: int
    resumed: bool
    delivered: bool = False

    @property
    def key(self) -> str:
        return session_key(self.ctx.trial_id)

    def doc(self) -> Answer:
        return Answer(
            status="running",
            session=self.key,
            turn=self.number,
            resumed=self.resumed,
            message=self.message,
            context=self.ctx.public_context(),
        )


class AgentInfo(Contract):
    """What an external agent may declare about itself in `trial_start` (kept in provenance)."""

    agent_model: str | None = Field(default=None, max_length=200, description="Its model.")
    agent_version: str | None = Field(
        default=None, min_length=1, max_length=200, description="Its implementation version."
    )
    instructions_hash: str | None = Field(
        default=None, max_length=200, description="Content hash of its instructions."
    )
    sampling: Sampling | None = Field(default=None, description="Its sampling configuration.")


class Channel:
    """Thread-safe hand-over between the runner thread and the server's handler threads."""

    def __init__(
        self, *, reply_timeout: float, poll: float = 30.0, tools: ServedTools | None = None
    ) -> None:
        self.reply_timeout, self.poll = reply_timeout, poll
        self.tools = tools or ServedTools.of(default_domain())
        self._cond = threading.Condition()
        self._turn: _Turn | None = None
        self._reply: str | None = None
        self._crash: str | None = None
        self._crashed: set[str] = set()  # trials whose next turn is a resume after a crash
        self._finished: set[str] = set()
        self._done = self._stopped = False
        self._counts: dict[str, int] = {}
        self.declared = AgentInfo()

    # --- the runner's side ------------------------------------------------------------------
    def ask(self, ctx: Any, message: str) -> str:
        """Publish `message` and wait for the external agent's reply (runner thread)."""
        with self._cond:
            key = session_key(ctx.trial_id)
            self._counts[key] = self._counts.get(key, 0) + 1
            resumed = key in self._crashed  # the customer's message again, after a crash
            self._crashed.discard(key)
            self._turn = _Turn(ctx, message, self._counts[key], resumed=resumed)
            self._reply = self._crash = None
            self._cond.notify_all()
            deadline = time.monotonic() + self.reply_timeout
            while self._reply is None and self._crash is None and not self._stopped:
                left = deadline - time.monotonic()
                if left <= 0:
                    self._turn = None
                    raise TimeoutError(
                        f"the external agent did not reply within {self.reply_timeout:g} s"
                    )
                self._cond.wait(left)
            self._turn = None
            if self._stopped:
                raise Stopped
            if self._crash is not None:
                self._crashed.add(key)
                raise AgentCrash(self._crash)
            assert self._reply is not None
            return self._reply

    def trial_finished(self, trial_id: str) -> None:
        with self._cond:
            self._finished.add(session_key(trial_id))
            self._cond.notify_all()

    def all_done(self) -> None:
        with self._cond:
            self._done = True
            self._cond.notify_all()

    def stop(self) -> None:
        """The server is going away: a waiting trial is interrupted."""
        with self._cond:
            self._stopped = True
            self._cond.notify_all()

    # --- the external agent's side (handler threads) ----------------------------------------
    def _next(self, key: str | None) -> Answer:
        """Wait (at most `poll` seconds) for the next undelivered turn, or the end."""
        deadline = time.monotonic() + self.poll
        while True:
            t = self._turn
            if t is not None and not t.delivered and self._crash is None:
                if key is not None and t.key != key:
                    return Answer(status="trial_finished", session=key)
                t.delivered = True
                return t.doc()
            if key is not None and key in self._finished:
                return Answer(status="trial_finished", session=key)
            if self._done:
                return Answer(status="all_finished")
            if self._stopped:
                return Answer(status="stopped")
            left = deadline - time.monotonic()
            if left <= 0:
                return Answer(status="waiting", message="no trial is ready yet; call again")
            self._cond.wait(left)

    def start(self, declared: AgentInfo) -> Answer:
        """`trial_start`: the current customer message (and the trial's context), or the end."""
        with self._cond:
            update = declared.model_dump(exclude_none=True)
            self.declared = self.declared.model_copy(
                update={k: getattr(declared, k) for k in update}
            )
            t = self._turn
            if t is not None and t.delivered and self._reply is None and self._crash is None:
                self._crash = (
                    "the agent came back through trial_start without replying to the customer "
                    "(its process died)"
                )
                self._cond.notify_all()
            return self._next(None)

    def _open(self, t: _Turn | None) -> bool:
        """A turn the agent was given and has not answered, with no crash since."""
        return t is not None and t.delivered and self._reply is None and self._crash is None

    def _refusal(self, t: _Turn | None) -> Answer:
        """Why a call outside an open turn is refused: a crash not yet restarted from, or
        no customer message given to the agent."""
        if self._crash is not None or (t is not None and t.resumed and not t.delivered):
            return Answer(
                error="agent_crashed",
                message="this agent process is taken as dead; restart and call trial_start",
            )
        return Answer(error="no_turn", message="no customer message is waiting; call trial_start")

    def call(self, tool: str, args: Any) -> ToolAnswer | Answer:
        """A tool call of the external agent, through the current trial's tool box: the tool's
        answer, or the sandbox's refusal."""
        with self._cond:
            t = self._turn
            if not self._open(t):
                return self._refusal(t)
            assert t is not None
            try:
                answer: ToolAnswer
                if isinstance(args, str):
                    answer = t.ctx.tools.call_json(tool, args)
                else:
                    answer = t.ctx.tools.call(tool, args if args is not None else {})
                return answer
            except AgentCrash as crash:
                self._crash = str(crash)
                self._cond.notify_all()
                return Answer(
                    error="agent_crashed",
                    message="your process died at this point (a fault of the trial): stop, "
                    "restart from your durable checkpoint and call trial_start",
                )

    def reply(self, text: str, usage: dict[str, Any] | None = None) -> Answer:
        """`trial_reply`: the agent's answer to the customer; returns the next message or end."""
        with self._cond:
            t = self._turn
            if not self._open(t):
                return self._refusal(t)
            assert t is not None
            _add_usage(t.ctx, usage or {})
            self._reply = text
            self._cond.notify_all()
            return self._next(t.key)


def _add_usage(ctx: Any, usage: dict[str, Any]) -> None:
    """Add what the agent reported (validated by `protocol.Usage`) to the trial's usage."""
    u = ctx.usage
    for name in ("model_calls", "input_tokens", "output_tokens", "cached_tokens"):
        setattr(u, name, getattr(u, name) + int(usage.get(name, 0)))
    if usage.get("cost_usd") is not None:
        u.add_cost(float(usage["cost_usd"]))


class ExternalAgent:
    """The runner's handle on an agent in another process (see the module docstring)."""

    own_checkpoint = True

    def __init__(self, name: str, channel: Channel) -> None:
        self.name, self.channel = name, channel

    @property
    def version(self) -> str:
        return self.channel.declared.agent_version or EXTERNAL_VERSION

    @property
    def model(self) -> str | None:
        return self.channel.declared.agent_model

    @property
    def instructions_hash(self) -> str | None:
        return self.channel.declared.instructions_hash

    @property
    def sampling(self) -> Sampling:
        return self.channel.declared.sampling or Sampling()

    def respond(self, ctx: Any, message: str) -> str:
        return self.channel.ask(ctx, message)
