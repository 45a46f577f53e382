"""Background jobs started through the service: what may be asked (one strict contract per
kind), their rows in the store, and their lifecycle.

A job is a row (queued, running, finished, failed, cancelling, cancelled) plus one task on the
same procrastinate queue as batch scoring, taken by `calibrant worker` or `calibrant serve
--worker`. The queue lives in the store's PostgreSQL: on SQLite jobs are refused."""

from __future__ import annotations

import json
import uuid
from contextlib import ExitStack
from datetime import UTC, datetime
from typing import Annotated, Any, Literal, cast

from pydantic import Field
from sqlalchemy import Engine, update
from sqlmodel import Session, col, select

from ..agreement.gate_settings import GATE_DEFAULTS
from ..contracts.common import Contract
from ..errors import CalibrantError, InputError
from ..store.service_tables import JobRow
from .catalog import Conflict, NotFound, iso, resolve_stored_judge
from .job_inputs import (
    Name,
    Text,
    Verdicts,
    calibrate_judge,
    compare_sides,
    gold_of,
    server_files,
    server_gold,
    shown,
)
from .listings import JobOut, JobStatus

__all__ = [
    "JOB_TASK",
    "JobRequest",
    "cancel",
    "create",
    "get",
    "job_info",
    "list_jobs",
    "record_run",
    "set_status",
    "SQLITE_REFUSAL",
]

JOB_TASK = "calibrant.service_job"
JOB_QUEUE = "calibrant-jobs"
SQLITE_REFUSAL = (
    "background jobs need the store on PostgreSQL (they run on its job queue): start "
    "`calibrant serve` with CALIBRANT_DATABASE_URL set to a postgresql:// URL"
)
Split = Literal["calibration", "heldout", "all"]


JudgeRef = Annotated[
    Text,
    Field(min_length=1, max_length=200, description="A stored judge: its hash or its name."),
]


RubricRef = Annotated[
    Text,
    Field(min_length=1, max_length=200, description="A stored rubric: its hash."),
]


class CalibrateParams(Contract):
    """`calibrant calibrate`: judge the gold set and measure the judge against the experts;
    the judge is a stored judge version, or a judge that runs elsewhere known by its recorded
    verdicts (`calibrate --verdicts`); the gold set a folder on the server, or a labeled
    workbench queue (`calibrate --from-store`)."""

    judge: JudgeRef | None = None
    verdicts: Verdicts | None = Field(
        default=None, description="Recorded verdicts of the judge, in place of `judge`."
    )
    rubric: RubricRef | None = Field(
        default=None, description="The stored rubric recorded verdicts are checked on."
    )
    gold: Text | None = Field(
        default=None,
        min_length=1,
        description="Gold set folder on the server, relative to the data root (default: the "
        "installed default pack's gold set).",
    )
    queue: Name | None = Field(
        default=None,
        description="A labeled workbench queue as the gold set, in place of `gold` (exported "
        "for the run as `calibrant gold export` writes it).",
    )
    split: Split = Field(default="calibration", description="Which gold items.")
    seed: int = Field(default=0, ge=0, le=2**32 - 1, description="Bootstrap seed.")
    resamples: int = Field(default=2000, ge=100, le=100_000, description="Bootstrap resamples.")
    min_lower: float = Field(
        default=GATE_DEFAULTS.min_lower, ge=-1, le=1, description="Gate: CI lower bound."
    )
    min_coverage: float = Field(
        default=GATE_DEFAULTS.min_coverage, ge=0, le=1, description="Gate: usable share."
    )
    min_items: int = Field(
        default=GATE_DEFAULTS.min_items,
        ge=2,
        le=1_000_000,
        description="Gate: fewest items (an extra floor).",
    )
    min_cases: int = Field(
        default=GATE_DEFAULTS.min_cases, ge=2, le=1_000_000, description="Gate: fewest cases."
    )
    min_expert_cases: int = Field(
        default=GATE_DEFAULTS.min_expert_cases,
        ge=2,
        le=1_000_000,
        description="Gate: fewest cases rated by two experts.",
    )
    margin: float = Field(
        default=GATE_DEFAULTS.margin, ge=0, le=1, description="Gate: non-inferiority margin."
    )
    no_ceiling: bool = Field(default=False, description="Gate without the experts' ceiling.")


