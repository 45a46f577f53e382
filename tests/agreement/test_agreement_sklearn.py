"""The vectorized kappa against scikit-learn on every resample, not only on the point estimate.

Each test draws the index matrix the bootstrap itself draws (:func:`bootstrap_indices`, the same
seed and unit count: items, or cases with ``clusters=``), builds the drawn sample item by item,
and compares the fast path's confusion table and kappa of every resample with
``sklearn.metrics.confusion_matrix`` and ``sklearn.metrics.cohen_kappa_score`` on that sample.

How an undefined kappa compares (calibrant returns :class:`Undefined`, never a number):

* expected disagreement zero (both raters used one identical label on every drawn item,
  p_e = 1): scikit-learn returns ``nan`` with a warning; calibrant's resample is undefined. The
  two must coincide exactly: sklearn ``nan`` <=> calibrant undefined, on every resample with two
  or more items.
* fewer than 2 paired items: calibrant calls kappa undefined (one item measures no agreement
  beyond chance), where scikit-learn returns ``0.0`` for one disagreeing item and ``nan`` for one
  agreeing item. This is the only place the two differ, and the tests name it.
* a label absent on one side (or from the whole sample) is not a special case: both count it as
  an empty row or column of the K x K table (``labels=range(K)``), and kappa stays defined.

Defined values agree to 1e-12; they are not always bit-identical: sklearn sums floats
``r_i c_j / n`` while the fast path divides exact integer sums once (see ``kappa_from_tables``).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import cohen_kappa_score
from sklearn.metrics import confusion_matrix as sk_confusion_matrix

from calibrant.agreement import (
    Undefined,
    bootstrap_indices,
    bootstrap_pairwise,
    cluster_index,
    cohen_kappa,
    confusion_matrix,
    resample_tables,
)
from calibrant.agreement.meanpair import bootstrap_mean_pairwise
from calibrant.agreement.pairwise import (
    PairwiseStatistic,
    Weights,
    kappa_from_tables,
    statistic_from_tables,
)
from calibrant.calibration.criterion import scale_of
from calibrant.contracts.rubric import NOT_APPLICABLE
from calibrant.files import load_rubric
from calibrant.gold import CONSENSUS, load_gold
from tests.conftest import ROOT

IntArray = NDArray[np.int64]
N_RESAMPLES = 500
WEIGHTS: dict[PairwiseStatistic, Weights | None] = {
    "cohen_kappa": None,
    "weighted_kappa_linear": "linear",
    "weighted_kappa_quadratic": "quadratic",
}


def sk_kappa(a: IntArray, b: IntArray, *, k: int, weights: str | None) -> float:
    """scikit-learn's kappa on one sample; ``nan`` where it warns that kappa is undefined."""
    if a.size == 0:
        return float("nan")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)  # p_e = 1: sklearn gives nan
        return float(cohen_kappa_score(a, b, labels=list(range(k)), weights=weights))


def drawn_items(row: IntArray, members: Sequence[IntArray] | None) -> IntArray:
    """Item positions of one resample: the drawn items, or every item of each drawn case."""
    if members is None:
        return row
    return np.concatenate([members[g] for g in row]) if row.size else row


def check_every_resample(
    x: IntArray,
    y: IntArray,
    *,
    k: int,
    statistic: PairwiseStatistic,
    clusters: Sequence[Any] | None,
    seed: int,
    n_resamples: int = N_RESAMPLES,
) -> tuple[int, int]:
    """Compare every resample's table and kappa with the drawn items'; ``(defined, undefined)``.

    The table is checked against a count of the drawn items, the kappa against sklearn on them
    (sklearn is called once per distinct multiset of drawn items: its kappa depends on the
    items only through their table, and small samples repeat the same draw many times). Also
    checks that :func:`bootstrap_pairwise` reads exactly these resamples: its percentile
    interval equals the quantiles of sklearn's values of the defined resamples.
    """
    both = (x >= 0) & (y >= 0)
    xp, yp = x[both], y[both]
    members: list[IntArray] | None = None
    units = int(both.sum())
    if clusters is not None:
        ids, units = cluster_index(np.asarray(clusters, dtype=object)[both])
        members = [np.flatnonzero(ids == g) for g in range(units)]
    idx = bootstrap_indices(units, n_resamples=n_resamples, seed=seed)
    tables = resample_tables(x, y, k=k, indices=idx, clusters=clusters)
    values, defined = statistic_from_tables(tables, statistic=statistic)
    reference = []
    sklearn_of: dict[tuple[int, ...], float] = {}
    for b in range(n_resamples):
        items = drawn_items(idx[b], members)
        a, c = xp[items], yp[items]
        drawn = np.zeros((k, k), dtype=np.int64)
        np.add.at(drawn, (a, c), 1)
        np.testing.assert_array_equal(tables[b], drawn, err_msg=f"resample {b}")
        key = tuple(np.sort(items).tolist())
        if key not in sklearn_of:
            sklearn_of[key] = sk_kappa(a, c, k=k, weights=WEIGHTS[statistic])
        ref = sklearn_of[key]
        if a.size < 2:  # calibrant: undefined below 2 items; sklearn: 0.0 or nan
            assert not defined[b], f"resample {b}: {a.size} item(s) but kappa defined"
            continue
        assert bool(defined[b]) == (not np.isnan(ref)), f"resample {b}: definedness differs"
        if defined[b]:
            assert values[b] == pytest.approx(ref, abs=1e-12), f"resample {b}"
            reference.append(ref)
    result = bootstrap_pairwise(
        x,
        y,
        k=k,
        seed=seed,
        statistic=statistic,
        n_resamples=n_resamples,
        clusters=clusters,
        method="percentile",
        max_undefined_fraction=1.0,
    )
    assert result.n_dropped == n_resamples - len(reference)
    if reference and not isinstance(result.estimate, Undefined):
        assert not isinstance(result.ci, Undefined)
        lo, hi = np.quantile(np.asarray(reference), [0.025, 0.975])
        assert result.ci == pytest.approx((lo, hi), abs=1e-12)
    return len(reference), n_resamples - len(reference)


