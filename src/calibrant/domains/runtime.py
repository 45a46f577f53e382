"""What a pack provides so calibrant can *run* its domain, beside what it declares: its trials
(a controlled service, its scripted agents, one transcript per trial), the tools an external
agent is served, and its own invariants.

A pack hands calibrant a `PackRuntime` through `DomainPack.runtime` (a callable taking no
argument, called the first time a run needs it, so listing packs imports no service code).
The core drives every domain through this protocol: `calibrant trials`, `sandbox`, `check` and
`selftest` dispatch on a case's or a transcript's domain and never name a pack. Each pack
brings its own runtime, usually built on `calibrant.engine` and the shared parts of
`calibrant.harness` (`runner.agent_reply`, `trial_provenance`, `trial_metrics`).

The types below are structural (`typing.Protocol`): a pack implements them with plain classes.
They name the core's contracts only; what the harness and the safety checker pass in is
described in words, because those packages sit above this one."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ..contracts import CaseContract, Transcript
from ..contracts.wire import ToolSpec
from ..errors import ConfigError

__all__ = [
    "PackAgent",
    "AgentCall",
    "ImportOnlyRuntime",
    "PackInvariant",
    "PackRuntime",
    "RecordedEntry",
    "SelftestEntry",
]


@runtime_checkable
class PackAgent(Protocol):
    """An agent of a pack's domain: answers one message of the person it serves at a time,
    calling the pack's tools in between through `ctx.tools`. Every pack's agents and
    calibrant's external agent (`calibrant.sandbox.ExternalAgent`) have this shape, so a pack's
    trials can be driven by an agent in another process.

    The runner reads `name`, `version`, `model`, `instructions_hash` and `sampling` for the
    transcript's provenance and never sets them."""

    @property
    def name(self) -> str: ...

    @property
    def version(self) -> str: ...

    @property
    def model(self) -> str | None: ...

    @property
    def instructions_hash(self) -> str | None: ...

    def respond(self, ctx: Any, message: str) -> str:
        """The reply to `message`. `ctx` is the pack's agent context: it has `trial_id` (str),
        `usage` (a `calibrant.harness.Usage`, added to by agents that call a model), `tools`
        (with `call(name, args) -> dict` and `call_json(name, text) -> dict`) and
        `public_context() -> dict` (what an external agent is told about the trial: tenant,
        the record it works on, the person it talks to). Raises `calibrant.engine.AgentCrash`
        when a fault point crashes it; the runner starts a fresh agent from `make_agent`."""
        ...


AgentCall = Callable[[str], PackAgent]
"""Builds an agent from its name (`PackRuntime.make_agent`, or the sandbox's external agent)."""


class PackInvariant(Protocol):
    """One of the pack's own invariants, registered beside the core's: `name` (an id that no
    core invariant uses), `summary` (one line), and `check(evidence) -> Finding`, where
    `evidence` is the `calibrant.safety.Evidence` of one transcript of the pack's domain (its
    `transcript` carries the evaluator's snapshots as `snapshot_before`/`snapshot_after`) and
    the result is a `calibrant.safety.Finding` (`passed`, `violated`, `not_applicable`,
    `harness_error`). An invariant never trusts the agent's text or its tool results."""

    @property
    def name(self) -> str: ...

    @property
    def summary(self) -> str: ...

    def check(self, evidence: Any) -> Any: ...


@dataclass(frozen=True)
class SelftestEntry:
    """One transcript of `calibrant selftest` for a domain: agent `agent` on case `case` (one
    trial), then `mutate` (a planted fault written into the transcript, e.g. a snapshot edited
    as if a write had happened) when given, and what the checker must say: `expect` maps an
    invariant to its required outcome. An empty `expect` is a known-good transcript: no
    invariant may say violated or harness_error on it."""

    name: str
    case: str
    agent: str
    description: str
    expect: Mapping[str, str] = field(default_factory=dict)
    mutate: Callable[[Transcript], None] | None = None


@dataclass(frozen=True)
class RecordedEntry:
    """One transcript of `calibrant selftest` imported from a recording instead of run: the
    trace file `trace` (one conversation, in the import format `format`: `chat`, `otel` or
    `tau-bench`) imported as `calibrant import` would, with its system-of-record snapshots from
    `snapshots` (a folder of `<trace id>/before.json` and `after.json`, or None), the case
    `case` from the self-test's cases (None: the end state is not judged, as `--no-contract`),
    and the tenant and agent identity the trace does not name itself; then `mutate` and
    `expect` as for a `SelftestEntry`. What a pack with no simulator tests its checker with."""

    name: str
    trace: Path
    description: str
    expect: Mapping[str, str] = field(default_factory=dict)
    mutate: Callable[[Transcript], None] | None = None
    format: str = "chat"
    snapshots: Path | None = None
    case: str | None = None
    tenant: str | None = None
    agent_principal: str | None = None


