"""Two-rater statistics: hand-computed examples, scikit-learn reference, undefined cases."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from calibrant.agreement import (
    Undefined,
    cohen_kappa,
    confusion_matrix,
    gwet_ac1,
    is_defined,
    or_none,
    percent_agreement,
    weighted_kappa,
)

# 10 binary items; the raters disagree on items 6 and 10.
X10 = [1, 1, 1, 1, 1, 1, 0, 0, 0, 0]
Y10 = [1, 1, 1, 1, 1, 0, 0, 0, 0, 1]

# 8 items on an ordinal 0..2 scale.
X8 = [0, 0, 0, 1, 1, 2, 2, 2]
Y8 = [0, 0, 1, 1, 2, 2, 1, 0]


def test_confusion_matrix_keeps_scale_order_and_drops_missing() -> None:
    table = confusion_matrix([0, 2, 2, -1, 1], [0, 2, 1, 0, -1], k=4)
    expected = np.zeros((4, 4), dtype=np.int64)
    expected[0, 0] = expected[2, 2] = expected[2, 1] = 1
    np.testing.assert_array_equal(table, expected)


def test_percent_agreement_by_hand() -> None:
    # 8 of 10 identical; the missing pair is ignored.
    assert percent_agreement([*X10, -1], [*Y10, 0], k=2) == pytest.approx(0.8, abs=1e-12)


def test_cohen_kappa_by_hand() -> None:
    # table [[3, 1], [1, 5]]: p_o = 8/10; rows (4, 6), cols (4, 6)
    # p_e = 0.4*0.4 + 0.6*0.6 = 0.52; kappa = (0.8 - 0.52) / (1 - 0.52) = 0.28/0.48 = 7/12
    assert cohen_kappa(X10, Y10, k=2) == pytest.approx(7 / 12, abs=1e-12)


def test_weighted_kappa_by_hand() -> None:
    # O: (0,0)x2, (0,1), (1,1), (1,2), (2,2), (2,1), (2,0); rows r = (3,2,3), cols c = (3,3,2), n=8
    # unweighted: p_o = 4/8, p_e = (3*3 + 2*3 + 3*2)/64 = 21/64
    #   kappa = (32/64 - 21/64) / (43/64) = 11/43
    assert cohen_kappa(X8, Y8, k=3) == pytest.approx(11 / 43, abs=1e-12)
    # linear w = |i-j|: observed sum w*O = 1+1+1+2 = 5 -> 5/8 = 40/64
    #   expected sum w*r_i*c_j = (9+12) + (6+4) + (18+9) = 58 -> 58/64
    #   kappa = 1 - 40/58 = 9/29
    assert weighted_kappa(X8, Y8, k=3) == pytest.approx(9 / 29, abs=1e-12)
    assert cohen_kappa(X8, Y8, k=3, weights="linear") == pytest.approx(9 / 29, abs=1e-12)
    # quadratic w = (i-j)^2: observed 1+1+1+4 = 7 -> 56/64
    #   expected (9+24) + (6+4) + (36+9) = 88 -> 88/64; kappa = 1 - 56/88 = 4/11
    assert weighted_kappa(X8, Y8, k=3, weights="quadratic") == pytest.approx(4 / 11, abs=1e-12)


def test_gwet_ac1_by_hand() -> None:
    # p_a = 0.8; pi_1 = (6+6)/20 = 0.6, pi_0 = 0.4
    # p_e = (0.6*0.4 + 0.4*0.6) / (2-1) = 0.48; AC1 = (0.8-0.48)/(1-0.48) = 0.32/0.52 = 8/13
    assert gwet_ac1(X10, Y10, k=2) == pytest.approx(8 / 13, abs=1e-12)
    # Same data on a 3-category scale (category 2 unused): p_e = (0.24 + 0.24 + 0)/2 = 0.24
    # AC1 = (0.8 - 0.24)/(1 - 0.24) = 0.56/0.76 = 14/19
    assert gwet_ac1(X10, Y10, k=3) == pytest.approx(14 / 19, abs=1e-12)


def test_ac1_stays_high_where_kappa_paradox_strikes() -> None:
    # 10 items, 8 agree on 1, two disagreements: table [[0, 1], [1, 8]]
    x = [1] * 9 + [0]
    y = [1] * 8 + [0, 1]
    # kappa: p_o = 0.8, p_e = 0.1*0.1 + 0.9*0.9 = 0.82 -> (0.8-0.82)/0.18 = -1/9
    assert cohen_kappa(x, y, k=2) == pytest.approx(-1 / 9, abs=1e-12)
    # AC1: pi = (0.1, 0.9), p_e = 2*0.09 = 0.18 -> (0.8-0.18)/0.82 = 31/41
    assert gwet_ac1(x, y, k=2) == pytest.approx(31 / 41, abs=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("k", [2, 3, 5, 7])
def test_matches_sklearn(seed: int, k: int) -> None:
    rng = np.random.default_rng(seed * 100 + k)
    n = 150
    x = rng.integers(0, k, n)
    y = np.where(rng.random(n) < 0.5, x, rng.integers(0, k, n))
    labels = list(range(k))
    for weights in (None, "linear", "quadratic"):
        ours = cohen_kappa(x, y, k=k, weights=weights)
        ref = cohen_kappa_score(x, y, labels=labels, weights=weights)
        assert isinstance(ours, float)
        assert ours == pytest.approx(ref, abs=1e-9)


def test_matches_sklearn_with_missing_values_dropped_pairwise() -> None:
    rng = np.random.default_rng(42)
    x = rng.integers(0, 4, 300)
    y = np.where(rng.random(300) < 0.6, x, rng.integers(0, 4, 300))
    xm, ym = x.copy(), y.copy()
    xm[rng.random(300) < 0.1] = -1
    ym[rng.random(300) < 0.1] = -1
    both = (xm >= 0) & (ym >= 0)
    ref = cohen_kappa_score(x[both], y[both], labels=[0, 1, 2, 3], weights="quadratic")
    assert cohen_kappa(xm, ym, k=4, weights="quadratic") == pytest.approx(ref, abs=1e-9)


def test_undefined_when_all_labels_identical() -> None:
    result = cohen_kappa([1, 1, 1, 1], [1, 1, 1, 1], k=3)
    assert isinstance(result, Undefined)
    assert "p_e = 1" in result.reason
    weighted = weighted_kappa([2, 2], [2, 2], k=3)
    assert isinstance(weighted, Undefined)
    # percent agreement is still defined there
    assert percent_agreement([1, 1], [1, 1], k=3) == 1.0


def test_undefined_with_one_item_or_none() -> None:
    one = cohen_kappa([0], [1], k=2)
    assert isinstance(one, Undefined) and "fewer than 2" in one.reason
    assert isinstance(gwet_ac1([0], [0], k=2), Undefined)
    for empty in (cohen_kappa([], [], k=2), percent_agreement([], [], k=2), gwet_ac1([], [], k=2)):
        assert isinstance(empty, Undefined) and "no paired items" in empty.reason
    # items exist but never both rated
    nopair = cohen_kappa([0, -1], [-1, 1], k=2)
    assert isinstance(nopair, Undefined) and "no paired items" in nopair.reason


def test_ac1_undefined_on_one_category_scale() -> None:
    result = gwet_ac1([0, 0, 0], [0, 0, 0], k=1)
    assert isinstance(result, Undefined) and "2 categories" in result.reason


def test_kappa_defined_when_raters_use_different_single_categories() -> None:
    # rater A always 0, rater B always 1: p_o = 0, p_e = 0 -> kappa = 0 (defined, not a guess)
    assert cohen_kappa([0, 0, 0], [1, 1, 1], k=2) == 0.0


def test_bad_inputs_raise() -> None:
    with pytest.raises(ValueError, match="differ in length"):
        cohen_kappa([0, 1], [0], k=2)
    with pytest.raises(ValueError, match="weights"):
        cohen_kappa([0, 1], [0, 1], k=2, weights="cubic")  # type: ignore[arg-type]


def test_undefined_helpers() -> None:
    value = cohen_kappa(X10, Y10, k=2)
    missing = cohen_kappa([0], [0], k=2)
    assert is_defined(value) and not is_defined(missing)
    assert or_none(value) == value and or_none(missing) is None
    assert isinstance(missing, Undefined) and str(missing).startswith("undefined (")
    assert missing == Undefined(missing.reason)  # plain value object, comparable
