"""Records as the independent evaluator sees them: a domain's snapshot, its records by kind.

A snapshot is what the evaluator identity read from the service before and after a trial, never
what the agent's tools told the agent. Each kind is one the domain pack declares
(`RecordSpec.kind`), each record an object of its model; the pack reads a tenant into its own
snapshot model (`calibrant.domains.conform.tenant_snapshot`).
"""

from __future__ import annotations

from pydantic import AwareDatetime, Field, JsonValue

from .common import Contract, Id

__all__ = ["DomainTenant", "DomainSnapshot"]


class DomainTenant(Contract):
    """Every record of one tenant, by kind: each kind is one the domain pack declares
    (`RecordSpec.kind`), each object a record of its model. Read into the pack's own snapshot
    model when the pack is installed (`calibrant.domains`)."""

    tenant_id: Id = Field(description="Tenant id.")
    name: str = Field(description="Display name (the tenant's own protected value).")
    records: dict[Id, list[dict[str, JsonValue]]] = Field(
        default_factory=dict,
        description="The tenant's records by kind (a kind the pack declares), each an object "
        "of the kind's record model.",
    )


class DomainSnapshot(Contract):
    """A domain's state for all tenants, read by an independent evaluator identity (what every
    transcript carries in memory, whatever its pack's files spell: `contracts.forms`)."""

    taken_by: Id = Field(
        description="Evaluator principal that read the snapshot; never the agent's identity."
    )
    seq: int = Field(ge=0, description="Logical clock of the trial when it was taken.")
    taken_at: AwareDatetime = Field(description="Time (UTC).")
    tenants: list[DomainTenant] = Field(description="One entry per tenant.")

    def tenant(self, tenant_id: str) -> DomainTenant | None:
        """The snapshot of one tenant, or None."""
        for t in self.tenants:
            if t.tenant_id == tenant_id:
                return t
        return None