class JudgeParams(Contract):
    """`calibrant judge`: judge transcripts (files or folders on the server)."""

    judge: JudgeRef
    paths: list[Annotated[Text, Field(min_length=1)]] = Field(
        min_length=1, max_length=1000, description="Transcript JSON files or folders."
    )
    samples: int = Field(default=1, ge=1, le=100, description="Judgments per transcript.")


class ScoreParams(Contract):
    """`calibrant score`: safety and communication verdicts of new transcripts; pass rates
    corrected by the calibration `calibration_run` names, as judged without it."""

    judge: JudgeRef
    paths: list[Annotated[Text, Field(min_length=1)]] = Field(
        min_length=1,
        max_length=1000,
        description="Transcript JSON files, folders, JSON Lines files on the server.",
    )
    calibration_run: Text | None = Field(
        default=None,
        min_length=1,
        description="A calibrate run of this judge version (id or unambiguous prefix), or "
        '"latest" for its latest calibration in the store; without it pass rates are as '
        "judged, not corrected.",
    )


class CompareParams(Contract):
    """`calibrant compare`: two judge versions paired on the same gold items, each a stored
    judge version or a judge that runs elsewhere known by its recorded verdicts."""

    a: JudgeRef | None = None
    b: JudgeRef | None = None
    verdicts_a: Verdicts | None = Field(
        default=None, description="Recorded verdicts of judge A, in place of `a`."
    )
    verdicts_b: Verdicts | None = Field(
        default=None, description="Recorded verdicts of judge B, in place of `b`."
    )
    rubric: RubricRef | None = Field(
        default=None,
        description="The stored rubric two verdicts files are checked on (a stored judge "
        "brings its own).",
    )
    gold: Text | None = Field(
        default=None,
        min_length=1,
        description="Gold set folder on the server, relative to the data root (default: the "
        "installed default pack's gold set).",
    )
    split: Split = Field(default="calibration", description="Which gold items.")
    seed: int = Field(default=0, ge=0, le=2**32 - 1, description="Bootstrap seed.")
    resamples: int = Field(default=2000, ge=100, le=100_000, description="Bootstrap resamples.")
    min_cases: int | None = Field(
        default=None,
        ge=2,
        le=100_000,
        description="No B better/worse on fewer cases (default: compare's own, 6).",
    )


class CalibrateJob(Contract):
    kind: Literal["calibrate"]
    params: CalibrateParams


class JudgeJob(Contract):
    kind: Literal["judge"]
    params: JudgeParams


class ScoreJob(Contract):
    kind: Literal["score"]
    params: ScoreParams


class CompareJob(Contract):
    kind: Literal["compare"]
    params: CompareParams


JobRequest = Annotated[CalibrateJob | JudgeJob | ScoreJob | CompareJob, Field(discriminator="kind")]
PARAMS: dict[str, type[Contract]] = {
    "calibrate": CalibrateParams,
    "judge": JudgeParams,
    "score": ScoreParams,
    "compare": CompareParams,
}


def _check(engine: Engine, kind: str, params: Any) -> None:
    """Everything a worker would refuse, refused now: unknown judges, missing paths, a queue
    without consensus, recorded verdicts the gold set or the rubric cannot take."""
    if kind in ("calibrate", "compare"):
        _check_gold(engine, kind, params)
        return
    try:
        resolve_stored_judge(engine, params.judge)
    except NotFound as exc:
        raise InputError("params", str(exc), field="judge") from None
    server_files(params.paths, "paths")  # inside the data root, each there
    if kind == "score" and params.calibration_run is not None:
        from ..scoring.calibration_choice import choose_calibration
        from ..store.runs import Runs

        config = resolve_stored_judge(engine, params.judge)[0]
        try:
            choose_calibration(
                params.calibration_run, runs=Runs(engine), config=config, files=False
            )
        except CalibrantError as exc:
            raise InputError("params", str(exc), field="calibration_run") from None


