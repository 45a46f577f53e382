"""Vectorized bootstrap: reproducibility, equality with slow reference loops, clusters, coverage."""

from __future__ import annotations

import warnings

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from calibrant.agreement import (
    AlphaLevel,
    BootstrapResult,
    PairwiseStatistic,
    Undefined,
    bootstrap_fleiss,
    bootstrap_indices,
    bootstrap_krippendorff,
    bootstrap_pairwise,
    cluster_index,
    cohen_kappa,
    confusion_matrix,
    percentile_interval,
    resample_tables,
)


def _two_raters(seed: int, n: int, k: int, p_copy: float = 0.6) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.integers(0, k, n)
    y = np.where(rng.random(n) < p_copy, x, rng.integers(0, k, n))
    return x, y


def _quantiles(values: list[float], confidence: float = 0.95) -> tuple[float, float]:
    tail = (1 - confidence) / 2
    lo, hi = np.quantile(np.asarray(values), [tail, 1 - tail])
    return float(lo), float(hi)


def test_same_seed_same_interval_different_seed_different() -> None:
    x, y = _two_raters(0, 120, 3)
    a = bootstrap_pairwise(x, y, k=3, seed=7, n_resamples=500)
    b = bootstrap_pairwise(x, y, k=3, seed=7, n_resamples=500)
    c = bootstrap_pairwise(x, y, k=3, seed=8, n_resamples=500)
    assert a == b
    assert a.ci != c.ci
    assert (a.seed, a.n_resamples, c.seed) == (7, 500, 8)


def test_result_fields_and_containment() -> None:
    x, y = _two_raters(1, 300, 4)
    result = bootstrap_pairwise(x, y, k=4, seed=3)
    assert isinstance(result, BootstrapResult)
    assert result.n_resamples == 2000 and result.seed == 3 and result.confidence == 0.95
    assert result.n == 300 and result.n_clusters is None and result.n_dropped == 0
    assert result.estimate == cohen_kappa(x, y, k=4)
    assert not isinstance(result.ci, Undefined) and not isinstance(result.estimate, Undefined)
    assert result.ci[0] < result.estimate < result.ci[1]
    assert type(result.ci[0]) is float and type(result.estimate) is float
    width = result.width
    assert isinstance(width, float) and 0 < width < 0.3
    narrower = bootstrap_pairwise(x, y, k=4, seed=3, confidence=0.8)
    assert isinstance(narrower.width, float) and narrower.width < width


def test_only_items_rated_by_both_count() -> None:
    x, y = _two_raters(2, 200, 3)
    x[:30] = -1
    y[25:50] = -1
    result = bootstrap_pairwise(x, y, k=3, seed=0, n_resamples=200)
    assert result.n == 150
    assert result.estimate == cohen_kappa(x[50:], y[50:], k=3)


@pytest.mark.parametrize(
    ("statistic", "weights"),
    [
        ("cohen_kappa", None),
        ("weighted_kappa_linear", "linear"),
        ("weighted_kappa_quadratic", "quadratic"),
    ],
)
def test_vectorized_equals_sklearn_loop_on_same_indices(
    statistic: PairwiseStatistic, weights: str | None
) -> None:
    k, n, n_res, seed = 4, 80, 300, 11
    x, y = _two_raters(5, n, k)
    x[::9] = -1  # missing ratings: only paired items are resampled
    both = (x >= 0) & (y >= 0)
    xp, yp = x[both], y[both]
    idx = bootstrap_indices(int(both.sum()), n_resamples=n_res, seed=seed)
    tables = resample_tables(x, y, k=k, indices=idx)
    reference = []
    for b in range(n_res):
        rows = idx[b]
        np.testing.assert_array_equal(tables[b], confusion_matrix(xp[rows], yp[rows], k=k))
        reference.append(
            cohen_kappa_score(xp[rows], yp[rows], labels=list(range(k)), weights=weights)
        )
    result = bootstrap_pairwise(
        x, y, k=k, seed=seed, n_resamples=n_res, statistic=statistic, method="percentile"
    )
    assert not isinstance(result.ci, Undefined)
    ref_lo, ref_hi = _quantiles(reference)
    assert result.ci[0] == pytest.approx(ref_lo, abs=1e-9)
    assert result.ci[1] == pytest.approx(ref_hi, abs=1e-9)


def test_blockwise_drawing_equals_the_whole_index_matrix() -> None:
    # n = 3000 items -> the index matrix is drawn in several blocks of rows internally
    k, n, n_res, seed = 3, 3000, 100, 21
    x, y = _two_raters(8, n, k)
    idx = bootstrap_indices(n, n_resamples=n_res, seed=seed)
    assert idx.shape == (n_res, n)
    rng = np.random.default_rng(seed)  # the documented recipe, drawn in one go
    np.testing.assert_array_equal(idx, rng.integers(0, n, size=(n_res, n)))
    reference = [cohen_kappa_score(x[r], y[r], labels=[0, 1, 2]) for r in idx]
    result = bootstrap_pairwise(x, y, k=k, seed=seed, n_resamples=n_res, method="percentile")
    assert result.ci == pytest.approx(_quantiles(reference), abs=1e-9)