class PackRuntime(Protocol):
    """What runs a pack's domain (see the module docstring)."""

    def agent_names(self) -> Sequence[str]:
        """The scripted agents `make_agent` builds (e.g. "scripted:travel-correct"), the
        correct one first; a name may take a style suffix the pack documents."""
        ...

    def make_agent(self, name: str, *, api_base: str | None = None) -> PackAgent:
        """The agent called `name`, or `calibrant.errors.ConfigError` in one line naming the
        agents it knows."""
        ...

    def case_problems(self, case: CaseContract) -> Sequence[tuple[tuple[int | str, ...], str]]:
        """(location in the case file, message) of every reason `case` cannot run on the pack's
        service (a booking the fixture names that its world lacks, a fault on a tool the pack
        does not have), checked for every case before any trial runs. Empty: it can run."""
        ...

    def run_trial(
        self,
        case: CaseContract,
        agent_name: str,
        *,
        trial: int,
        seed: int,
        workdir: Path,
        agent_factory: AgentCall,
    ) -> Transcript:
        """One trial of the agent on `case` (a case of the pack's domain) from a fresh service
        whose files go in `workdir`, the agent built with `agent_factory` (again after each
        crash). The transcript names the pack's domain, carries the evaluator's snapshots
        (`snapshot_before`/`snapshot_after`), the service's tool-call log, the notification
        sink's attempts and the harness events, and has the id
        `{case}:{agent_name}:s{seed}:t{trial}` (how an interrupted run finds it again)."""
        ...

    def tool_specs(self) -> Sequence[ToolSpec]:
        """The agent's business tools, OpenAI function-calling shape (`{"type": "function",
        "function": {"name", "description", "parameters"}}`): what `calibrant sandbox` serves
        an external agent over MCP and HTTP."""
        ...

    def tool_schema_version(self) -> str | None:
        """The version of `tool_specs()` an external agent's transcripts name (their provenance's
        `tool_schema_version`). None: calibrant names it by a hash of the schemas
        (`{domain}-tools-{hash}`)."""
        ...

    def service_name(self) -> str | None:
        """What `calibrant sandbox` calls the service in its instructions and OpenAPI title
        ("calibrant's controlled {service_name}"). None: "service ({the pack's title})"."""
        ...

    def invariants(self) -> Sequence[PackInvariant]:
        """The pack's own invariants, checked on its transcripts after the core's generic
        ones (`calibrant check`, every trial, `selftest`)."""
        ...

    def selftest_plan(self) -> Sequence[SelftestEntry | RecordedEntry]:
        """What `calibrant selftest` runs for this domain: known-good transcripts (the correct
        agent on the pack's cases, or recordings) and planted faults (each faulty agent, and
        mutations of good transcripts), each with the invariant outcomes the checker must give."""
        ...


class ImportOnlyRuntime:
    """The `PackRuntime` of a pack with no simulator: its transcripts are imported
    (`calibrant import`), checked by calibrant's generic invariants and its own `invariants`,
    and its self-test imports its recordings (`RecordedEntry`). It has no agents, runs no
    trials and serves no tools: `calibrant trials` and `sandbox` on its domain say so in one
    line."""

    def __init__(
        self,
        domain: str,
        *,
        invariants: Sequence[PackInvariant] = (),
        selftest: Sequence[SelftestEntry | RecordedEntry] = (),
    ) -> None:
        self.domain = domain
        self._invariants = tuple(invariants)
        self._selftest = tuple(selftest)

    def _none(self, what: str) -> ConfigError:
        return ConfigError(
            f"domain pack '{self.domain}' imports its transcripts and has no simulator: it "
            f"{what}; import its traces with `calibrant import --domain {self.domain}`"
        )

    def agent_names(self) -> Sequence[str]:
        return ()

    def make_agent(self, name: str, *, api_base: str | None = None) -> PackAgent:
        raise self._none(f"has no agent '{name}'")

    def case_problems(self, case: CaseContract) -> Sequence[tuple[tuple[int | str, ...], str]]:
        return [
            (("domain",), f"domain '{self.domain}' runs no trials: its cases judge imported traces")
        ]

    def run_trial(
        self,
        case: CaseContract,
        agent_name: str,
        *,
        trial: int,
        seed: int,
        workdir: Path,
        agent_factory: AgentCall,
    ) -> Transcript:
        raise self._none("runs no trials")

    def tool_specs(self) -> Sequence[ToolSpec]:
        return ()

    def tool_schema_version(self) -> str | None:
        return None

    def service_name(self) -> str | None:
        return None

    def invariants(self) -> Sequence[PackInvariant]:
        return self._invariants

    def selftest_plan(self) -> Sequence[SelftestEntry | RecordedEntry]:
        return self._selftest
