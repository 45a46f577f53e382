"""The team's system-of-record snapshots, read from files.

A snapshot file is in its pack's snapshot format (`calibrant schema snapshot [--domain NAME]`):
the envelope (`taken_by`, `seq`, `taken_at`) with `tenants`, each one object of the pack's
snapshot model (`SnapshotSpec.model`). It is validated with that model and carried in the
transcript in the generic form (`DomainSnapshot`: each tenant's records by kind), which the
checker and the judge read back through the same pack. A pack's files written before calibrant
had domains are in this format already (their envelope is the same). A bad file is one error
naming the file, the line and the field."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from pydantic import AwareDatetime, BaseModel, Field, ValidationError, create_model

from ..contracts import DomainSnapshot
from ..contracts.common import Contract, Id
from ..contracts.records import DomainTenant
from ..domains import DomainPack
from ..errors import InputError
from ..files import field_error, validation_error

__all__ = ["read_domain_snapshot", "snapshot_file_model"]

M = TypeVar("M", bound=BaseModel)


class _Envelope(Contract):
    """What every snapshot file holds beside its tenants."""

    taken_by: Id = Field(
        description="Evaluator principal that read the snapshot; never the agent's identity."
    )
    seq: int = Field(ge=0, description="Logical clock of the trial when it was taken.")
    taken_at: AwareDatetime = Field(description="Time (UTC).")


@cache
def _file_model(tenant: type[BaseModel]) -> type[BaseModel]:
    """A snapshot file of a pack whose tenants are `tenant` objects."""
    return create_model(
        f"{tenant.__name__}File",
        __base__=_Envelope,
        __doc__=f"A snapshot file: every tenant's records, each tenant a {tenant.__name__}, "
        "read by an evaluator identity.",
        tenants=(list[tenant], Field(description="One entry per tenant.")),  # type: ignore[valid-type]
    )


def snapshot_file_model(pack: DomainPack) -> type[BaseModel]:
    """The model of `pack`'s snapshot files (`calibrant schema snapshot --domain NAME`); the
    pack declares its snapshot."""
    assert pack.snapshot is not None
    return _file_model(pack.snapshot.model)


SNAPSHOT_HELP = (
    "write the snapshot in the format `calibrant schema snapshot` prints (another domain's: "
    "with --domain NAME)"
)


def _read(model: type[M], path: Path) -> M:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(
            path, f"cannot read: {exc.strerror}; give a snapshot file you can read"
        ) from None
    try:
        return model.model_validate_json(text)
    except ValidationError as exc:
        try:
            json.loads(text)
        except json.JSONDecodeError as bad:
            raise InputError(
                path, f"malformed JSON: {bad.msg}; {SNAPSHOT_HELP}", line=bad.lineno
            ) from None
        err = validation_error(path, text, exc)
        raise InputError(
            err.path, f"{err.detail}; {SNAPSHOT_HELP}", line=err.line, field=err.field
        ) from None


def read_domain_snapshot(pack: DomainPack, path: Path) -> DomainSnapshot:
    """A snapshot file of `pack`'s domain (the pack declares its snapshot), in the generic form:
    each tenant's records by kind, every kind the pack declares."""
    spec = pack.snapshot
    assert spec is not None
    doc: Any = _read(snapshot_file_model(pack), path)
    lists = spec.lists(pack.records)
    named = "name" in spec.model.model_fields
    tenants: list[DomainTenant] = []
    for i, tenant in enumerate(doc.tenants):
        tenant_id = str(getattr(tenant, spec.tenant_field))
        records = {
            kind.kind: [r.model_dump(mode="json") for r in getattr(tenant, field)]
            for field, kind in lists
        }
        try:
            tenants.append(
                DomainTenant(
                    tenant_id=tenant_id,
                    name=str(tenant.name) if named else tenant_id,
                    records=records,
                )
            )
        except ValidationError:  # the one field DomainTenant holds stricter: an id
            raise field_error(
                path,
                ("tenants", i, spec.tenant_field),
                f"{tenant_id!r} is not an identifier; use only letters, digits and _ . : - / @ +",
            ) from None
    return DomainSnapshot(
        taken_by=doc.taken_by, seq=doc.seq, taken_at=doc.taken_at, tenants=tenants
    )
