"""The domain a user's file belongs to: a case, a transcript, a rubric and a gold manifest entry
each name one (`domain`), so files of two domains are never mixed in one run."""

from __future__ import annotations

from typing import Any

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer

from .common import Contract, Id

__all__ = ["LEGACY_DOMAIN", "DomainNamed"]

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
    def _omit_legacy_domain(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict) and data.get("domain") == LEGACY_DOMAIN:
            del data["domain"]
        return data
