"""Fleiss' kappa and Krippendorff's alpha: hand examples, reference libraries, undefined cases."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from calibrant.agreement import (
    AlphaLevel,
    Undefined,
    category_counts,
    fleiss_kappa,
    fleiss_kappa_from_counts,
    krippendorff_alpha,
)


def _as_nan(data: np.ndarray) -> np.ndarray:
    return np.where(data < 0, np.nan, data).astype(float)


def test_category_counts() -> None:
    data = np.array([[0, 1, -1], [0, 2, -1], [1, 2, 2]])
    assert category_counts(data, k=3).tolist() == [[2, 1, 0], [0, 1, 2], [0, 0, 1]]


def test_fleiss_by_hand() -> None:
    # 4 items x 3 raters, 2 categories; counts per item (n_i0, n_i1):
    # (3,0): P=3*2/6=1; (2,1): P=(2*1)/6=1/3; (1,2): 1/3; (0,3): 1  -> P_bar = (8/3)/4 = 2/3
    # p_0 = p_1 = 6/12 = 0.5 -> P_e = 0.5; kappa = (2/3 - 1/2)/(1 - 1/2) = 1/3
    data = np.array([[0, 0, 0, 1], [0, 0, 1, 1], [0, 1, 1, 1]])
    assert fleiss_kappa(data, k=2) == pytest.approx(1 / 3, abs=1e-12)
    assert fleiss_kappa_from_counts([[3, 0], [2, 1], [1, 2], [0, 3]]) == pytest.approx(1 / 3)


def test_fleiss_unequal_ratings_by_hand() -> None:
    # counts (n_i0, n_i1) and own m_i: (2,0) P=1; (1,1) P=0; (3,0) P=1; (1,2) P=2/6=1/3;
    # (1,0) has one rating and is ignored. P_bar = (1 + 0 + 1 + 1/3)/4 = 7/12
    # pooled p = (7/10, 3/10) -> P_e = 0.49 + 0.09 = 0.58
    # kappa = (7/12 - 0.58) / (1 - 0.58) = (2/600) / (21/50) = 1/126
    counts = [[2, 0], [1, 1], [3, 0], [1, 2], [1, 0]]
    assert fleiss_kappa_from_counts(counts) == pytest.approx(1 / 126, abs=1e-12)
    data = np.array(
        [
            [0, 0, 0, 0, 0],
            [0, 1, 0, 1, -1],
            [-1, -1, 0, 1, -1],
        ]
    )
    assert fleiss_kappa(data, k=2) == pytest.approx(1 / 126, abs=1e-12)


def test_krippendorff_nominal_by_hand_with_missing() -> None:
    # raters x items; -1 = missing
    data = np.array([[0, 0, 1, 1], [0, 1, 1, -1], [0, -1, 1, 0]])
    # item1 {0,0,0}: o00 += (9-3)/2 = 3; item2 {0,1}: o01 = o10 += 1
    # item3 {1,1,1}: o11 += 3;            item4 {1,0}: o01 = o10 += 1
    # o = [[3,2],[2,3]], n_0 = n_1 = 5, n = 10
    # alpha = 1 - (n-1) * (o01+o10) / (2 n_0 n_1) = 1 - 9*4/50 = 0.28
    assert krippendorff_alpha(data, k=2) == pytest.approx(0.28, abs=1e-12)


def test_krippendorff_ordinal_by_hand_with_missing() -> None:
    data = np.array([[0, 1, 2, 2, 0], [0, 2, 2, -1, 1], [1, -1, 2, 1, 0]])
    # items: {0,0,1} {1,2} {2,2,2} {2,1} {0,1,0}
    # o = [[2,2,0],[2,0,2],[0,2,3]], n_c = (4,4,5), n = 13
    # ordinal d2(c,k) = (sum_{g=c..k} n_g - (n_c+n_k)/2)^2:
    #   d2(0,1) = (8-4)^2 = 16, d2(1,2) = (9-4.5)^2 = 20.25, d2(0,2) = (13-4.5)^2 = 72.25
    # sum o*d2 = 2*(2*16 + 0*72.25 + 2*20.25) = 145
    # sum n_c n_k d2 = 2*(16*16 + 20*72.25 + 20*20.25) = 4212
    # alpha = 1 - 12*145/4212 = 206/351
    assert krippendorff_alpha(data, k=3, level="ordinal") == pytest.approx(206 / 351, abs=1e-12)
    # nominal on the same data: sum o*d = 8, sum n_c n_k d = 2*(16+20+20) = 112
    # alpha = 1 - 12*8/112 = 1/7
    assert krippendorff_alpha(data, k=3) == pytest.approx(1 / 7, abs=1e-12)


def _random_ratings(seed: int, k: int, raters: int, items: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, items)
    noise = rng.integers(0, k, (raters, items))
    return np.where(rng.random((raters, items)) < 0.6, truth, noise)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("k", [2, 3, 5])
def test_fleiss_matches_statsmodels(seed: int, k: int) -> None:
    data = _random_ratings(seed, k, raters=4, items=120)
    table, _ = aggregate_raters(data.T, n_cat=k)
    ours = fleiss_kappa(data, k=k)
    assert isinstance(ours, float)
    assert ours == pytest.approx(sm_fleiss_kappa(table), abs=1e-9)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("k", [2, 3, 5])
@pytest.mark.parametrize("level", ["nominal", "ordinal"])
def test_krippendorff_matches_reference_with_missing(seed: int, k: int, level: AlphaLevel) -> None:
    data = _random_ratings(seed, k, raters=4, items=100)
    rng = np.random.default_rng(seed + 1000)
    data[rng.random(data.shape) < 0.25] = -1
    ref = krippendorff.alpha(
        reliability_data=_as_nan(data),
        level_of_measurement=level,
        value_domain=list(range(k)),
    )
    ours = krippendorff_alpha(data, k=k, level=level)
    assert isinstance(ours, float)
    assert ours == pytest.approx(ref, abs=1e-9)


def test_undefined_multirater_cases() -> None:
    same = np.ones((3, 5), dtype=int)
    fk = fleiss_kappa(same, k=2)
    assert isinstance(fk, Undefined) and "P_e = 1" in fk.reason
    ka = krippendorff_alpha(same, k=2)
    assert isinstance(ka, Undefined) and "D_e = 0" in ka.reason
    single = np.array([[0, -1, 1], [-1, 1, -1]])  # no item with two ratings
    fk1 = fleiss_kappa(single, k=2)
    assert isinstance(fk1, Undefined) and "2 or more" in fk1.reason
    ka1 = krippendorff_alpha(single, k=2, level="ordinal")
    assert isinstance(ka1, Undefined) and "no pairable" in ka1.reason
    empty = np.zeros((2, 0), dtype=int)
    assert isinstance(fleiss_kappa(empty, k=2), Undefined)
    assert isinstance(krippendorff_alpha(empty, k=2), Undefined)
