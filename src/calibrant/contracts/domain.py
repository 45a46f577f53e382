"""The domain a user's file belongs to: a case, a transcript, a rubric and a gold manifest entry
each name one (`domain`), so files of two domains are never mixed in one run."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import (
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    ValidationError,
    model_serializer,
)
from pydantic_core import InitErrorDetails

from .common import Contract, Id

__all__ = ["LEGACY_DOMAIN", "DomainNamed", "closed_values", "refuse"]

LEGACY_DOMAIN = "refunds"
"""The domain of every file written before calibrant had domains: the refund shop was the only
one, so a case, transcript, rubric or gold manifest that names no domain is a refunds file.

Such files are also *written* without the field (see `DomainNamed`), so their bytes and their
content hashes (resume, dedupe, the judge's cache, the hashes verdicts cite) are what they were
before domains existed."""


class DomainNamed(Contract):
    """A contract that names its domain. The legacy domain is left out when the model is dumped:
    a refunds file reads, writes and hashes exactly as it did before the field existed (and
    naming `domain: refunds` explicitly changes nothing, hash included); any other domain is
    written out."""

    domain: Id = Field(
        default=LEGACY_DOMAIN,
        description=(
            "The domain pack this file belongs to (`calibrant domains list`), e.g. refunds. "
            f"Absent: {LEGACY_DOMAIN} (files written before domains existed)."
        ),
    )

    @model_serializer(mode="wrap")
    def _omit_legacy_domain(
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            if data.get("domain") == LEGACY_DOMAIN:
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
    `Literal` field would give at that loc: a refunds file's record kinds, fault points and
    message kinds are checked exactly as when their fields were typed by the refund shop's
    Literals (same message, same field), while the field itself admits another domain's."""
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
