"""The one representation of an undefined statistic used throughout ``calibrant.agreement``.

A statistic that cannot be computed (no paired items, no variation in the labels, a bootstrap
interval with too many undefined resamples, ...) is returned as an :class:`Undefined` value that
carries a human-readable reason. It is never silently replaced by ``0``, ``1`` or ``nan``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeGuard, TypeVar

__all__ = ["Undefined", "is_defined", "or_none"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Undefined:
    """Marker for a statistic that is mathematically undefined on the given data.

    ``reason`` explains why, e.g. ``"expected agreement p_e = 1: both raters used only one
    identical category"``.
    """

    reason: str

    def __str__(self) -> str:
        return f"undefined ({self.reason})"


def is_defined(value: T | Undefined) -> TypeGuard[T]:
    """Return True when ``value`` is not :class:`Undefined` (narrows the type for mypy)."""
    return not isinstance(value, Undefined)


def or_none(value: T | Undefined) -> T | None:
    """Return ``value`` itself, or ``None`` when it is :class:`Undefined` (for JSON output)."""
    if isinstance(value, Undefined):
        return None
    return value
