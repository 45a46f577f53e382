"""A file of another domain read against its pack: what the contracts leave open (record kinds,
fault points, snapshots' records, a case's fixture and outcomes) checked against what the pack
declares.

The contracts cannot do it themselves: they sit below the registry and never learn which packs
are installed. The loaders (`calibrant.files`) call `conform_transcript` and `conform_case` once
a file has validated, whenever its domain's pack is installed; a file its pack's own form reads
is not touched here (the form checked it in full as it validated). A mismatch is raised as a
pydantic `ValidationError` located at the field (`snapshot_before.tenants.0.records.crate`), so
the loaders report it like any other: one line naming the file, the line and the field."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pydantic import BaseModel, JsonValue, ValidationError
from pydantic_core import InitErrorDetails

from ..contracts import CaseContract, Transcript
from ..contracts.case import DomainFixture, DomainOutcome, Records
from ..contracts.forms import reads_itself
from ..contracts.records import DomainSnapshot, DomainTenant
from .pack import DomainPack, RecordSpec

__all__ = ["conform_transcript", "conform_case", "tenant_snapshot"]

Loc = tuple[int | str, ...]


def _fail(title: str, loc: Loc, value: object, message: str) -> ValidationError:
    return ValidationError.from_exception_data(
        title, [InitErrorDetails(type="value_error", loc=loc, input=value, ctx={"error": message})]
    )


def _moved(title: str, exc: ValidationError, prefix: Loc) -> ValidationError:
    """`exc`'s errors, located under `prefix` (where the validated value sits in the file)."""
    details: list[InitErrorDetails] = []
    for err in exc.errors(include_url=False):
        detail = InitErrorDetails(type=err["type"], loc=(*prefix, *err["loc"]), input=err["input"])
        if "ctx" in err:
            detail["ctx"] = err["ctx"]
        details.append(detail)
    return ValidationError.from_exception_data(title, details)


def _kinds(pack: DomainPack) -> str:
    return ", ".join(spec.kind for spec in pack.records)


def _kind(title: str, pack: DomainPack, loc: Loc, kind: str) -> None:
    if kind not in {spec.kind for spec in pack.records}:
        raise _fail(
            title,
            loc,
            kind,
            f"record kind '{kind}' is not one domain pack '{pack.name}' declares "
            f"(its kinds: {_kinds(pack)})",
        )


def _points(title: str, pack: DomainPack, found: Iterable[tuple[Loc, str]]) -> None:
    for loc, point in found:
        if point not in pack.fault_points:
            declared = ", ".join(pack.fault_points) or "none"
            raise _fail(
                title,
                loc,
                point,
                f"fault point '{point}' is not one domain pack '{pack.name}' declares "
                f"(its points: {declared})",
            )


def _records(title: str, pack: DomainPack, loc: Loc, records: Records) -> None:
    """Every kind declared by the pack and every record an object of its kind's model."""
    for kind, items in records.items():
        _kind(title, pack, (*loc, kind), kind)
        spec = pack.record(kind)
        for j, item in enumerate(items):
            try:
                spec.model.model_validate(item)
            except ValidationError as exc:
                raise _moved(title, exc, (*loc, kind, j)) from None


def _fields(title: str, spec: RecordSpec, loc: Loc, items: Sequence[dict[str, JsonValue]]) -> None:
    """An outcome's records give some fields of their kind: each must be one of its model's."""
    fields = spec.model.model_fields
    for j, item in enumerate(items):
        for name in item:
            if name not in fields:
                raise _fail(
                    title,
                    (*loc, j, name),
                    name,
                    f"'{name}' is not a field of record '{spec.kind}' (its fields: "
                    f"{', '.join(fields)})",
                )