def _ac1_slow(x: np.ndarray, y: np.ndarray, k: int) -> float:
    n = len(x)
    p_a = sum(int(a == b) for a, b in zip(x, y, strict=True)) / n
    p_e = 0.0
    for q in range(k):
        pi = (int(np.sum(x == q)) + int(np.sum(y == q))) / (2 * n)
        p_e += pi * (1 - pi)
    p_e /= k - 1
    return (p_a - p_e) / (1 - p_e)


def test_vectorized_ac1_and_percent_agreement_equal_slow_loop() -> None:
    k, n, n_res, seed = 3, 60, 200, 4
    x, y = _two_raters(9, n, k)
    idx = bootstrap_indices(n, n_resamples=n_res, seed=seed)
    ac1 = [_ac1_slow(x[r], y[r], k) for r in idx]
    agree = [float(np.mean(x[r] == y[r])) for r in idx]
    cases: list[tuple[PairwiseStatistic, list[float]]] = [
        ("gwet_ac1", ac1),
        ("percent_agreement", agree),
    ]
    for statistic, ref in cases:
        result = bootstrap_pairwise(
            x, y, k=k, seed=seed, n_resamples=n_res, statistic=statistic, method="percentile"
        )
        assert not isinstance(result.ci, Undefined)
        assert result.ci == pytest.approx(_quantiles(ref), abs=1e-9)


def _clustered_pairs(
    seed: int, n_clusters: int, size: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Within a cluster the second rater either copies every label or shifts every label."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 3, n_clusters * size)
    shift = np.repeat(rng.random(n_clusters) < 0.3, size)
    y = np.where(shift, (x + 1) % 3, x)
    clusters = np.repeat([f"case-{g}" for g in range(n_clusters)], size)
    return x, y, clusters


def test_cluster_bootstrap_equals_loop_over_whole_clusters() -> None:
    x, y, clusters = _clustered_pairs(0, n_clusters=15, size=4)
    # unequal cluster sizes: merge two clusters
    clusters[clusters == "case-1"] = "case-0"
    n_res, seed = 200, 5
    ids, n_clusters = cluster_index(clusters)
    assert n_clusters == 14
    idx = bootstrap_indices(n_clusters, n_resamples=n_res, seed=seed)
    tables = resample_tables(x, y, k=3, indices=idx, clusters=clusters)
    reference = []
    for b in range(n_res):
        items = np.concatenate([np.flatnonzero(ids == g) for g in idx[b]])
        np.testing.assert_array_equal(tables[b], confusion_matrix(x[items], y[items], k=3))
        reference.append(cohen_kappa_score(x[items], y[items], labels=[0, 1, 2]))
    result = bootstrap_pairwise(
        x, y, k=3, seed=seed, n_resamples=n_res, clusters=clusters, method="percentile"
    )
    assert result.n == 60 and result.n_clusters == 14
    assert result.ci == pytest.approx(_quantiles(reference), abs=1e-9)


def test_cluster_bootstrap_is_wider_when_items_in_a_case_move_together() -> None:
    x, y, clusters = _clustered_pairs(1, n_clusters=40, size=10)
    item_level = bootstrap_pairwise(x, y, k=3, seed=2, n_resamples=1000)
    cluster_level = bootstrap_pairwise(x, y, k=3, seed=2, n_resamples=1000, clusters=clusters)
    assert item_level.estimate == cluster_level.estimate
    w_item, w_cluster = item_level.width, cluster_level.width
    assert isinstance(w_item, float) and isinstance(w_cluster, float)
    # design effect ~ 1 + (m - 1) * ICC with m = 10 and ICC ~ 1: intervals ~3x wider
    assert w_cluster > 2 * w_item


def _planted_coverage(confidence: float) -> int:
    """How many of 20 seeded repetitions put the true kappa inside the interval."""
    k, n, truth = 3, 400, 0.7
    hits = 0
    for rep in range(20):
        rng = np.random.default_rng(1000 + rep)
        a = rng.integers(0, k, n)
        flip = rng.random(n) < 0.2
        b = np.where(flip, (a + rng.integers(1, k, n)) % k, a)
        result = bootstrap_pairwise(a, b, k=k, seed=rep, n_resamples=1000, confidence=confidence)
        assert not isinstance(result.ci, Undefined)
        hits += result.ci[0] <= truth <= result.ci[1]
    return hits


def test_planted_agreement_is_recovered() -> None:
    # Rater B copies rater A and replaces 20% of labels by a different category chosen at
    # random; both marginals stay uniform on K=3, so the true kappa is
    # (0.8 - 1/3) / (1 - 1/3) = 0.7. A 95% CI should contain it in most repetitions: with
    # 20 repetitions at 95% coverage, 16 or more hits happen with probability ~0.98.
    hits = _planted_coverage(0.95)
    assert hits >= 16, f"true kappa inside only {hits}/20 intervals"
    # The check has teeth: a 50% interval, far too narrow for a 95% claim, fails it.
    assert _planted_coverage(0.5) < 16


def test_undefined_resamples_are_dropped_and_counted() -> None:
    # One disagreement-free item of category 1 among nine of category 0: resamples that miss
    # it have p_e = 1 (probability 0.9**10 ~ 0.35).
    x = [0] * 9 + [1]
    result = bootstrap_pairwise(x, x, k=2, seed=0, n_resamples=1000, method="percentile")
    assert result.estimate == 1.0
    assert 250 < result.n_dropped < 450
    assert result.ci == (1.0, 1.0)
    strict = bootstrap_pairwise(x, x, k=2, seed=0, n_resamples=1000, max_undefined_fraction=0.2)
    assert isinstance(strict.ci, Undefined)
    assert f"{strict.n_dropped} of 1000" in strict.ci.reason


def test_undefined_point_estimate_gives_undefined_interval() -> None:
    same = bootstrap_pairwise([1, 1, 1], [1, 1, 1], k=2, seed=0, n_resamples=50)
    assert isinstance(same.estimate, Undefined) and isinstance(same.ci, Undefined)
    assert "point estimate is undefined" in same.ci.reason
    empty = bootstrap_pairwise([-1, 0], [1, -1], k=2, seed=0, n_resamples=50)
    assert empty.n == 0 and isinstance(empty.ci, Undefined)
    assert empty.as_estimate().json_data()["estimate"] is None


def test_percentile_interval_all_undefined() -> None:
    ci, dropped = percentile_interval(np.zeros(4), np.zeros(4, dtype=bool))
    assert isinstance(ci, Undefined) and dropped == 4


def test_options_are_validated() -> None:
    with pytest.raises(TypeError, match="seed"):
        bootstrap_pairwise([0, 1], [0, 1], k=2, seed=1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="confidence"):
        bootstrap_pairwise([0, 1], [0, 1], k=2, seed=1, confidence=95)
    with pytest.raises(ValueError, match="n_resamples"):
        bootstrap_pairwise([0, 1], [0, 1], k=2, seed=1, n_resamples=0)
    with pytest.raises(ValueError, match="clusters"):
        bootstrap_pairwise([0, 1], [0, 1], k=2, seed=1, clusters=[1])


def test_fleiss_bootstrap_equals_statsmodels_loop() -> None:
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 3, 50)
    data = np.where(rng.random((4, 50)) < 0.6, truth, rng.integers(0, 3, (4, 50)))
    n_res, seed = 200, 9
    idx = bootstrap_indices(50, n_resamples=n_res, seed=seed)
    reference = [sm_fleiss_kappa(aggregate_raters(data[:, r].T, n_cat=3)[0]) for r in idx]
    result = bootstrap_fleiss(data, k=3, seed=seed, n_resamples=n_res, method="percentile")
    assert result.n == 50 and result.statistic == "fleiss_kappa"
    assert result.ci == pytest.approx(_quantiles(reference), abs=1e-9)


