"""The API's request and answer models (their JSON Schema is in /openapi.json): the labeling
API's, the catalog's (rubrics, judges), the jobs' and the service's own."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..contracts.common import Id, LabelValue
from ..contracts.reports.base import JsonTree
from ..ops.listings import JobOut, JudgeDetail, JudgeOut, RubricDetail, RubricOut
from ..store.versions import LatestCalibration, LatestProbe

__all__ = [
    "ID_PATTERN",
    "Model",
    "UploadResult",
    "ItemOut",
    "RecordOut",
    "TurnOut",
    "ItemDetail",
    "QueueOut",
    "CriterionLabel",
    "LabelSubmission",
    "LabelOut",
    "BlindLabel",
    "DisagreementOut",
    "AdjudicationIn",
    "AdjudicationOut",
    "HealthOut",
    "MeOut",
    "RubricOut",
    "RubricDetail",
    "LatestCalibration",
    "LatestProbe",
    "JudgeOut",
    "JudgeDetail",
    "JobOut",
    "RunOut",
]

ID_PATTERN = r"^[A-Za-z0-9_.:\-/@+]+$"
"""What a name or id in a path or query may hold (calibrant.contracts.common.Id)."""


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class UploadResult(Model):
    queue: str = Field(description="The queue the items belong to.")
    rubric: str = Field(description="Content hash of the rubric the items are labeled on.")
    added: list[str] = Field(description="Item ids stored by this upload.")
    already_present: list[str] = Field(
        description="Item ids already stored with the same content (left as they were)."
    )


class ItemOut(Model):
    id: str = Field(
        description="How the caller names the item: the transcript id for an admin, the "
        "item's opaque alias for an expert (an expert names items by alias only; an admin by "
        "either)."
    )
    alias: str = Field(description="The opaque name experts see (names no agent, case or run).")
    transcript_id: str | None = Field(description="The transcript id (admins only, else null).")
    queue: str = Field(description="The labeling queue (sample) the item belongs to.")
    rubric: str = Field(description="Content hash of the rubric the item is labeled on.")
    transcript_hash: str | None = Field(
        description="Content hash of the transcript (admins only, else null: it would find the "
        "transcript in a run's report)."
    )
    uploaded_at: datetime | None = Field(
        description="When it was uploaded, UTC (admins only, else null: upload batches would "
        "tell items apart)."
    )


class RecordOut(Model):
    id: str = Field(description="Citable id of the record.")
    t: int = Field(description="Logical time.")
    text: str = Field(description="What the record says (trusted: from the records).")


class TurnOut(Model):
    id: str = Field(description="Turn or message id.")
    t: int = Field(description="Logical time.")
    header: str = Field(description="Who said it, written by calibrant.")
    text: str = Field(description="What was said (untrusted).")


class ItemDetail(ItemOut):
    records: list[RecordOut] = Field(description="The trusted records, as the workbench shows.")
    conversation: list[TurnOut] = Field(description="The conversation, as the workbench shows.")
    transcript: dict[str, JsonTree] | None = Field(
        description="The transcript itself as its file holds it: in its domain pack's own "
        "spelling, which no one schema describes; `calibrant` reads it back (admins only: it "
        "names the agent, case and run)."
    )


class QueueOut(Model):
    queue: str = Field(description="Queue name.")
    items: int = Field(description="Items in the queue.")
    done: int = Field(description="Items the caller has labeled on every criterion.")
    next_item: str | None = Field(description="The first item the caller has not finished.")


class CriterionLabel(Model):
    criterion: Id = Field(description="Criterion id of the item's rubric.")
    label: LabelValue = Field(
        description="A level of the criterion's scale, 'not_applicable' where the rubric "
        "allows it, or 'cant_tell'."
    )
    note: str | None = Field(default=None, max_length=4000, description="Optional note.")


class LabelSubmission(Model):
    item: Id = Field(description="The item labeled.")
    labels: list[CriterionLabel] = Field(
        min_length=1, max_length=100, description="One label per criterion (a subset is fine)."
    )


class LabelOut(Model):
    item: str = Field(description="Item id.")
    rater: str = Field(description="Who gave the label (the account name).")
    criterion: str = Field(description="Criterion id.")
    label: str | int = Field(description="The label.")
    note: str | None = Field(description="The rater's note.")
    updated_at: datetime = Field(description="When the label was last saved (UTC).")


class BlindLabel(Model):
    label: str | int = Field(description="A label one rater gave (the rater is not named).")
    note: str | None = Field(description="That rater's note.")


class DisagreementOut(Model):
    item: str = Field(description="Item id.")
    criterion: str = Field(description="Criterion id.")
    labels: list[BlindLabel] = Field(description="The labels given, sorted by value.")


class AdjudicationIn(Model):
    item: Id = Field(description="Item of the disagreement.")
    criterion: Id = Field(description="Criterion of the disagreement.")
    label: LabelValue = Field(description="The consensus label: a level of the scale.")
    reason: str = Field(min_length=1, max_length=4000, description="Why this label.")


class AdjudicationOut(Model):
    item: str = Field(description="Item id.")
    criterion: str = Field(description="Criterion id.")
    label: str | int = Field(description="The consensus label.")
    decided_by: str = Field(description="Who decided.")
    reason: str = Field(description="Why.")
    decided_at: datetime = Field(description="When (UTC).")


class HealthOut(Model):
    status: Literal["ok"] = Field(description="Always ok: the service answers.")
    version: str = Field(description="The calibrant version serving.")


class MeOut(Model):
    name: str = Field(description="The account's name.")
    role: str = Field(description="Its role: annotator, adjudicator or admin.")


class RunOut(Model):
    id: str = Field(description="The run's id.")
    kind: str = Field(description="Its kind: calibrate, judge, score, batch, compare...")
    status: str = Field(description="running, finished, failed or interrupted.")
    who: str = Field(description="user@host that ran it.")
    started_at: str | None = Field(description="When it started (UTC, ISO 8601).")
    finished_at: str | None = Field(description="When it ended (UTC, ISO 8601).")
    judge_hash: str | None = Field(description="The judge version it used.")
    rubric_hash: str | None = Field(description="The rubric it used.")
    calibrant_version: str = Field(description="The calibrant version that ran it.")
