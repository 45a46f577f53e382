"""The domain a user's file belongs to: a case, a transcript, a rubric and a gold manifest entry
each name one (`domain`), so files of two domains are never mixed in one run.

A file that names none was written before calibrant had domains: it belongs to the installed
pack whose file form claims such files (`contracts.forms.FileForm.unnamed`), and it is written
back without the field, so its bytes and its content hash (resume, dedupe, the judge's cache,
the hashes verdicts cite) are what they were before domains existed."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import (
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    ValidationError,
    model_serializer,
    model_validator,
)
from pydantic_core import InitErrorDetails

from . import forms
from .common import Contract, Id

__all__ = ["DomainNamed", "closed_values", "refuse", "unnamed_domain"]


def unnamed_domain(title: str = "file") -> str:
    """The domain of a file that names none: the installed pack's whose form claims such files.
    A ValidationError at `domain` (one line, saying what to install) when no pack does."""
    try:
        return forms.unnamed_domain(title)
    except forms.NoForm as exc:
        raise ValidationError.from_exception_data(
            title,
            [InitErrorDetails(type="value_error", loc=("domain",), input=None, ctx={"error": exc})],
        ) from None


class DomainNamed(Contract):
    """A contract that names its domain. A file naming none is the domain of the pack that
    claims such files, and a file of that domain is dumped without the field: it reads, writes
    and hashes exactly as it did before the field existed (naming the domain explicitly
    changes nothing, hash included); any other domain is written out."""

    domain: Id = Field(
        default_factory=unnamed_domain,
        description=(
            "The domain pack this file belongs to (`calibrant domains list`). Absent: the "
            "domain of the installed pack that reads files naming none (files written before "
            "domains existed)."
        ),
    )

    @model_validator(mode="before")
    @classmethod
    def _name_the_domain(cls, data: Any) -> Any:
        if isinstance(data, dict) and "domain" not in data:
            data = {**data, "domain": unnamed_domain(cls.__name__)}
        return data

    # no return annotation: the JSON Schema of a dump is then the model's own (an annotation,
    # even `dict[str, Any]`, would publish it as an object of any shape in /openapi.json)
    @model_serializer(mode="wrap")
    def _omit_unnamed_domain(  # type: ignore[no-untyped-def]
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ):
        data = handler(self)
        if isinstance(data, dict):
            if isinstance(data.get("domain"), str) and forms.writes_unnamed(data["domain"]):
                del data["domain"]
            data = self._file_form(data, info.mode)
        return data

    def _file_form(self, data: dict[str, Any], mode: str) -> dict[str, Any]:
        """The dumped `data` in the spelling of this domain's files (its pack's
        `contracts.forms.FileForm`): the generic spelling unless a subclass says otherwise."""
        return data


def _one_of(allowed: Sequence[str]) -> str:
    quoted = [f"'{a}'" for a in allowed]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"


def closed_values(
    title: str, found: Iterable[tuple[tuple[int | str, ...], str]], allowed: Sequence[str]
) -> None:
    """Refuse the first (loc, value) whose value is not one of `allowed`, with the error a
    `Literal` field would give at that loc: a pack whose form closes its record kinds, fault
    points or message kinds has them checked exactly as when their fields were Literals (same
    message, same field), while the field itself admits another domain's."""
    for loc, value in found:
        if value not in allowed:
            expected = _one_of(allowed)
            raise ValidationError.from_exception_data(
                title,
                [
                    InitErrorDetails(
                        type="literal_error", loc=loc, input=value, ctx={"expected": expected}
                    )
                ],
            )


def refuse(title: str, loc: tuple[int | str, ...], value: object, message: str) -> None:
    """Raise a validation error at `loc` (a field of a nested model) saying `message`."""
    raise ValidationError.from_exception_data(
        title,
        [InitErrorDetails(type="value_error", loc=loc, input=value, ctx={"error": message})],
    )