def tenant_snapshot(pack: DomainPack, tenant: DomainTenant) -> BaseModel:
    """One tenant of a generic snapshot as the pack's own snapshot model (its tenant id, its
    display name when the model has a `name`, each kind's records in the list holding them).
    A record the model refuses raises a ValidationError located in the DomainTenant
    (`records.<kind>.<index>.<field>`). The pack must declare a snapshot."""
    snap = pack.snapshot
    assert snap is not None
    data: dict[str, object] = {snap.tenant_field: tenant.tenant_id}
    if "name" in snap.model.model_fields:
        data["name"] = tenant.name
    where: dict[str, str] = {}
    for field, spec in snap.lists(pack.records):
        data[field] = tenant.records.get(spec.kind, [])
        where[field] = spec.kind
    try:
        return snap.model.model_validate(data)
    except ValidationError as exc:
        details: list[InitErrorDetails] = []
        for err in exc.errors(include_url=False):
            loc = tuple(err["loc"])
            if loc and isinstance(loc[0], str) and loc[0] in where:
                loc = ("records", where[loc[0]], *loc[1:])
            detail = InitErrorDetails(type=err["type"], loc=loc, input=err["input"])
            if "ctx" in err:
                detail["ctx"] = err["ctx"]
            details.append(detail)
        raise ValidationError.from_exception_data("DomainTenant", details) from None


def _snapshot(title: str, pack: DomainPack, loc: Loc, snap: DomainSnapshot | None) -> None:
    if snap is None:
        return
    for i, tenant in enumerate(snap.tenants):
        at: Loc = (*loc, "tenants", i)
        for kind in tenant.records:
            _kind(title, pack, (*at, "records", kind), kind)
        if pack.snapshot is None:
            _records(title, pack, (*at, "records"), tenant.records)
            continue
        try:
            tenant_snapshot(pack, tenant)
        except ValidationError as exc:
            raise _moved(title, exc, at) from None


def conform_transcript(pack: DomainPack, t: Transcript) -> None:
    """Check a transcript of `pack`'s domain against the pack (ValidationError at the first
    field that does not conform). A transcript its pack's form reads is left to the form."""
    if reads_itself(t.domain) or t.domain != pack.name:
        return
    title = "Transcript"
    for i, c in enumerate(t.tool_calls):
        for j, r in enumerate(c.reads):
            _kind(title, pack, ("tool_calls", i, "reads", j, "kind"), r.kind)
        for j, w in enumerate(c.writes):
            _kind(title, pack, ("tool_calls", i, "writes", j, "kind"), w.kind)
    _points(
        title,
        pack,
        (
            (("provenance", "fault_schedule", i, "point"), f.point)
            for i, f in enumerate(t.provenance.fault_schedule)
        ),
    )
    _snapshot(title, pack, ("snapshot_before",), t.snapshot_before)
    _snapshot(title, pack, ("snapshot_after",), t.snapshot_after)
    if t.case is not None:
        try:
            conform_case(pack, t.case)
        except ValidationError as exc:
            raise _moved(title, exc, ("case",)) from None


def conform_case(pack: DomainPack, case: CaseContract) -> None:
    """Check a case of `pack`'s domain against the pack: its fault points, its fixture and its
    outcomes (the pack's own models when it declares them, else records by kind)."""
    if reads_itself(case.domain) or case.domain != pack.name:
        return
    title = "CaseContract"
    _points(title, pack, ((("faults", i, "point"), f.point) for i, f in enumerate(case.faults)))
    fx = case.fixture
    if isinstance(fx, DomainFixture):
        _conform_part(title, pack, ("fixture",), fx, pack.case_fixture)
    many = isinstance(case.expected, list)
    for i, outcome in enumerate(case.domain_outcomes()):
        loc: Loc = ("expected", i) if many else ("expected",)
        _conform_part(title, pack, loc, outcome, pack.case_outcome)


def _conform_part(
    title: str,
    pack: DomainPack,
    loc: Loc,
    part: DomainFixture | DomainOutcome,
    model: type[BaseModel] | None,
) -> None:
    """A fixture or an outcome: records of declared kinds (a fixture's whole records, an
    outcome's fields of them), and its `params` read by the pack's model (none without one)."""
    if isinstance(part, DomainFixture):
        _records(title, pack, (*loc, "records"), part.records)
    else:
        for kind, items in part.records.items():
            _kind(title, pack, (*loc, "records", kind), kind)
            _fields(title, pack.record(kind), (*loc, "records", kind), items)
        for kind in part.created:
            _kind(title, pack, (*loc, "created", kind), kind)
    if model is not None:
        try:
            model.model_validate(part.params)
        except ValidationError as exc:
            raise _moved(title, exc, (*loc, "params")) from None
    elif part.params:
        which = "case_fixture" if isinstance(part, DomainFixture) else "case_outcome"
        raise _fail(
            title,
            (*loc, "params"),
            part.params,
            f"domain pack '{pack.name}' declares no {which} model: its cases take no params",
        )
