"""Shared building blocks of the data contracts: strict base model, money, ids, hashing."""

from __future__ import annotations

import hashlib
import json
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

__all__ = [
    "Contract",
    "MinorUnits",
    "Id",
    "LabelValue",
    "canonical_json",
    "content_hash",
    "money",
]


class Contract(BaseModel):
    """Base of every contract: unknown fields are rejected, values are validated on assignment."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, populate_by_name=True)


MinorUnits = Annotated[
    int,
    Field(
        strict=True,
        ge=0,
        description=(
            "Money in integer minor units (cents). Floats and negative values are rejected."
        ),
    ),
]
"""Money: a non-negative integer number of minor units. A float (even 42.0) is rejected."""

Id = Annotated[
    str,
    Field(
        min_length=1,
        max_length=200,
        pattern=r"^[A-Za-z0-9_.:\-/@+]+$",
        description="A stable identifier: letters, digits and _ . : - / @ +",
    ),
]


def _label_value(value: Any) -> Any:
    """A label is a non-empty string without surrounding spaces, or an integer: never a
    boolean (true would silently become 1), a float (3.0 would silently become 3) or null."""
    if isinstance(value, bool) or value is None or isinstance(value, float):
        shown = json.dumps(value)
        raise ValueError(f"a label is a string or an integer, not {shown}")
    if isinstance(value, str):
        if not value.strip():
            raise ValueError("a label cannot be empty")
        if value != value.strip():
            raise ValueError(f"label {value!r} has surrounding spaces")
    elif not isinstance(value, int):
        raise ValueError(f"a label is a string or an integer, not {type(value).__name__}")
    return value


LabelValue = Annotated[
    str | int,
    BeforeValidator(_label_value),
    Field(description="A label: a non-empty string or an integer (not a boolean or a float)."),
]
"""A label value (scale level, reserved label): strings and integers only, validated strictly."""


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no insignificant whitespace: the input of every content hash."""
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json", by_alias=False)
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def content_hash(value: Any) -> str:
    """`sha256:` + hex SHA-256 of the canonical JSON of `value`."""
    digest = hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()
    return f"sha256:{digest}"


def money(minor_units: int | None, currency: str = "EUR") -> str:
    """4200 -> '42.00 EUR' (display only; amounts stay integer minor units everywhere else)."""
    if minor_units is None:
        return "the amount"
    return f"{minor_units // 100}.{minor_units % 100:02d} {currency}"
