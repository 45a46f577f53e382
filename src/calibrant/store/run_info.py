"""A stored run as it is shown: a listing's line (`RunInfo`) and a run's whole record with its
report read as its kind's model (`RunDetail`); a running run whose process has ended shows as
interrupted."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from typing import Any, cast

from pydantic import BaseModel, ConfigDict, field_serializer
from pydantic import Field as PydanticField

from ..contracts.reports import AnyReport, report_for_run
from ..contracts.reports.base import JsonScalar, JsonTree, JudgeFields, Strict
from .liveness import PROCESS_KEY, RunProcess, shown_status
from .run_tables import RunRow


def _status(r: RunRow, now: float) -> str:
    """The status to show (interrupted: running, but its process has ended)."""
    if r.status != "running":
        return r.status
    return shown_status(r.status, json.loads(r.arguments).get(PROCESS_KEY), now=now)


class RunInfo(Strict):
    """A stored run, for listings; as JSON data (`json_data()`: `runs list --json`,
    GET /api/runs) its times are in UTC."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    kind: str
    status: str
    who: str
    started_at: datetime
    finished_at: datetime | None
    judge_hash: str | None
    rubric_hash: str | None
    calibrant_version: str

    @field_serializer("started_at", "finished_at", when_used="json")
    def _utc(self, when: datetime | None) -> str | None:
        """ISO 8601 in UTC (the store keeps UTC; SQLite hands it back without its zone)."""
        if when is None:
            return None
        return (when if when.tzinfo else when.replace(tzinfo=UTC)).isoformat()

    @classmethod
    def of(cls, r: RunRow, now: float | None = None) -> RunInfo:
        """`now`: the time leases are read against (default: the wall clock)."""
        return cls(
            id=r.id,
            kind=r.kind,
            status=_status(r, time.time() if now is None else now),
            who=r.who,
            started_at=r.started_at,
            finished_at=r.finished_at,
            judge_hash=r.judge_hash,
            rubric_hash=r.rubric_hash,
            calibrant_version=r.calibrant_version,
        )


class RunSampling(BaseModel):
    """How the judge sampled (recorded when the run started)."""

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, JsonScalar] = PydanticField(init=False)
    temperature: float | None = None
    top_p: float | None = None
    seed: int | None = None
    max_tokens: int | None = None
    samples: int | None = None


class RunDetail(Strict):
    """A stored run: its provenance and the report it produced (`runs show`, GET /api/runs/ID).
    The report is its kind's model (calibrant.contracts.reports), or the JSON as stored when
    the run has no report model (a provider batch, a failed run's error) or the stored report
    is one this calibrant cannot read as one."""

    model_config = ConfigDict(extra="forbid")

    id: str
    kind: str
    status: str
    process: RunProcess | None  # who ran it (host:pid:random) and its lease, or None
    who: str
    started_at: str
    finished_at: str | None
    calibrant_version: str
    judge_hash: str | None
    judge: JudgeFields | None
    rubric_hash: str | None
    prompt_template_version: str | None
    sampling: RunSampling | None
    seed: int | None
    arguments: dict[str, JsonTree] = PydanticField(
        description="The command's options as it recorded them (free-form: each command its own)."
    )
    report: AnyReport | dict[str, JsonTree] | None
    error: str | None  # why it failed, if known


def _typed(kind: str, report: Any) -> AnyReport | dict[str, JsonTree] | None:
    """A stored report as its model; as stored when it has none or cannot be read as one."""
    if not isinstance(report, dict):
        return None
    try:
        typed = report_for_run(kind, report)
    except ValueError:  # pydantic's ValidationError, a report from a newer calibrant
        return report
    return report if typed is None else cast(AnyReport, typed)
