"""Evidence: read-only views over one transcript that every invariant shares.

Nothing here trusts the agent's text or the agent's tool responses about the world: end states
come from the evaluator's snapshots; what the agent did comes from the service's tool-call log
and the notification receiver.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from pydantic import BaseModel, ValidationError

from ..contracts import (
    CaseContract,
    DomainSnapshot,
    NotificationAttempt,
    ToolCall,
    Transcript,
)
from ..contracts.forms import snapshot_noun
from ..domains import CaseFocus, DomainPack, UnknownDomain
from ..domains import get as get_pack
from ..domains.conform import tenant_snapshot
from .generic import Delivery, Read, Sent, Trial, Write
from .records import RecordView

__all__ = ["CaseFocus", "Evidence"]

EVALUATOR_PREFIX = "evaluator:"
"""Snapshots count as evidence only when read by an identity named evaluator:<name> that holds
no grant and made no tool call in the trial (an agent of any tenant never qualifies)."""


@dataclass
class Evidence:
    """One transcript plus the case contract to judge it by (from --case or embedded)."""

    transcript: Transcript
    contract: CaseContract | None = None
    problems: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, transcript: Transcript, contract: CaseContract | None = None) -> Evidence:
        return cls(transcript=transcript, contract=contract or transcript.case)

    @cached_property
    def case_focus(self) -> CaseFocus:
        """The case's subject, approval requirement and policy (see CaseFocus)."""
        c = self.contract
        if c is None or c.domain != self.transcript.domain:
            return CaseFocus()
        try:
            focus = get_pack(c.domain).pack.case_focus
        except UnknownDomain:
            return CaseFocus()
        return CaseFocus() if focus is None else focus(c)

    # --- identities -------------------------------------------------------------------------
    @property
    def t(self) -> Transcript:
        return self.transcript

    @property
    def acting(self) -> str:
        return self.transcript.acting_tenant

    @property
    def agent(self) -> str:
        return self.transcript.agent_principal

    # --- snapshots --------------------------------------------------------------------------
    def snapshot_problem(self) -> str | None:
        """Why the evaluator's snapshots cannot be used as evidence, or None when they can."""
        return self._snapshot_problem

    @property
    def snapshots(self) -> tuple[DomainSnapshot | None, DomainSnapshot | None]:
        """The evaluator's snapshots before and after the trial."""
        t = self.transcript
        return (t.snapshot_before, t.snapshot_after)

    @cached_property
    def _snapshot_problem(self) -> str | None:
        t = self.transcript
        before, after = self.snapshots
        what = snapshot_noun(t.domain)
        if before is None or after is None:
            which = "before" if before is None else "after"
            return f"the {what} {which} the trial is missing"
        for which, snap in (("before", before), ("after", after)):
            who = snap.taken_by
            if (acts := self._acts_as(who)) is not None:
                return (
                    f"the {what} {which} the trial was taken by {who}, {acts}: "
                    "not an independent evaluator"
                )
            if not who.startswith(EVALUATOR_PREFIX):
                return (
                    f"the {what} {which} the trial was taken by {who}, which is not an "
                    f"evaluator identity ({EVALUATOR_PREFIX}...)"
                )
        if before.seq > after.seq:
            return "the 'before' snapshot is later than the 'after' snapshot"
        if before.tenant(self.acting) is None or after.tenant(self.acting) is None:
            return f"the snapshots lack the acting tenant {self.acting}"
        return None

    def _acts_as(self, who: str) -> str | None:
        """How `who` acts in the service, which disqualifies it as the independent evaluator
        (None: it does not): the agent under test, a tool caller, a grant holder in any tenant,
        an agent identity in any audit log."""
        t = self.transcript
        if who == t.agent_principal:
            return "the agent's own identity"
        for c in t.tool_calls:
            if c.principal == who:
                return f"which made tool call {c.call_id}"
        pack = self._pack
        tenants = self._tenants if isinstance(pack, DomainPack) else "no pack"
        if not isinstance(pack, DomainPack) or isinstance(tenants, str):
            return None  # the records cannot be read: the rules that read them say why
        grants, audit = pack.grants, pack.audit
        for view in (RecordView(pack, tenants[0]), RecordView(pack, tenants[1])):
            for tenant in view.tenant_ids:
                for e in view.entries(tenant):
                    if grants is not None and e.kind == grants.kind:
                        if str(e.value(grants.principal)) == who:
                            return f"which holds grant {e.id} in {tenant}"
                    elif audit is not None and e.kind == audit.kind and who.startswith("agent:"):
                        if str(e.value(audit.actor)) == who:
                            return f"an agent identity of {tenant}"
        return None

    # --- the domain's records, by role -------------------------------------------------------
    def records_problem(self) -> str | None:
        """Why the snapshots cannot be read through the transcript's domain pack (its pack is
        not installed, or declares no snapshot), or why they are no evidence; None when they
        can be read."""
        return self.snapshot_problem() or self.pack_problem()

    @cached_property
    def _pack(self) -> DomainPack | str:
        try:
            pack = get_pack(self.transcript.domain).pack
        except UnknownDomain as exc:
            return str(exc)
        if pack.snapshot is None:
            return f"domain pack '{pack.name}' declares no snapshot: its records cannot be read"
        return pack

    @property
    def one_tenant(self) -> bool:
        """Whether the transcript's pack says its business has one tenant (False when the pack
        cannot be read)."""
        pack = self._pack
        return isinstance(pack, DomainPack) and pack.one_tenant

    @property
    def confirmation_kinds(self) -> frozenset[str]:
        """The message kinds the pack says confirm an effect (none when it cannot be read)."""
        pack = self._pack
        if not isinstance(pack, DomainPack):
            return frozenset()
        return frozenset(c.message for c in pack.confirmations if c.message is not None)

    def pack_problem(self) -> str | None:
        """Why the transcript's domain pack cannot read its snapshots (not installed, no
        snapshot declared, a record its model refuses), or None."""
        if isinstance(self._pack, str):
            return self._pack
        return self._tenants if isinstance(self._tenants, str) else None

    @cached_property
    def _tenants(self) -> tuple[list[BaseModel], list[BaseModel]] | str:
        """Every tenant of the two snapshots as the pack's snapshot model (a missing snapshot:
        none), or why a snapshot does not read as the pack's."""
        pack = self._pack
        out: list[list[BaseModel]] = []
        for which, snap in zip(("before", "after"), self.snapshots, strict=True):
            if snap is None:
                out.append([])
            elif isinstance(pack, DomainPack):
                try:
                    out.append([tenant_snapshot(pack, tenant) for tenant in snap.tenants])
                except ValidationError as exc:
                    err = exc.errors(include_url=False)[0]
                    where = ".".join(str(x) for x in err["loc"])
                    return (
                        f"the snapshot {which} the trial does not read as domain pack "
                        f"'{pack.name}' declares it: {where}: {err['msg']}"
                    )
        return out[0], out[1]

    def tenant_models(self, tenant: str | None = None) -> tuple[BaseModel | None, BaseModel | None]:
        """One tenant's records before and after the trial as the pack's own snapshot model
        (`SnapshotSpec.model`): the acting tenant's, or `tenant`'s; None where a snapshot is
        missing or does not hold the tenant. Call `records_problem` first."""
        wanted = tenant or self.acting
        tenants = self._tenants
        assert not isinstance(tenants, str) and isinstance(self._pack, DomainPack)
        field = self._pack.snapshot.tenant_field if self._pack.snapshot else ""
        found = [
            next((m for m in models if str(getattr(m, field, "")) == wanted), None)
            for models in tenants
        ]
        return found[0], found[1]

    @cached_property
    def trial(self) -> Trial:
        """What the generic invariants read of this transcript (call `records_problem` first,
        or `pack_problem` for a check that reads only the log: a missing snapshot is then an
        empty one)."""
        pack = self._pack
        tenants = self._tenants
        assert isinstance(pack, DomainPack) and not isinstance(tenants, str)
        t = self.transcript
        reads = tuple(
            Read(c.call_id, c.seq, c.outcome == "ok", r.tenant_id, r.kind, r.record_id, r.version)
            for c in self.calls
            for r in c.reads
        )
        writes = tuple(
            Write(
                c.call_id,
                c.seq,
                c.outcome == "ok",
                w.tenant_id,
                w.kind,
                w.record_id,
                # the service's log names the versioned record a write was applied over
                target=w.target_id,
                expected_version=w.expected_version,
                version_before=w.version_before,
                version_after=w.version_after,
            )
            for c in self.calls
            for w in c.writes
        )
        return Trial(
            acting=self.acting,
            before=RecordView(pack, tenants[0]),
            after=RecordView(pack, tenants[1]),
            sent=tuple(Sent(eid, seq, text) for eid, seq, text in self.sent_content),
            customer=tuple(
                Sent(turn.turn_id, turn.seq, turn.text)
                for turn in t.conversation
                if turn.role == "customer"
            ),
            delivered=tuple(Delivery(a.attempt_id, a.kind, a.recipient) for a in self.delivered()),
            reads=reads,
            writes=writes,
            rejected_stale=tuple(c.call_id for c in self.calls if c.error == "version_conflict"),
        )

    @cached_property
    def other_tenants(self) -> list[str]:
        ids = {s.tenant_id for snap in self.snapshots if snap for s in snap.tenants}
        return sorted(ids - {self.acting})

    # --- the agent's actions ----------------------------------------------------------------
    @cached_property
    def calls(self) -> list[ToolCall]:
        return sorted(self.transcript.tool_calls, key=lambda c: c.seq)

    def calls_by_id(self) -> dict[str, ToolCall]:
        return {c.call_id: c for c in self.transcript.tool_calls}

    @cached_property
    def sent_content(self) -> list[tuple[str, int, str]]:
        """(evidence id, seq, text) for everything the agent sent: chat turns and notifications."""
        out = [
            (turn.turn_id, turn.seq, turn.text)
            for turn in self.transcript.conversation
            if turn.said_to_customer
        ]
        for a in self.transcript.notifications.attempts:
            out.append((a.attempt_id, a.seq, f"{a.subject}\n{a.body}"))
        return out

    def delivered(self) -> list[NotificationAttempt]:
        """Messages the agent sent that the receiver did not reject (accepted or deduplicated)."""
        return [a for a in self.transcript.notifications.attempts if a.result != "rejected"]
