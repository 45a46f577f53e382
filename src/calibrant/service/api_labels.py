"""The labeling API: transcripts uploaded as items, labels, disagreements, adjudications and the
export to the gold format. Thin: each route parses, calls one function of the core, answers.

An annotator reads only its own labels: GET /api/labels answers with them whatever it asks, and
the routes that show everyone's labels (disagreements, adjudications, export) need the
adjudicator role. Experts see and name items by their opaque alias only (a transcript id, even
a right guess, is answered as an unknown name), listed in the aliases' order, and an item as the
records and the conversation; the transcript id, its content hash, its upload time and the
transcript itself (agent, case, run) are the admin's."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Path, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import Field
from starlette.concurrency import run_in_threadpool

from ..judge.evidence import conversation_items, trusted_evidence
from ..ops.gold_export import gold_export, safe_name
from ..store import adjudication as adj
from ..store import labeling as lab
from ..store.uploads import parse_transcripts
from ..store.users import User
from ..store.views import record_views
from . import label_import
from .api_models import (
    ID_PATTERN,
    AdjudicationIn,
    AdjudicationOut,
    BlindLabel,
    DisagreementOut,
    ItemDetail,
    ItemOut,
    LabelOut,
    LabelSubmission,
    Model,
    QueueOut,
    RecordOut,
    TurnOut,
    UploadResult,
)
from .security import require

__all__ = ["router", "install", "api_user"]

router = APIRouter(prefix="/api", tags=["labeling"])


def api_user(role: str) -> Callable[..., User]:
    """`require(role)`: the role, and the CSRF token on a write made with the cookie."""
    return require(role)


Annotator = Annotated[User, Depends(api_user("annotator"))]
Adjudicator = Annotated[User, Depends(api_user("adjudicator"))]
Admin = Annotated[User, Depends(api_user("admin"))]
QueueName = Annotated[str, Query(min_length=1, max_length=200, pattern=ID_PATTERN)]
IdQuery = Annotated[str | None, Query(max_length=200, pattern=ID_PATTERN)]
"""An item or rater to filter on (as the stored ids are: no NUL a store would refuse)."""


_TRANSCRIPT_FILE = {
    "type": "object",
    "additionalProperties": {"$ref": "#/components/schemas/JsonTree"},
    "description": "A transcript file's JSON (free-form here: each pack spells its own).",
}
_UPLOAD_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "description": "One transcript (JSON object), a JSON array of transcripts, or JSON "
        "Lines (one transcript per line), each as its file holds it: in its domain pack's own "
        "spelling, checked by calibrant's transcript model on arrival (a bad one: 422 naming "
        "its line and field).",
        "content": {
            "application/json": {
                "schema": {
                    "anyOf": [
                        _TRANSCRIPT_FILE,
                        {"type": "array", "items": _TRANSCRIPT_FILE},
                    ]
                }
            },
            "application/x-ndjson": {"schema": {"type": "string"}},
        },
    }
}


@router.post("/transcripts", openapi_extra=_UPLOAD_BODY, response_model=UploadResult)
async def upload(
    request: Request,
    user: Admin,
    queue: QueueName = "calibration",
    rubric: Annotated[
        str | None, Query(max_length=100, description="Rubric content hash (default: newest).")
    ] = None,
) -> UploadResult:
    """Upload transcripts as items of a labeling queue, all or nothing (admin). A bad
    transcript gets 422 naming its line and field; nothing is stored."""
    body = await request.body()
    engine = request.app.state.engine
    parsed = await run_in_threadpool(
        parse_transcripts, body, request.headers.get("content-type", "")
    )
    rubric_hash, added, present = await run_in_threadpool(
        lambda: lab.upload_transcripts(
            engine, parsed, queue=queue, rubric_hash=rubric, by=user.name
        )
    )
    return UploadResult(queue=queue, rubric=rubric_hash, added=added, already_present=present)


class ImportResult(Model):
    labels: int = Field(description="Labels stored (new or replacing the same rater's).")
    raters: int = Field(description="Distinct raters in the body.")
    items: int = Field(description="Distinct items in the body.")


_IMPORT_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "description": "Labels in the gold format: JSON Lines (one label object per line) or "
        "CSV (Content-Type text/csv; header item,rater,criterion,label[,note]).",
        "content": {
            "application/x-ndjson": {"schema": {"type": "string"}},
            "text/csv": {"schema": {"type": "string"}},
        },
    }
}


@router.post("/labels/import", openapi_extra=_IMPORT_BODY)
async def import_labels(request: Request, user: Admin) -> ImportResult:
    """Import labels made elsewhere (admin): every rater's, as given, checked against the
    uploaded items and their rubrics; all or nothing, a bad line named with its field.
    `consensus` lines are refused: consensus comes from adjudication here."""
    body = await request.body()
    csv_format = "csv" in request.headers.get("content-type", "")
    counts = await run_in_threadpool(
        lambda: label_import.import_labels(request.app.state.engine, body, csv_format=csv_format)
    )
    return ImportResult(**counts)


def _item_out(row: Any, user: User) -> ItemOut:
    """What the caller may know of an item: an expert gets its alias, queue and rubric only
    (the transcript id names the agent, case and run; the content hash finds it in a run's
    report; the upload time tells one upload batch from another)."""
    admin = user.can("admin")
    alias = row.alias or row.id
    return ItemOut(
        id=row.id if admin else alias,
        alias=alias,
        transcript_id=row.id if admin else None,
        queue=row.queue,
        rubric=row.rubric_hash,
        transcript_hash=row.transcript_hash if admin else None,
        uploaded_at=lab.utc(row.created_at) if admin else None,
    )


@router.get("/items")
def items(request: Request, user: Annotator, queue: QueueName | None = None) -> list[ItemOut]:
    """The items uploaded for labeling (no labels in them), by queue, then by the name the
    caller knows them by (an expert's: the random alias, an order that tells nothing)."""
    rows = lab.list_items(request.app.state.engine, queue=queue)
    return sorted((_item_out(r, user) for r in rows), key=_by_queue_and_id)


def _by_queue_and_id(row: ItemOut) -> tuple[str, str]:
    return row.queue, row.id


@router.get("/items/{item:path}")
def item(request: Request, user: Annotator, item: str) -> ItemDetail:
    """One item, by its alias (an admin may give its transcript id): the records and the
    conversation; its transcript for an admin."""
    found = lab.get_item(request.app.state.engine, item, by_id=user.can("admin"))
    t = found.transcript
    return ItemDetail(
        **dict(_item_out(found, user)),
        records=[RecordOut(id=e.id, t=e.t, text=e.text) for e in trusted_evidence(t)],
        conversation=[TurnOut(id=i, t=n, header=h, text=x) for i, n, h, x in conversation_items(t)],
        transcript=t.model_dump(mode="json") if user.can("admin") else None,  # its file's JSON
    )


@router.get("/queues")
def queues(request: Request, user: Annotator) -> list[QueueOut]:
    """The caller's progress in each queue, and its next item."""
    return [QueueOut(**vars(q)) for q in lab.queues_of(request.app.state.engine, user.name)]


def _shown(request: Request, user: User, ids: list[str]) -> dict[str, str]:
    """How `user` names these items: their ids for an admin, their aliases for an expert."""
    if user.can("admin"):
        return {i: i for i in ids}
    return lab.aliases(request.app.state.engine, ids)


def _label_out(x: lab.StoredLabel, names: dict[str, str]) -> LabelOut:
    return LabelOut(**{**vars(x), "item": names.get(x.item, x.item)})


def _labels_out(found: list[lab.StoredLabel], names: dict[str, str]) -> list[LabelOut]:
    """Labels in the order of the names the caller knows the items by."""
    out = [_label_out(x, names) for x in found]
    return sorted(out, key=lambda x: (x.item, x.rater, x.criterion))


@router.post("/labels")
def post_labels(request: Request, user: Annotator, body: LabelSubmission) -> list[LabelOut]:
    """Save the caller's labels of one item (annotator and up); a label given again replaces
    the caller's own earlier one. Checked against the item's rubric."""
    saved = lab.save_labels(
        request.app.state.engine,
        user.name,
        body.item,
        [(x.criterion, x.label, x.note) for x in body.labels],
        by_id=user.can("admin"),
    )
    names = _shown(request, user, [x.item for x in saved])
    return [_label_out(x, names) for x in saved]


@router.get("/labels")
def get_labels(
    request: Request,
    user: Annotator,
    item: IdQuery = None,
    rater: IdQuery = None,
) -> list[LabelOut]:
    """Labels. An annotator gets only its own (asking for another rater's is 403); an
    adjudicator or admin gets everyone's, or one rater's."""
    if not user.can("adjudicator"):
        if rater not in (None, user.name):
            raise HTTPException(403, "an annotator reads only its own labels")
        rater = user.name
    found = lab.labels_of(request.app.state.engine, rater=rater, item=item, by_id=user.can("admin"))
    record_views(
        request.app.state.engine, user.name, (x.item for x in found if x.rater != user.name)
    )
    names = _shown(request, user, [x.item for x in found])
    return _labels_out(found, names)


@router.get("/disagreements")
def get_disagreements(
    request: Request,
    user: Adjudicator,
    item: IdQuery = None,
    include_decided: bool = False,
) -> list[DisagreementOut]:
    """Items and criteria where the raters' labels differ and nobody has decided (adjudicator
    and up), leaving out those the caller labeled itself. No rater is named."""
    found = adj.disagreements(
        request.app.state.engine,
        item=item,
        include_decided=include_decided,
        for_adjudicator=user.name,
        by_id=user.can("admin"),
    )
    record_views(request.app.state.engine, user.name, (d.item for d in found))
    names = _shown(request, user, [d.item for d in found])
    out = [
        DisagreementOut(
            item=names.get(d.item, d.item),
            criterion=d.criterion,
            labels=[BlindLabel(label=b.label, note=b.note) for b in d.labels],
        )
        for d in found
    ]
    return sorted(out, key=lambda d: (d.item, d.criterion))


def _decision_out(d: adj.Decision, names: dict[str, str]) -> AdjudicationOut:
    return AdjudicationOut(**{**vars(d), "item": names.get(d.item, d.item)})


@router.post("/adjudications")
def post_adjudication(request: Request, user: Adjudicator, body: AdjudicationIn) -> AdjudicationOut:
    """Decide a disagreement: the consensus label and why; records who decided."""
    decided = adj.adjudicate(
        request.app.state.engine,
        item=body.item,
        criterion=body.criterion,
        label=body.label,
        reason=body.reason,
        by=user.name,
        by_id=user.can("admin"),
    )
    return _decision_out(decided, _shown(request, user, [decided.item]))


@router.get("/adjudications")
def get_adjudications(
    request: Request, user: Adjudicator, item: IdQuery = None
) -> list[AdjudicationOut]:
    """The decisions made so far, with who decided and why."""
    engine = request.app.state.engine
    if item is None:
        found = adj.decisions(engine)
    else:
        try:
            found = adj.decisions(engine, item=lab.resolve(engine, item, by_id=user.can("admin")))
        except lab.NotFound:
            found = []  # nothing is stored under that name (for an expert: no such alias)
    record_views(engine, user.name, (d.item for d in found))
    names = _shown(request, user, [d.item for d in found])
    return sorted((_decision_out(d, names) for d in found), key=lambda d: (d.item, d.criterion))


@router.get(
    "/export/labels",
    response_class=Response,
    responses={200: {"content": {"application/zip": {}}, "description": "labels/*.jsonl"}},
)
def export_all(request: Request, user: Adjudicator, queue: QueueName | None = None) -> Response:
    """The gold `labels/` folder as a zip: `<rater>.jsonl` per rater and `consensus.jsonl`
    (adjudicated labels, and those two or more raters agree on). Items by their transcript
    ids for an admin, by their aliases for an adjudicator."""
    engine = request.app.state.engine
    data = adj.export_zip(engine, queue=queue, names=_export_names(engine, user))
    shown = {x.item for x in lab.labels_of(engine) if x.rater != user.name}
    if queue is not None:
        shown &= {i.id for i in lab.list_items(engine, queue=queue)}
    record_views(engine, user.name, shown)
    return Response(
        data,
        media_type="application/zip",
        headers={"Content-Disposition": 'attachment; filename="labels.zip"'},
    )


@router.get(
    "/export/labels/{rater}",
    response_class=Response,
    responses={200: {"content": {"application/x-ndjson": {}}, "description": "JSON Lines"}},
)
def export_one(
    request: Request,
    user: Adjudicator,
    rater: Annotated[str, Path(max_length=200, pattern=ID_PATTERN)],
    queue: QueueName | None = None,
) -> Response:
    """One rater's labels, or the consensus (rater `consensus`), as gold-format JSON Lines
    (items named as in the zip)."""
    engine = request.app.state.engine
    if rater != user.name:
        plain = adj.export_jsonl(engine, rater, queue=queue)
        record_views(engine, user.name, (json.loads(line)["item"] for line in plain.splitlines()))
    text = adj.export_jsonl(engine, rater, queue=queue, names=_export_names(engine, user))
    return Response(text, media_type="application/x-ndjson")


def _export_names(engine: Any, user: User) -> dict[str, str] | None:
    """How an export names items: None (their transcript ids) for an admin, else aliases."""
    return None if user.can("admin") else lab.aliases(engine)


@router.get(
    "/export/gold",
    response_class=Response,
    responses={200: {"content": {"application/zip": {}}, "description": "a gold folder"}},
)
def export_gold(request: Request, user: Admin, queue: QueueName) -> Response:
    """A labeled queue as a complete gold folder in a zip (admin): manifest.yaml (case, agent,
    split by case, tags, provenance), transcripts/, labels/<rater>.jsonl per expert,
    labels/consensus.jsonl, rubric.yaml, labeling/new_items.txt; what `calibrant gold export`
    writes. 404: no such queue; 409: no label in it yet."""
    engine = request.app.state.engine
    export = gold_export(engine, queue)
    others = {x.item for x in lab.labels_of(engine) if x.rater != user.name}
    record_views(engine, user.name, others & {i.id for i in lab.list_items(engine, queue=queue)})
    name = f"gold-{safe_name(queue)}"
    return Response(
        export.zip(name),
        media_type="application/zip",
        headers={"Content-Disposition": f'attachment; filename="{name}.zip"'},
    )


def install(app: FastAPI) -> None:
    """Add the labeling API to `app`, with 404 and 409 for missing and conflicting records."""

    async def not_found(_: Request, exc: Exception) -> JSONResponse:
        return JSONResponse(status_code=404, content={"detail": str(exc)})

    async def conflict(_: Request, exc: Exception) -> JSONResponse:
        return JSONResponse(status_code=409, content={"detail": str(exc)})

    app.add_exception_handler(lab.NotFound, not_found)
    app.add_exception_handler(lab.Conflict, conflict)
    app.include_router(router)
