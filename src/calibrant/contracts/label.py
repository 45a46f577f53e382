"""Expert labels: one judgment per line (JSONL), or CSV with the same columns."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .common import Contract, Id, LabelValue

__all__ = ["LABEL_SCHEMA_VERSION", "CANT_TELL", "Label"]

LABEL_SCHEMA_VERSION = 1
CANT_TELL = "cant_tell"
"""The label an expert gives when the transcript does not let them decide (an abstention)."""


class Label(Contract):
    """One expert's judgment of one item (transcript) on one rubric criterion."""

    schema_version: Literal[1] = Field(default=1, description="Label schema version.")
    item: Id = Field(description="Item labeled: the transcript id.")
    rater: Id = Field(description="Who labeled it (expert id, or 'consensus').")
    criterion: Id = Field(description="Rubric criterion id.")
    label: LabelValue = Field(
        description=(
            "The label: a level of the criterion's scale (string or integer), 'not_applicable', "
            f"or '{CANT_TELL}' when the rater cannot tell."
        )
    )
    note: str | None = Field(default=None, description="Optional free-text note or rationale.")
