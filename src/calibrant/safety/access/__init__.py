"""Rules about who may write and what is left for a person, read by role (`GrantSpec`,
`AuditSpec`, `WorkItem`, and the tools of an `EffectSpec`).

They read the service's tool-call log (authorization decisions, committed writes, lost
responses) against the grants, audit log and work item the pack declares, and never name a
record kind or a field of any domain. A pack that declares none of a rule's roles gets
not_applicable with the reason.

One rule a module: `writes` (no_unauthorized_writes), `grants` (write_permission_respected),
`lost` (unknown_outcome_handled); what they read off the roles in `roles`."""

from __future__ import annotations

from .grants import dead_grants
from .lost import lost_responses
from .roles import work_item
from .writes import unauthorized_writes

__all__ = [
    "dead_grants",
    "lost_responses",
    "unauthorized_writes",
    "work_item",
]