# --- real gold labels, resampled by case ------------------------------------------------------

RUBRIC = load_rubric(ROOT / "rubrics" / "refund_communication.yaml")
GOLD = load_gold(ROOT / "gold", split=None)


def gold_codes(criterion: str, rater: str) -> tuple[IntArray, int, str]:
    """One rater's codes on every gold item (``-1`` = no label or not applicable)."""
    crit = next(c for c in RUBRIC.criteria if c.id == criterion)
    scale = scale_of(crit)
    labels = GOLD.labels_by(rater, criterion)
    codes = scale.encode([labels.get(i) for i in GOLD.item_ids], missing={NOT_APPLICABLE})
    return codes, scale.k, scale.level


GOLD_CASES = [GOLD.clusters()[i] for i in GOLD.item_ids]


@pytest.mark.parametrize("criterion", [c.id for c in RUBRIC.criteria])
def test_gold_labels_every_case_resample_equals_sklearn(criterion: str) -> None:
    x, k, level = gold_codes(criterion, "rater_a")
    y = gold_codes(criterion, "rater_b")[0]
    statistics: list[PairwiseStatistic] = ["cohen_kappa"]
    if level == "ordinal":
        statistics += ["weighted_kappa_linear", "weighted_kappa_quadratic"]
    for statistic in statistics:
        n_def, n_undef = check_every_resample(
            x, y, k=k, statistic=statistic, clusters=GOLD_CASES, seed=20
        )
        assert n_def > 0
    # the point estimate and its table: the same as sklearn's on the items both rated
    both = (x >= 0) & (y >= 0)
    np.testing.assert_array_equal(
        confusion_matrix(x, y, k=k), sk_confusion_matrix(x[both], y[both], labels=list(range(k)))
    )
    for statistic in statistics:
        ours = cohen_kappa(x, y, k=k, weights=WEIGHTS[statistic])
        ref = sk_kappa(x[both], y[both], k=k, weights=WEIGHTS[statistic])
        assert isinstance(ours, float) and ours == pytest.approx(ref, abs=1e-12)


# --- adversarial small samples ----------------------------------------------------------------

ADVERSARIAL: dict[str, tuple[list[int], list[int], int, list[Any] | None]] = {
    # name: (x, y, k, clusters)
    "all one label": ([1] * 8, [1] * 8, 3, [0, 0, 1, 1, 2, 2, 3, 3]),
    "one side constant": ([0] * 8, [0, 1, 0, 1, 1, 0, 0, 1], 2, [0, 0, 1, 1, 2, 2, 3, 3]),
    "label absent on one side": (
        [0, 1, 2, 2, 1, 0, 2, 1],
        [0, 1, 1, 1, 1, 0, 0, 1],
        3,
        [0, 0, 1, 2, 2, 3, 4, 4],
    ),
    "two labels on a 4-label scale": ([0, 3, 3, 0, 3], [0, 3, 0, 0, 3], 4, None),
    "p_e = 1 in many resamples": ([2, 2, 2, 2, 2, 1], [2, 2, 2, 2, 2, 1], 3, [0, 0, 1, 1, 2, 2]),
    "two items": ([0, 1], [0, 1], 2, None),
    "two cases, one item each": ([0, 1], [1, 1], 2, ["a", "b"]),
    "one case of one item": ([0], [1], 2, ["only"]),
    "one case holding all": ([0, 1, 1, 0], [0, 1, 0, 0], 2, ["c"] * 4),
    "missing ratings": ([0, -1, 1, 1, 0, 2], [0, 1, -1, 1, 2, 2], 3, [0, 0, 1, 1, 2, 2]),
    "perfect disagreement": ([0, 1, 0, 1], [1, 0, 1, 0], 2, [0, 1, 2, 3]),
}


@pytest.mark.parametrize("statistic", list(WEIGHTS))
@pytest.mark.parametrize("name", list(ADVERSARIAL))
def test_adversarial_small_samples_every_resample_equals_sklearn(
    name: str, statistic: PairwiseStatistic
) -> None:
    x, y, k, clusters = ADVERSARIAL[name]
    check_every_resample(
        np.asarray(x, dtype=np.int64),
        np.asarray(y, dtype=np.int64),
        k=k,
        statistic=statistic,
        clusters=clusters,
        seed=7,
    )