def _check_gold(engine: Engine, kind: str, params: Any) -> None:
    """A calibrate or compare job read as its worker will read it (the same functions)."""
    p = params.model_dump(mode="json")
    if kind == "calibrate" and params.queue is not None and "gold" in params.model_fields_set:
        raise InputError(
            "params", "gold and queue are two sources of gold: give one", field="queue"
        )
    with ExitStack() as stack:
        if kind == "calibrate":
            gold = gold_of(engine, p, stack)
        else:
            gold = (server_gold(p), None)
        if not gold[0].exists():
            raise InputError(
                "params", f"{gold[0]}: no such file or folder on the server", field="gold"
            )
        if kind == "calibrate":
            calibrate_judge(engine, p, gold[0])
            return
        a, b, _, _ = compare_sides(engine, p)
    if isinstance(a, tuple) and isinstance(b, tuple) and a[1].content_hash != b[1].content_hash:
        raise InputError(
            "params", "judges a and b read different rubrics: compare them on one", field="b"
        )


def create(engine: Engine, request: Any, user: str) -> JobRow:
    """Check a job request and record it as queued (the caller puts it on the queue)."""
    _check(engine, request.kind, request.params)
    row = JobRow(
        id=uuid.uuid4().hex,
        kind=request.kind,
        status="queued",
        params=request.params.model_dump_json(),
        created_by=user,
        created_at=datetime.now(UTC),
    )
    with Session(engine) as s:
        s.add(row)
        s.commit()
        s.refresh(row)
    return row


def get(engine: Engine, job_id: str) -> JobRow:
    with Session(engine) as s:
        row = s.get(JobRow, job_id)
    if row is None:
        raise NotFound(f"no job '{job_id}' (GET /api/jobs lists them)")
    return row


def list_jobs(engine: Engine, *, status: str | None = None, limit: int = 100) -> list[JobRow]:
    with Session(engine) as s:
        stmt = select(JobRow)
        if status is not None:
            stmt = stmt.where(JobRow.status == status)
        return list(s.exec(stmt.order_by(col(JobRow.created_at).desc()).limit(limit)))


def set_status(
    engine: Engine, job_id: str, new: str, *, when: tuple[str, ...], **fields: Any
) -> bool:
    """Move a job to `new` only if its status is one of `when` (atomic); True if it moved."""
    stmt = (
        update(JobRow)
        .where(col(JobRow.id) == job_id, col(JobRow.status).in_(when))
        .values(status=new, **fields)
    )
    with engine.begin() as conn:
        return bool(conn.execute(stmt).rowcount)


def record_run(engine: Engine, job_id: str, run_id: str) -> None:
    """The run the job is producing (known as soon as it is recorded)."""
    with engine.begin() as conn:
        conn.execute(update(JobRow).where(col(JobRow.id) == job_id).values(run_id=run_id))


def cancel(engine: Engine, job_id: str) -> JobRow:
    """A queued job is cancelled at once; a running one is asked to stop (cancelling) and stops
    at its next answer from the judge. A settled job cannot be cancelled (409)."""
    row = get(engine, job_id)
    now = datetime.now(UTC)
    if set_status(engine, job_id, "cancelled", when=("queued",), finished_at=now):
        return get(engine, job_id)
    if set_status(engine, job_id, "cancelling", when=("running",)):
        return get(engine, job_id)
    row = get(engine, job_id)
    if row.status in ("cancelling", "cancelled"):
        return row  # asked twice: the same answer
    raise Conflict(f"job {job_id} is {row.status}: only a queued or running job can be cancelled")


def job_info(row: JobRow) -> JobOut:
    """A job as the API shows it."""
    return JobOut(
        id=row.id,
        kind=row.kind,
        status=cast(JobStatus, row.status),  # the store keeps only these
        params=shown(json.loads(row.params)),
        created_by=row.created_by,
        created_at=iso(row.created_at),
        started_at=iso(row.started_at),
        finished_at=iso(row.finished_at),
        run_id=row.run_id,
        error=row.error,
    )
