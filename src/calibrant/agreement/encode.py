"""Map raw labels (strings or numbers) to integer codes on an explicit, ordered scale.

Every statistic in ``calibrant.agreement`` works on integer codes ``0..K-1`` with ``-1`` for a
missing rating. :class:`Scale` is the bridge from raw labels to those codes.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Hashable, Iterable, Sequence
from dataclasses import dataclass
from numbers import Real
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["Level", "MISSING", "Scale", "check_codes", "is_missing", "long_to_matrix"]

Level = Literal["nominal", "ordinal"]
"""Level of measurement of a scale: unordered categories or an ordered scale."""

MISSING = -1
"""Integer code of a missing (absent or discarded) rating."""


def is_missing(value: object, missing: Collection[Hashable] = ()) -> bool:
    """True for ``None``, a float ``nan``, or a value listed in ``missing``."""
    if value is None:
        return True
    if isinstance(value, float | np.floating) and math.isnan(float(value)):
        return True
    try:
        return value in missing
    except TypeError:  # unhashable value tested against a set
        return False


def _is_number(value: object) -> bool:
    return isinstance(value, Real | np.integer | np.floating) and not isinstance(
        value, bool | np.bool_
    )


@dataclass(frozen=True, slots=True)
class Scale:
    """An explicit list of categories; for an ordinal scale, in increasing order.

    ``labels[i]`` gets code ``i``. Labels must be distinct, hashable and not missing (``None`` or
    ``nan``). ``level`` is ``"nominal"`` (unordered) or ``"ordinal"`` (``labels`` in order).
    """

    labels: tuple[Hashable, ...]
    level: Level = "nominal"

    def __post_init__(self) -> None:
        labels = tuple(self.labels)
        object.__setattr__(self, "labels", labels)
        if not labels:
            raise ValueError("a scale needs at least one label")
        if self.level not in ("nominal", "ordinal"):
            raise ValueError(f"level must be 'nominal' or 'ordinal', got {self.level!r}")
        for label in labels:
            if is_missing(label, ()):
                raise ValueError(f"a scale label cannot be a missing value: {label!r}")
        if len(set(labels)) != len(labels):
            raise ValueError(f"scale labels must be distinct: {labels!r}")

    @property
    def k(self) -> int:
        """Number of categories K."""
        return len(self.labels)

    @classmethod
    def infer(
        cls,
        values: Iterable[Hashable],
        *,
        level: Level = "nominal",
        missing: Collection[Hashable] = (),
    ) -> Scale:
        """Build a scale from the distinct non-missing values seen, as a convenience only.

        Numbers are sorted numerically, strings alphabetically and booleans False < True; mixing
        kinds raises ``ValueError``. For an ordinal scale whose order is not alphabetical
        (``"poor" < "ok" < "good"``) pass ``Scale(labels=[...], level="ordinal")`` instead.
        """
        seen: dict[Hashable, None] = {}
        for value in values:
            if not is_missing(value, missing):
                seen.setdefault(value, None)
        distinct = list(seen)
        if not distinct:
            raise ValueError("cannot infer a scale: no non-missing label")
        if all(isinstance(v, bool | np.bool_) for v in distinct):
            ordered: list[Hashable] = sorted(distinct, key=bool)
        elif all(_is_number(v) for v in distinct):
            ordered = sorted(distinct, key=lambda v: float(v))  # type: ignore[arg-type]
        elif all(isinstance(v, str) for v in distinct):
            ordered = sorted(distinct, key=str)
        else:
            raise ValueError(
                "cannot infer the order of mixed label types "
                f"{sorted({type(v).__name__ for v in distinct})}; pass labels= explicitly"
            )
        return cls(labels=tuple(ordered), level=level)

    def code(self, label: Hashable) -> int:
        """Code of one label; ``ValueError`` when it is not on the scale."""
        index = self._index()
        try:
            return index[label]
        except (KeyError, TypeError):
            raise ValueError(f"label {label!r} is not on the scale {list(self.labels)!r}") from None

    def encode(
        self, values: Iterable[Hashable], *, missing: Collection[Hashable] = ()
    ) -> NDArray[np.int64]:
        """Encode raw labels as int64 codes ``0..K-1``.

        ``None``, ``nan`` and any value in ``missing`` (e.g. ``{"can't tell"}``) become ``-1``.
        Any other label outside the scale raises ``ValueError``.
        """
        index = self._index()
        out: list[int] = []
        for value in values:
            if is_missing(value, missing):
                out.append(MISSING)
                continue
            try:
                out.append(index[value])
            except (KeyError, TypeError):
                raise ValueError(
                    f"label {value!r} is not on the scale {list(self.labels)!r}"
                ) from None
        return np.asarray(out, dtype=np.int64)

    def decode(self, codes: ArrayLike) -> list[Hashable | None]:
        """Map codes back to labels (``-1`` becomes ``None``)."""
        arr = check_codes(codes, k=self.k)
        return [None if c == MISSING else self.labels[c] for c in arr.tolist()]

    def _index(self) -> dict[Hashable, int]:
        return {label: i for i, label in enumerate(self.labels)}


def check_codes(codes: ArrayLike, *, k: int, ndim: int = 1) -> NDArray[np.int64]:
    """Validate integer codes in ``-1..k-1`` and return them as an int64 array.

    Raises ``ValueError`` on a wrong number of dimensions, non-integer values or a code outside
    the scale.
    """
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    arr = np.asarray(codes)
    if arr.ndim != ndim:
        raise ValueError(f"expected a {ndim}-D array of codes, got shape {arr.shape}")
    if arr.size == 0:
        return arr.astype(np.int64).reshape(arr.shape)
    if arr.dtype.kind == "b" or arr.dtype.kind not in "iuf":
        raise ValueError(f"codes must be integers, got dtype {arr.dtype}")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
            raise ValueError("codes must be whole numbers (use -1, not nan, for missing)")
    out = arr.astype(np.int64)
    if out.min() < MISSING or out.max() >= k:
        raise ValueError(f"codes must lie in -1..{k - 1} (-1 = missing)")
    return out


def long_to_matrix(
    rows: Iterable[Sequence[Hashable]],
    *,
    scale: Scale,
    missing: Collection[Hashable] = (),
) -> tuple[NDArray[np.int64], list[Hashable], list[Hashable]]:
    """Turn long-format ``(item, rater, label)`` rows into a raters x items code matrix.

    Returns ``(matrix, raters, items)``; raters and items keep their order of first appearance.
    Cells with no row, and labels that are missing (``None``, ``nan`` or in ``missing``), are
    ``-1``. A repeated ``(item, rater)`` pair raises ``ValueError``.
    """
    triples: list[tuple[Hashable, Hashable, Hashable]] = []
    for row in rows:
        if len(row) != 3:
            raise ValueError(f"expected (item, rater, label) rows, got {row!r}")
        triples.append((row[0], row[1], row[2]))
    items: dict[Hashable, int] = {}
    raters: dict[Hashable, int] = {}
    for item, rater, _ in triples:
        items.setdefault(item, len(items))
        raters.setdefault(rater, len(raters))
    codes = scale.encode((label for _, _, label in triples), missing=missing)
    matrix = np.full((len(raters), len(items)), MISSING, dtype=np.int64)
    filled = np.zeros(matrix.shape, dtype=bool)
    for (item, rater, _), code in zip(triples, codes.tolist(), strict=True):
        r, i = raters[rater], items[item]
        if filled[r, i]:
            raise ValueError(f"rater {rater!r} labelled item {item!r} more than once")
        filled[r, i] = True
        matrix[r, i] = code
    return matrix, list(raters), list(items)
