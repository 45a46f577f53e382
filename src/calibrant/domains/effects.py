"""The roles the core's generic invariants read from a pack's records: the effects its agent's
work commits (their bounds and approvals), the grants and audit log that authorize them, the
work item a request lives in, the messages that confirm an effect, and the names under which a
pack publishes a generic invariant. Plain data; `calibrant.domains.pack` checks them against the
pack's records when the pack is built."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "ApprovalGate",
    "AuditSpec",
    "Bound",
    "Confirmation",
    "EffectSpec",
    "GrantSpec",
    "PublishedName",
    "WorkItem",
]


@dataclass(frozen=True)
class Bound:
    """What bounds an effect's amount: the record its `subject` field names (of kind `kind`)
    and that record's money field `amount` (a charge's order and what was paid for it). All of
    a subject's effects together, earlier ones included, never exceed it."""

    kind: str
    amount: str


@dataclass(frozen=True)
class ApprovalGate:
    """An approval that gates an effect: records of kind `kind` whose `subject` field names the
    same record as the effect's `subject`, approving `amount` when `status` holds `approved`,
    decided at the logical time in `decided_seq` (by the principal in `decided_by`; None: the
    record does not say who, and an agent's decision cannot be told apart). An effect needs one
    when its subject's effects (earlier ones included) go above the threshold: the money field
    `threshold` of the pack's records of kind `threshold_kind` (the one the effect cites in
    its `EffectSpec.cites` field, else the strictest), or when the case requires it."""

    kind: str
    subject: str
    amount: str
    status: str
    decided_seq: str
    approved: str = "approved"
    decided_by: str | None = None
    threshold_kind: str | None = None
    threshold: str | None = None


@dataclass(frozen=True)
class EffectSpec:
    """A kind of record the agent's work commits and the business counts (a charge, a payout,
    a new booking): `kind` (a declared record), the field naming the record it acts on
    (`subject`: a charge's order_id), its amount (`amount`, a money field; None: it has none),
    the logical time it was committed (`committed_seq`), who committed it and by which tool
    call (`committed_by`, `call`; None: the record does not say) and the policy version it
    cites (`cites`). The rules that read it:

    - `bound`: its amounts never exceed another record's money (effects_within_bound);
    - `approval`: above a threshold, a person's approval comes first (approval_before_payment);
    - `policy`: a record of this kind is read before it is committed (policy_read_before_effect);
    - `tools`: the tools that commit it and `queries` the tools that look one up, both by the
      operation id in the argument `operation_argument`: after a tool's lost response the
      outcome is reconciled through them (unknown_outcome_handled); `committed_at` (its commit
      time) tells which grant was valid when it was committed (write_permission_respected).
    """

    kind: str
    subject: str
    committed_seq: str
    amount: str | None = None
    committed_by: str | None = None
    committed_at: str | None = None
    call: str | None = None
    cites: str | None = None
    bound: Bound | None = None
    approval: ApprovalGate | None = None
    policy: str | None = None
    tools: tuple[str, ...] = ()
    queries: tuple[str, ...] = ()
    operation_argument: str = "operation_id"


@dataclass(frozen=True)
class GrantSpec:
    """A grant of scopes to a principal within one tenant (a permission): records of kind
    `kind` naming who holds it (`principal`), its scopes (`scopes`, a list; a scope ending in
    ':write' lets its holder write; an effect's own is '<kind>:write'), when it expires
    (`expires_at`) and the logical time it was revoked (`revoked_seq`). Read by
    no_unauthorized_writes and write_permission_respected."""

    kind: str
    principal: str
    scopes: str
    expires_at: str | None = None
    revoked_seq: str | None = None


@dataclass(frozen=True)
class AuditSpec:
    """The service's audit log: records of kind `kind` naming who acted (`actor`), the tool
    call behind the change (`call`), what was done (`action`) and to which record (`record`).
    An agent's change with no logged call behind it was not authorized (no_unauthorized_writes)."""

    kind: str
    actor: str
    call: str
    action: str | None = None
    record: str | None = None


@dataclass(frozen=True)
class WorkItem:
    """The record the customer's request lives in (a support ticket): its state (`state`; the
    `open_states` are those in which a person can still act on it), the field naming the record
    the case is about (`subject`), who holds it (`assignee`, and `assignee_kind`: "person" or
    "agent"; an id starting with 'agent:' or the agent's own is an agent's) and whether an
    effect's outcome is recorded as unknown (`reconciliation` holding `uncertain`). Read by
    unknown_outcome_handled and write_permission_respected: what must be left open for a person
    when the agent cannot finish."""

    kind: str
    state: str
    open_states: tuple[str, ...]
    subject: str | None = None
    assignee: str | None = None
    assignee_kind: str | None = None
    reconciliation: str | None = None
    uncertain: str = "uncertain"


@dataclass(frozen=True)
class Confirmation:
    """A message that confirms an effect (of kind `effect`, an `EffectSpec` of the pack):
    notifications of kind `message` (their `order_id` names the effect's subject, their
    `amount_minor_units` the amount), or sentences of the agent's own text matching one of
    `claims` (regular expressions, case-insensitive). Either is true only when sent after the
    effect committed (confirmation_matches_committed_state). A notification also goes to the
    party who owns the subject: the subject record (of kind `subject`) names that party's
    record in its field `party` (of kind `party_kind`, whose address field is where the message
    belongs)."""

    effect: str
    message: str | None = None
    claims: tuple[str, ...] = ()
    subject: str | None = None
    party: str | None = None
    party_kind: str | None = None


@dataclass(frozen=True)
class PublishedName:
    """The name (and, optionally, the one-line summary) under which a pack publishes one of
    calibrant's generic invariants: its verdicts, reports and baselines name `invariant` as
    `name`, and a case's `invariants:` setting named `name` switches it off. A pack whose files
    named an invariant before it became generic keeps that name this way."""

    invariant: str
    name: str
    summary: str | None = None
