"""What the catalog and the job queue give back, as the API shows them (service/api_models
re-exports them; their JSON Schema is in /openapi.json): a stored rubric, a stored judge version
with its latest calibration and probe run, a job."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..contracts.reports.base import JsonTree, Strict
from ..store.versions import JudgeEntry

__all__ = ["JobOut", "JobStatus", "JudgeDetail", "JudgeOut", "RubricDetail", "RubricOut"]

JobStatus = Literal["queued", "running", "finished", "failed", "cancelling", "cancelled"]


class RubricOut(Strict):
    hash: str = Field(description="Content hash of the rubric (its version).")
    rubric_id: str = Field(description="The rubric's id.")
    version: str = Field(description="The version the rubric gives itself.")
    created_by: str = Field(description="Who stored it.")
    created_at: str | None = Field(description="When it was stored (UTC, ISO 8601).")


class RubricDetail(RubricOut):
    yaml: str = Field(description="The rubric as stored (YAML).")


class JudgeOut(JudgeEntry):
    created_by: str = Field(description="Who stored it.")
    created_at: str | None = Field(description="When it was stored (UTC, ISO 8601).")


class JudgeDetail(JudgeOut):
    yaml: str = Field(description="The judge configuration as stored (YAML).")


class JobOut(Strict):
    id: str = Field(description="The job's id.")
    kind: str = Field(description="What it runs: calibrate, judge, score, compare...")
    status: JobStatus = Field(description="Its state.")
    params: dict[str, JsonTree] = Field(
        description="The options it was started with (the command's options of that name; an "
        "uploaded verdicts file by its name, size and SHA-256)."
    )
    created_by: str = Field(description="Who started it.")
    created_at: str | None = Field(description="When it was queued (UTC, ISO 8601).")
    started_at: str | None = Field(description="When a worker took it.")
    finished_at: str | None = Field(description="When it ended.")
    run_id: str | None = Field(description="The run it produced (GET /api/runs/{id}).")
    error: str | None = Field(description="Why it failed, if it did.")
