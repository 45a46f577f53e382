"""What every report model shares: the strict base, the report base (its schema version, checked
and upgraded before validation), and the small parts several reports quote."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from typing_extensions import TypeAliasType

__all__ = [
    "GateStatus",
    "Strict",
    "Report",
    "ReportVersionError",
    "Figure",
    "RubricRef",
    "ModelRef",
    "version_field",
    "CalibratedJudge",
    "RecordedVerdicts",
    "JsonScalar",
    "JsonTree",
    "JudgeFields",
]

GateStatus = Literal["PASS", "FAIL", "UNDECIDED"]


class ReportVersionError(ValueError):
    """A report written by a newer calibrant than this one."""


class Strict(BaseModel):
    """A part of a report whose shape is known: unknown fields are rejected."""

    model_config = ConfigDict(extra="forbid")

    def json_data(self) -> dict[str, Any]:
        """This part as the JSON data calibrant writes and serves: by field alias, only the
        fields that were set (a figure an older report did not record stays absent). The one
        place a report model becomes a dict: the file, the store and the API take this."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)


def version_field(current: int) -> Any:
    """The `schema_version` field of a report whose current version is `current`."""
    return Field(ge=1, le=current, description=f"The report's schema version (now {current}).")


class Report(Strict):
    """A whole report. Before validation its data is brought to the current shape: no
    `schema_version` reads as version 1, each older version goes through `UPGRADES` step by
    step (what it did not record stays unset: a reader says it is missing, never guesses), and
    a newer version than this calibrant knows is refused rather than misread. `schema_version`
    keeps the version the report was written with."""

    KIND: ClassVar[str]
    VERSION: ClassVar[int]
    UPGRADES: ClassVar[dict[int, Callable[[dict[str, Any]], dict[str, Any]]]] = {}

    schema_version: int

    @classmethod
    def version_error(cls, version: object) -> str | None:
        """Why `version` cannot be read as this report's, or None."""
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            return f"{cls.KIND} report: schema_version {version!r} is not a version number"
        if version > cls.VERSION:
            return (
                f"{cls.KIND} report: schema_version {version} was written by a newer calibrant "
                f"(this one reads up to {cls.VERSION}); upgrade calibrant to read it"
            )
        return None

    @model_validator(mode="before")
    @classmethod
    def _upgrade(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        version = data.get("schema_version", 1)
        why = cls.version_error(version)
        if why:
            raise ValueError(why)
        data = {**data, "schema_version": version}
        for step in range(version, cls.VERSION):
            upgrade = cls.UPGRADES.get(step)
            if upgrade is not None:
                data = upgrade(data)
        return data


class Figure(Strict):
    """A rate or a mean with its 95% interval and n; an undefined one says why (no value)."""

    value: float | None
    n: int
    ci95: list[float] | None
    method: str
    undefined_reason: str | None
    n_cases: int | None = None


class RubricRef(Strict):
    id: str
    version: str | None = None
    hash: str | None = None


class ModelRef(Strict):
    model: str
    hash: str
    name: str | None = None  # the name the judge was given on the command line (compare)


class RecordedVerdicts(Strict):
    """A judge known by its recorded verdicts: the file they were read from, what it covered."""

    judge_version: str
    file: str
    format: str
    sha256: str
    rows: int
    rows_in_split: int
    items_with_verdicts: int
    items_without_verdict: list[str]
    verdicts_missing: int = Field(description="(item, criterion) pairs of the split without a row.")
    note: str


JsonScalar = str | int | float | bool | None
JsonTree = TypeAliasType("JsonTree", "JsonScalar | list[JsonTree] | dict[str, JsonTree]")
"""Free-form JSON, said so in the schema (a command's recorded options, a stored document this
calibrant has no model for): never a report's figures, which all have their model."""


class JudgeFields(BaseModel):
    """A judge configuration as it was recorded (no credentials): its fields known today, and
    any field a calibrant of another version wrote kept as it was, each a plain value (so that
    a report or a run of such a judge still loads)."""

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, JsonScalar] = Field(init=False)

    model: str
    api_base: str | None = None
    prompt_template_version: str | None = None
    rubric_hash: str | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    top_p: float | None = None
    seed: int | None = None
    datamark: bool | None = None
    rationale_max_chars: int | None = None
    untrusted_max_chars: int | None = None
    answer_format: str | None = None
    label_scoring: str | None = None
    label_prior: dict[str, dict[str, float]] | None = None


class CalibratedJudge(JudgeFields):
    """The judge configuration measured: its hash and its fields."""

    hash: str
    recorded: RecordedVerdicts | None = None
