"""What gold/rubric-1.1/'s measurements share: label files read, the two kappas of a rater pair
(the ones `bench_gold_power` and the gate use), case-bootstrap draws and their intervals.

The level kappa is on the items both rate applicable (linear-weighted on the ordinal
criterion); where a criterion can be not applicable, the applicability kappa is on applicable
or not. Intervals are 95% percentile intervals over resampled cases (the unit: a drawn case
brings all its items)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import bench_gold_power as bench  # noqa: E402

RESAMPLES, SEED = 2000, 31


def labels(path: Path, items: Iterable[str] | None = None) -> dict[tuple[str, str], object]:
    """(item, criterion) -> label of one JSONL label file (only `items`' when given)."""
    wanted = None if items is None else set(items)
    out: dict[tuple[str, str], object] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            if wanted is None or row["item"] in wanted:
                out[(row["item"], row["criterion"])] = row["label"]
    return out


def codes(criterion: object, got: dict[tuple[str, str], object], items: list[str]) -> np.ndarray:
    """One rater's labels on `items` as `bench_gold_power`'s codes."""
    cid = criterion.id  # type: ignore[attr-defined]
    return bench._codes(criterion, [got.get((i, cid)) for i in items])


def kappas(criterion: object, a: np.ndarray, b: np.ndarray) -> tuple[float, float | None]:
    """Level kappa and (None where the criterion is always applicable) applicability kappa."""
    scale = bench.scale_of(criterion)
    level = bench._kappa(a, b, scale.k, scale.level == "ordinal")
    na = criterion.not_applicable_when  # type: ignore[attr-defined]
    return level, bench._applicability_kappa(a, b) if na else None


def case_draws(items: list[str], case_of: dict[str, str]) -> tuple[list[str], list[np.ndarray]]:
    """The cases of `items` and RESAMPLES bootstrap draws of their rows, whole cases at once."""
    cases = sorted({case_of[i] for i in items})
    rows_of = [np.asarray([n for n, i in enumerate(items) if case_of[i] == c]) for c in cases]
    rng = np.random.default_rng(SEED)
    draws = [
        np.concatenate([rows_of[k] for k in rng.integers(0, len(cases), size=len(cases))])
        for _ in range(RESAMPLES)
    ]
    return cases, draws


def interval(
    values: list[float], undefined: str = "(interval undefined in over 10% of resamples)"
) -> str:
    """The 95% percentile interval of bootstrap values, or `undefined` when over 10% are not
    finite."""
    v = np.asarray([x for x in values if np.isfinite(x)])
    if v.size < 0.9 * RESAMPLES:
        return undefined
    lo, hi = np.percentile(v, [2.5, 97.5])
    return f"[{lo:.2f}, {hi:.2f}]"