@pytest.mark.parametrize("level", ["nominal", "ordinal"])
def test_krippendorff_bootstrap_equals_reference_loop(level: AlphaLevel) -> None:
    rng = np.random.default_rng(4)
    truth = rng.integers(0, 4, 40)
    data = np.where(rng.random((3, 40)) < 0.6, truth, rng.integers(0, 4, (3, 40)))
    data[rng.random(data.shape) < 0.2] = -1
    usable = np.flatnonzero((data >= 0).sum(axis=0) >= 2)
    n_res, seed = 150, 2
    idx = bootstrap_indices(usable.size, n_resamples=n_res, seed=seed)
    nan_data = np.where(data < 0, np.nan, data).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = [
            krippendorff.alpha(
                nan_data[:, usable[r]], level_of_measurement=level, value_domain=[0, 1, 2, 3]
            )
            for r in idx
        ]
    result = bootstrap_krippendorff(
        data, k=4, level=level, seed=seed, n_resamples=n_res, method="percentile"
    )
    assert result.n == usable.size
    assert result.ci == pytest.approx(_quantiles(reference), abs=1e-9)


def test_multirater_cluster_bootstrap_and_undefined() -> None:
    rng = np.random.default_rng(6)
    truth = rng.integers(0, 2, 60)
    data = np.where(rng.random((3, 60)) < 0.7, truth, rng.integers(0, 2, (3, 60)))
    clusters = np.repeat(np.arange(12), 5)
    fleiss = bootstrap_fleiss(data, k=2, seed=1, n_resamples=300, clusters=clusters)
    alpha = bootstrap_krippendorff(data, k=2, seed=1, n_resamples=300, clusters=clusters)
    assert fleiss.n_clusters == 12 and alpha.n_clusters == 12
    assert not isinstance(fleiss.ci, Undefined) and not isinstance(alpha.ci, Undefined)
    none = bootstrap_fleiss(np.array([[0, -1], [-1, 1]]), k=2, seed=0, n_resamples=10)
    assert isinstance(none.estimate, Undefined) and none.n == 0
