"""Benchmark: the point-estimate path through scikit-learn against calibrant's own.

Run as ``python benchmarks/bench_sklearn_point.py`` (scikit-learn comes with the ``dev``
extra). Times, per call, one pair of raters' confusion matrix and Cohen's kappa with
``sklearn.metrics`` (``confusion_matrix``, ``cohen_kappa_score``) and with
``calibrant.agreement`` (``confusion_matrix``, ``cohen_kappa``: ``np.bincount`` and the
vectorized formula the bootstrap uses), on 186 items (the gold set's size) and 5,000 items, and
the one-off cost of ``import sklearn.metrics`` in a fresh interpreter. Prints a Markdown table.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np
from sklearn.metrics import cohen_kappa_score
from sklearn.metrics import confusion_matrix as sk_confusion_matrix

try:
    import calibrant.agreement  # noqa: F401
except ModuleNotFoundError:  # running from a checkout without an installed package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from calibrant.agreement import cohen_kappa, confusion_matrix

REPEATS = 5
CALLS = 200


def best_per_call(fn: Callable[[], object]) -> float:
    """Best of ``REPEATS`` runs of ``CALLS`` calls, in microseconds per call."""
    best = float("inf")
    for _ in range(REPEATS):
        start = time.perf_counter()
        for _ in range(CALLS):
            fn()
        best = min(best, time.perf_counter() - start)
    return best / CALLS * 1e6


def import_seconds(module: str) -> float:
    """Median wall time of ``import module`` in a fresh interpreter that has numpy loaded."""
    code = (
        "import time, numpy; t = time.perf_counter(); "
        f"import {module}; print(time.perf_counter() - t)"
    )
    runs = sorted(
        float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout)
        for _ in range(REPEATS)
    )
    return runs[len(runs) // 2]


def main() -> None:
    rng = np.random.default_rng(4)
    print("| items | K | path | confusion matrix (µs/call) | Cohen's kappa (µs/call) |")
    print("|---:|---:|---|---:|---:|")
    for n, k in ((186, 2), (186, 4), (5_000, 4)):
        x = rng.integers(0, k, n)
        y = np.where(rng.random(n) < 0.7, x, rng.integers(0, k, n))
        labels = list(range(k))
        paths = {
            "sklearn.metrics": (
                partial(sk_confusion_matrix, x, y, labels=labels),
                partial(cohen_kappa_score, x, y, labels=labels),
            ),
            "calibrant.agreement": (
                partial(confusion_matrix, x, y, k=k),
                partial(cohen_kappa, x, y, k=k),
            ),
        }
        for name, (table, kappa) in paths.items():
            print(
                f"| {n} | {k} | {name} | {best_per_call(table):.0f} | {best_per_call(kappa):.0f} |"
            )
    print()
    for module in ("sklearn.metrics", "scipy.stats"):
        print(f"import {module} (fresh interpreter, numpy loaded): {import_seconds(module):.2f} s")


if __name__ == "__main__":
    main()