def test_undefined_cases_are_undefined_on_both_sides() -> None:
    x, y, k, clusters = ADVERSARIAL["all one label"]
    n_def, n_undef = check_every_resample(
        np.asarray(x), np.asarray(y), k=k, statistic="cohen_kappa", clusters=clusters, seed=1
    )
    assert (n_def, n_undef) == (0, N_RESAMPLES)
    with pytest.warns(UndefinedMetricWarning):  # what a user of sklearn sees: nan, a warning
        assert np.isnan(cohen_kappa_score(x, y, labels=list(range(k))))
    point = cohen_kappa(x, y, k=k)
    assert isinstance(point, Undefined) and "p_e = 1" in point.reason
    # mixed: some resamples draw only the 2s (p_e = 1), the others are defined
    x, y, k, clusters = ADVERSARIAL["p_e = 1 in many resamples"]
    n_def, n_undef = check_every_resample(
        np.asarray(x), np.asarray(y), k=k, statistic="cohen_kappa", clusters=clusters, seed=1
    )
    assert n_def > 0 and n_undef > 0
    # one item: sklearn gives 0.0 for a disagreement, calibrant refuses a number
    assert cohen_kappa_score([0], [1], labels=[0, 1]) == 0.0
    assert isinstance(cohen_kappa([0], [1], k=2), Undefined)


# --- the mean over rater pairs, resampled jointly by case -------------------------------------


def test_mean_pairwise_every_case_resample_equals_sklearn() -> None:
    criterion = "overall_clarity"  # ordinal: the ceiling uses linear-weighted kappa
    rows = [gold_codes(criterion, r)[0] for r in ("rater_a", "rater_b", CONSENSUS)]
    k, level = gold_codes(criterion, "rater_a")[1:]
    statistic: PairwiseStatistic = "weighted_kappa_linear" if level == "ordinal" else "cohen_kappa"
    data = np.vstack(rows)
    rated = np.zeros(data.shape[1], dtype=bool)
    pairs = [(0, 1), (0, 2), (1, 2)]
    for a, b in pairs:
        rated |= (data[a] >= 0) & (data[b] >= 0)
    ids, units = cluster_index(np.asarray(GOLD_CASES, dtype=object)[rated])
    members = [np.flatnonzero(rated)[ids == g] for g in range(units)]
    n_resamples = 300
    idx = bootstrap_indices(units, n_resamples=n_resamples, seed=3)
    reference = []
    for b in range(n_resamples):
        items = drawn_items(idx[b], members)
        kappas = []
        for a, c in pairs:
            sub = data[:, items]
            both = (sub[a] >= 0) & (sub[c] >= 0)
            value = sk_kappa(sub[a][both], sub[c][both], k=k, weights=WEIGHTS[statistic])
            if both.sum() >= 2 and not np.isnan(value):
                kappas.append(value)
        if kappas:
            reference.append(float(np.mean(kappas)))
    result = bootstrap_mean_pairwise(
        data,
        k=k,
        seed=3,
        statistic=statistic,
        n_resamples=n_resamples,
        clusters=GOLD_CASES,
        method="percentile",
    )
    assert result.n_dropped == n_resamples - len(reference)
    lo, hi = np.quantile(np.asarray(reference), [0.025, 0.975])
    assert not isinstance(result.ci, Undefined)
    assert result.ci == pytest.approx((lo, hi), abs=1e-12)


# --- why the point estimate is not taken from sklearn -----------------------------------------


def test_point_estimate_is_one_function_of_the_table_where_sklearn_rounds_apart() -> None:
    """The bootstrap's kappa is ``1 - n*O/E`` over exact integer sums, so one rational value of
    kappa is always one double; sklearn sums ``r_i c_j / n`` in floats and can land a last bit
    apart. On an exact band edge that shows: kappa = 0 exactly comes out of sklearn as -2.2e-16
    (printed ``-0.00``) and 2/5 as 0.3999999999999999 (below the 0.4 edge). BCa counts the
    resamples tied with the point estimate, so the estimate must come from the same arithmetic
    as the resamples; sklearn stays the reference these tests compare to."""
    zero = np.array([[0, 0, 1, 0], [0, 0, 0, 2], [0, 0, 0, 0], [0, 0, 0, 0]])
    two_fifths = np.array([[1, 0, 0, 0], [0, 0, 1, 1], [0, 0, 0, 0], [0, 0, 0, 0]])
    edges: list[tuple[NDArray[np.int64], Weights, float]] = [
        (zero, "linear", 0.0),
        (two_fifths, "quadratic", 0.4),
    ]
    for table, weights, exact in edges:
        a, b = np.nonzero(table)
        a, b = np.repeat(a, table[a, b]), np.repeat(b, table[a, b])
        ours = cohen_kappa(a, b, k=4, weights=weights)
        assert ours == exact == float(kappa_from_tables(table, weights=weights)[0])
        ref = sk_kappa(a, b, k=4, weights=weights)
        assert ref != exact and ref == pytest.approx(exact, abs=1e-15)
