"""What the invariants of any domain read of one trial: the snapshots before and after, what the
agent sent, where it was delivered, the service's log of reads and committed writes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...domains import DomainPack
from ...domains.records import RecordView


@dataclass(frozen=True)
class Sent:
    """Something the agent sent (a chat turn, a message): its evidence id, time and text."""

    eid: str
    seq: int
    text: str


@dataclass(frozen=True)
class Delivery:
    """A message the receiver delivered (or deduplicated): its attempt id, purpose, address."""

    attempt_id: str
    kind: str
    recipient: str


@dataclass(frozen=True)
class _Logged:
    """A record a tool call touched, as the service logged it (`ok`: the call succeeded)."""

    call_id: str
    seq: int
    ok: bool
    tenant_id: str
    kind: str
    record_id: str


@dataclass(frozen=True)
class Read(_Logged):
    """A record a tool call read (`version`: the version it returned, for versioned records)."""

    version: int | None = None


@dataclass(frozen=True)
class Write(_Logged):
    """A write the service committed for a tool call. A write applied over a versioned record
    (`target`: its id) names the version the caller expected, the version current when it was
    applied and the version after it."""

    target: str | None = None
    expected_version: int | None = None
    version_before: int | None = None
    version_after: int | None = None


@dataclass(frozen=True)
class Trial:
    """What the generic invariants read of one trial (see the module's docstring)."""

    acting: str
    before: RecordView
    after: RecordView
    sent: tuple[Sent, ...] = ()
    customer: tuple[Sent, ...] = ()
    delivered: tuple[Delivery, ...] = ()
    reads: tuple[Read, ...] = ()
    writes: tuple[Write, ...] = ()
    rejected_stale: tuple[str, ...] = ()
    """Calls the service refused because they named a stale version."""

    @property
    def other_tenants(self) -> list[str]:
        ids = set(self.before.tenant_ids) | set(self.after.tenant_ids)
        return sorted(ids - {self.acting})

    def customer_said(self, found_in: Callable[[str], bool], before_seq: int) -> bool:
        """Whether the customer wrote the value `found_in` looks for before `before_seq` (the
        same matcher as for the agent's text: echoing it back is no leak)."""
        return any(found_in(turn.text) for turn in self.customer if turn.seq < before_seq)


def record_words(pack: DomainPack) -> tuple[str, str, str]:
    """What a pack calls its records in a verdict's message (its judge's word for an evidence
    line, `JudgePhrasing.record_line`: "records" unless it says otherwise), with the verb forms
    that agree with it: ("records", "hold", "were") or, for one word such as "book", ("book",
    "holds", "was")."""
    line = pack.judge.record_line
    plural = line.endswith("s")
    return line, "hold" if plural else "holds", "were" if plural else "was"
