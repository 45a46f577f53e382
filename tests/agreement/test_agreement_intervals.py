"""Intervals that stay honest at small n, near kappa = 1 and with few clusters (issue 9, point 7).

The full coverage study is benchmarks/bench_coverage.py (results/coverage.md); these tests pin
the behaviours a user sees and check the BCa arithmetic against a slow loop."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps
from sklearn.metrics import cohen_kappa_score

from calibrant.agreement import Undefined, bootstrap_indices, bootstrap_pairwise
from calibrant.agreement.ci import wilson
from calibrant.agreement.meanpair import bootstrap_mean_pairwise


def test_perfect_agreement_on_few_items_is_not_a_point_interval() -> None:
    # Today: 5 items, both raters identical -> CI [1, 1], which claims certainty.
    x = [0, 1, 0, 1, 1]
    r = bootstrap_pairwise(x, x, k=2, seed=0)
    assert r.estimate == 1.0 and not isinstance(r.ci, Undefined)
    assert r.ci[1] == 1.0 and r.ci[0] < 0.6
    # and the interval narrows as the evidence grows
    big = bootstrap_pairwise(x * 40, x * 40, k=2, seed=0)
    assert not isinstance(big.ci, Undefined) and r.ci[0] < big.ci[0] < 1.0


def _planted(seed: int, n: int, kappa: float, p: float) -> tuple[np.ndarray, np.ndarray]:
    q = p * (1 - p)
    probs = [1 - p * p - kappa * q - 2 * (1 - kappa) * q, (1 - kappa) * q, (1 - kappa) * q]
    probs.append(p * p + kappa * q)
    codes = np.random.default_rng(seed).choice(4, size=n, p=probs)
    return codes // 2, codes % 2


def _coverage(n: int, kappa: float, p: float, reps: int, method: str) -> float:
    hits = total = 0
    for rep in range(reps):
        x, y = _planted(rep, n, kappa, p)
        r = bootstrap_pairwise(x, y, k=2, seed=rep, n_resamples=400, method=method)  # type: ignore[arg-type]
        if isinstance(r.ci, Undefined):
            continue
        total += 1
        hits += r.ci[0] <= kappa <= r.ci[1]
    return hits / total


def test_coverage_at_kappa_09_and_30_items() -> None:
    # The audit's worst case: kappa 0.9, n 30, prevalence 0.5 -> percentile covers ~0.75.
    # 120 repetitions: at a true coverage of 0.95, 0.88 or more happens with prob > 0.99.
    now = _coverage(30, 0.9, 0.5, 120, "bca")
    before = _coverage(30, 0.9, 0.5, 120, "percentile")
    assert now >= 0.88, now
    assert before < 0.85, before  # the check has teeth: the old interval fails it


def test_bca_equals_a_slow_reference_on_the_same_resamples() -> None:
    # BCa: z0 = Phi^-1(share of resamples below the estimate), a = sum d^3 / (6 (sum d^2)^1.5)
    # over jackknife deviations d; the ends are the resample quantiles at
    # Phi(z0 + (z0 + z) / (1 - a (z0 + z))) for z = -1.96, +1.96. The interval reported is
    # that one, or wider where the Wilson score floor is wider.
    rng = np.random.default_rng(5)
    x = rng.integers(0, 3, 80)
    y = np.where(rng.random(80) < 0.6, x, rng.integers(0, 3, 80))
    idx = bootstrap_indices(80, n_resamples=500, seed=3)
    boot = np.array([cohen_kappa_score(x[r], y[r], labels=[0, 1, 2]) for r in idx])
    theta = cohen_kappa_score(x, y, labels=[0, 1, 2])
    jack = np.array(
        [cohen_kappa_score(np.delete(x, i), np.delete(y, i), labels=[0, 1, 2]) for i in range(80)]
    )
    z0 = sps.norm.ppf((np.sum(boot < theta) + 0.5 * np.sum(boot == theta)) / boot.size)
    d = jack.mean() - jack
    a = np.sum(d**3) / (6 * np.sum(d**2) ** 1.5)
    ends = []
    for z in (sps.norm.ppf(0.025), sps.norm.ppf(0.975)):
        ends.append(np.quantile(boot, sps.norm.cdf(z0 + (z0 + z) / (1 - a * (z0 + z)))))
    r = bootstrap_pairwise(x, y, k=3, seed=3, n_resamples=500)
    assert not isinstance(r.ci, Undefined) and r.method.startswith("bca")
    assert r.ci[0] <= ends[0] + 1e-12 and r.ci[1] >= ends[1] - 1e-12
    assert r.ci[1] == pytest.approx(ends[1], abs=1e-9) or r.ci[0] == pytest.approx(ends[0])


def test_ten_clusters_get_a_t_based_interval() -> None:
    rng = np.random.default_rng(2)
    x = rng.integers(0, 2, 50)
    y = np.where(rng.random(50) < 0.85, x, 1 - x)
    clusters = np.repeat(np.arange(10), 5)
    r = bootstrap_pairwise(x, y, k=2, seed=0, clusters=clusters)
    old = bootstrap_pairwise(x, y, k=2, seed=0, clusters=clusters, method="percentile")
    assert r.n_clusters == 10 and "t(G-1)" in r.method
    assert isinstance(r.width, float) and isinstance(old.width, float)
    assert r.width > old.width  # few clusters: the bootstrap alone is too narrow


def test_mean_pairwise_matches_the_mean_of_pairs() -> None:
    rng = np.random.default_rng(7)
    truth = rng.integers(0, 4, 60)
    data = np.where(rng.random((3, 60)) < 0.7, truth, rng.integers(0, 4, (3, 60)))
    data[0, :5] = -1  # a missing rating
    r = bootstrap_mean_pairwise(data, k=4, seed=0, statistic="weighted_kappa_linear")
    want = []
    for a, b in ((0, 1), (0, 2), (1, 2)):
        both = (data[a] >= 0) & (data[b] >= 0)
        want.append(
            cohen_kappa_score(data[a][both], data[b][both], labels=[0, 1, 2, 3], weights="linear")
        )
    assert r.estimate == pytest.approx(np.mean(want), abs=1e-12)
    assert not isinstance(r.ci, Undefined) and r.ci[0] < r.estimate < r.ci[1]


def test_wilson_matches_the_closed_form() -> None:
    # 0 of 30: upper = z^2 / (n + z^2) = 3.8415 / 33.8415 = 0.1135
    lo, hi = wilson(0, 30, confidence=0.95)
    assert lo == 0.0 and hi == pytest.approx(3.841459 / 33.841459, abs=1e-6)
