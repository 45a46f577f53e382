"""Rubrics: communication criteria the judge rates and experts label, from one definition."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from .common import Contract, Id, LabelValue, content_hash
from .domain import DomainNamed

__all__ = [
    "RUBRIC_SCHEMA_VERSION",
    "NOT_APPLICABLE",
    "INSUFFICIENT_EVIDENCE",
    "Level",
    "Scale",
    "Example",
    "Criterion",
    "Rubric",
]

RUBRIC_SCHEMA_VERSION = 1
NOT_APPLICABLE = "not_applicable"
INSUFFICIENT_EVIDENCE = "insufficient_evidence"


class Level(Contract):
    """One level of a scale."""

    value: LabelValue = Field(description="The label value, e.g. pass, fail, or 1..4.")
    name: str = Field(min_length=1, description="Short name shown to raters.")
    description: str = Field(default="", description="What earns this level.")


class Scale(Contract):
    """A criterion's scale: binary (pass/fail) or ordinal (ordered named levels, low to high)."""

    kind: Literal["binary", "ordinal"] = Field(description="binary or ordinal.")
    levels: list[Level] = Field(min_length=2, description="Levels, from worst to best.")

    @model_validator(mode="after")
    def _check(self) -> Scale:
        values = [lv.value for lv in self.levels]
        if len(set(map(str, values))) != len(values):
            raise ValueError("scale levels must be distinct")
        if self.kind == "binary" and len(values) != 2:
            raise ValueError("a binary scale has exactly two levels")
        reserved = {NOT_APPLICABLE, INSUFFICIENT_EVIDENCE, "cant_tell"}
        if reserved & {str(v) for v in values}:
            raise ValueError(f"scale levels cannot use the reserved labels {sorted(reserved)}")
        return self

    def values(self) -> list[str | int]:
        """The level values, worst to best."""
        return [lv.value for lv in self.levels]


class Example(Contract):
    """A short example of agent text, with the label it earns and why."""

    text: str = Field(min_length=1, description="Agent text (as the customer saw it).")
    context: str = Field(default="", description="What the records show, in one line.")
    label: LabelValue = Field(description="The label this example earns.")
    why: str = Field(default="", description="Why.")


class Criterion(Contract):
    """One communication criterion, rated on its own."""

    id: Id = Field(description="Criterion id, e.g. separates_done_from_pending.")
    title: str = Field(min_length=1, description="Short title.")
    question: str = Field(min_length=1, description="The question the rater answers.")
    definition: str = Field(min_length=1, description="Full definition of the criterion.")
    scale: Scale = Field(description="Its scale.")
    not_applicable_when: str | None = Field(
        default=None,
        description="When the criterion does not apply (label 'not_applicable'); null: always.",
    )
    positive_examples: list[Example] = Field(default_factory=list, description="Good examples.")
    negative_examples: list[Example] = Field(default_factory=list, description="Bad examples.")

    def allowed_labels(self) -> list[str | int]:
        """Scale values, plus not_applicable when the criterion can not apply."""
        out: list[str | int] = list(self.scale.values())
        if self.not_applicable_when:
            out.append(NOT_APPLICABLE)
        return out


class Rubric(DomainNamed):
    """A versioned set of communication criteria; identified by its content hash."""

    schema_version: Literal[1] = Field(default=1, description="Rubric schema version.")
    rubric_id: Id = Field(description="Rubric id, e.g. rebooking_communication.")
    version: str = Field(min_length=1, description="Human version label, e.g. 1.0.")
    title: str = Field(min_length=1, description="Title.")
    instructions: str = Field(
        default="", description="General guidance for raters and the judge, shown first."
    )
    criteria: list[Criterion] = Field(min_length=1, description="The criteria.")

    @model_validator(mode="after")
    def _unique_ids(self) -> Rubric:
        ids = [c.id for c in self.criteria]
        if len(set(ids)) != len(ids):
            raise ValueError("criterion ids must be unique")
        return self

    @property
    def content_hash(self) -> str:
        """SHA-256 of the canonical JSON of the rubric: its identity in every verdict."""
        return content_hash(self)

    def criterion(self, criterion_id: str) -> Criterion:
        """The criterion with this id (KeyError if absent)."""
        for c in self.criteria:
            if c.id == criterion_id:
                return c
        raise KeyError(criterion_id)
