"""Evaluator snapshots: every tenant's records, read straight from the service's database by
an evaluator identity — never through the agent's tools, never as the agent. What the
invariants and the judge trust is this, not what the agent was told."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from pydantic import BaseModel, SerializeAsAny
from sqlmodel import Session, select

from ..contracts import DomainSnapshot, DomainTenant
from .service import Service
from .tables import PermissionRow, TenantRow

__all__ = ["SnapshotTable", "TenantRecords", "ServiceSnapshot", "evaluator_snapshot"]

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class SnapshotTable:
    """One table the snapshot reads: the record `kind` it holds, its SQLModel table (with a
    `tenant_id` column), the column its rows are ordered by, and how a row becomes the pack's
    record model."""

    kind: str
    table: Any
    order_by: str
    record: Callable[[Any, Service], BaseModel]


class TenantRecords(BaseModel):
    """One tenant's records, by kind."""

    tenant_id: str
    name: str
    records: dict[str, list[SerializeAsAny[BaseModel]]]

    def of(self, kind: str, model: type[M]) -> list[M]:
        """The records of `kind`, typed as `model`."""
        out = self.records[kind]
        assert all(isinstance(r, model) for r in out), kind
        return out  # type: ignore[return-value]


class ServiceSnapshot(BaseModel):
    """Every tenant's records at one logical instant, and who read them."""

    taken_by: str
    seq: int
    taken_at: datetime
    tenants: list[TenantRecords]

    def generic(self) -> DomainSnapshot:
        """The snapshot as a transcript holds it (`snapshot_before`/`snapshot_after`): each
        tenant's records by kind, as JSON."""
        return DomainSnapshot(
            taken_by=self.taken_by,
            seq=self.seq,
            taken_at=self.taken_at,
            tenants=[
                DomainTenant(
                    tenant_id=t.tenant_id,
                    name=t.name,
                    records={
                        kind: [r.model_dump(mode="json") for r in records]
                        for kind, records in t.records.items()
                    },
                )
                for t in self.tenants
            ],
        )


def evaluator_snapshot(
    svc: Service, tables: Sequence[SnapshotTable], *, taken_by: str
) -> ServiceSnapshot:
    """Read every table of every tenant as `taken_by`, at a new instant. An identity holding a
    grant in the service (an agent) is refused: a snapshot is the evaluator's, never the
    agent's."""
    with Session(svc.engine) as s:
        if s.exec(select(PermissionRow).where(PermissionRow.principal == taken_by)).first():
            raise ValueError(
                f"{taken_by} holds grants in the service: snapshots are read by an evaluator "
                "identity, never by the agent's"
            )
        seq = svc.tick(s)
        s.commit()
        tenants = []
        for t in s.exec(select(TenantRow).order_by(TenantRow.tenant_id)):
            records: dict[str, list[BaseModel]] = {}
            for spec in tables:
                stmt = (
                    select(spec.table)
                    .where(spec.table.tenant_id == t.tenant_id)
                    .order_by(getattr(spec.table, spec.order_by))
                )
                records[spec.kind] = [spec.record(r, svc) for r in s.exec(stmt)]
            tenants.append(TenantRecords(tenant_id=t.tenant_id, name=t.name, records=records))
    return ServiceSnapshot(taken_by=taken_by, seq=seq, taken_at=svc.at(seq), tenants=tenants)
