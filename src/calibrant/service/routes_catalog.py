"""/api/rubrics and /api/judges: rubric and judge versions kept in the store (admin writes,
adjudicators and admins read)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Query, Request, Response

from ..errors import InputError
from ..ops import catalog
from ..store.users import User
from .api_models import JudgeDetail, JudgeOut, RubricDetail, RubricOut
from .security import require

__all__ = ["router"]

router = APIRouter(prefix="/api", tags=["rubrics and judges"])

_YAML_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "application/yaml": {"schema": {"type": "string"}},
            "text/plain": {"schema": {"type": "string"}},
        },
    }
}


async def _text(request: Request) -> str:
    raw = await request.body()
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            "request body", f"not UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from None


@router.post(
    "/rubrics",
    openapi_extra=_YAML_BODY,
    status_code=201,
    responses={200: {"description": "Already stored: the same entry.", "model": RubricOut}},
    response_model=RubricOut,
)
async def post_rubric(
    request: Request,
    response: Response,
    user: User = Depends(require("admin")),  # noqa: B008
) -> RubricOut:
    """Store a rubric (its YAML, as `calibrant` reads rubric files) under the hash of its
    content: 201 when new, 200 with the same entry when it was already stored."""
    text = await _text(request)
    row, created = catalog.add_rubric(request.app.state.engine, text, user.name)
    response.status_code = 201 if created else 200
    return catalog.rubric_info(row)


@router.get("/rubrics")
def get_rubrics(
    request: Request,
    _: User = Depends(require("adjudicator")),  # noqa: B008
) -> list[RubricOut]:
    """Every stored rubric, newest first (without its text)."""
    return [catalog.rubric_info(r) for r in catalog.list_rubrics(request.app.state.engine)]


@router.get("/rubrics/{content_hash}")
def get_rubric(
    content_hash: str,
    request: Request,
    _: User = Depends(require("adjudicator")),  # noqa: B008
) -> RubricDetail:
    """One stored rubric by its hash (`sha256:...`, the prefix optional), with its YAML."""
    row = catalog.get_rubric(request.app.state.engine, content_hash)
    return catalog.rubric_detail(row)


@router.post(
    "/judges",
    openapi_extra=_YAML_BODY,
    status_code=201,
    responses={200: {"description": "Already stored: the same entry.", "model": JudgeOut}},
    response_model=JudgeOut,
)
async def post_judge(
    request: Request,
    response: Response,
    name: str = Query(  # noqa: B008
        min_length=1, max_length=64, description="The judge's name (its versions share it)."
    ),
    user: User = Depends(require("admin")),  # noqa: B008
) -> JudgeOut:
    """Store a judge version: a saved judge configuration (YAML, as judges/NAME.yaml) whose
    `rubric` is a stored rubric's hash or a rubric file on the server (stored with it). Its
    version is the hash of its resolved configuration: 201 when new, 200 when stored already."""
    text = await _text(request)
    engine = request.app.state.engine
    row, created = catalog.add_judge(engine, name, text, user.name)
    response.status_code = 201 if created else 200
    return catalog.judge_info(engine, row)


@router.get("/judges")
def get_judges(
    request: Request,
    _: User = Depends(require("adjudicator")),  # noqa: B008
) -> list[JudgeOut]:
    """Every stored judge version with its latest calibration in the store (as `calibrant
    judges list`), by name, newest version first."""
    engine = request.app.state.engine
    return [catalog.judge_info(engine, r) for r in catalog.list_judges(engine)]


@router.get("/judges/{ref}")
def get_judge(
    ref: str,
    request: Request,
    _: User = Depends(require("adjudicator")),  # noqa: B008
) -> JudgeDetail:
    """One judge version, by its hash or by name (the latest version of that name), with its
    stored configuration."""
    engine = request.app.state.engine
    return catalog.judge_detail(engine, catalog.get_judge(engine, ref))
