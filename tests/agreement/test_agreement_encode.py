"""Scale: raw labels to codes, inference of the order, long-format rows to a matrix."""

from __future__ import annotations

import math

import numpy as np
import pytest

from calibrant.agreement import MISSING, Scale, check_codes, long_to_matrix


def test_explicit_ordinal_scale_encodes_in_given_order() -> None:
    scale = Scale(labels=("poor", "ok", "good"), level="ordinal")
    assert scale.k == 3
    codes = scale.encode(["good", "poor", None, "ok", math.nan])
    assert codes.tolist() == [2, 0, MISSING, 1, MISSING]
    assert codes.dtype == np.int64
    assert scale.decode(codes) == ["good", "poor", None, "ok", None]


def test_label_outside_scale_raises() -> None:
    scale = Scale(labels=("pass", "fail"))
    with pytest.raises(ValueError, match="not on the scale"):
        scale.encode(["pass", "PASS"])
    with pytest.raises(ValueError, match="not on the scale"):
        scale.code("maybe")


def test_missing_labels_become_minus_one() -> None:
    scale = Scale(labels=("pass", "fail"))
    codes = scale.encode(["pass", "can't tell", "fail"], missing={"can't tell"})
    assert codes.tolist() == [0, MISSING, 1]


def test_infer_sorts_ints_numerically_and_strings_alphabetically() -> None:
    assert Scale.infer([3, 1, 10, 2, None]).labels == (1, 2, 3, 10)
    assert Scale.infer(["b", "a", "c"], level="ordinal").labels == ("a", "b", "c")
    assert Scale.infer([2.0, 1.0, math.nan]).labels == (1.0, 2.0)
    assert Scale.infer([True, False, None]).labels == (False, True)


def test_infer_rejects_mixed_types_and_empty_input() -> None:
    with pytest.raises(ValueError, match="mixed"):
        Scale.infer([1, "a"])
    with pytest.raises(ValueError, match="no non-missing"):
        Scale.infer([None, math.nan])


def test_scale_validation() -> None:
    with pytest.raises(ValueError, match="distinct"):
        Scale(labels=("a", "a"))
    with pytest.raises(ValueError, match="at least one"):
        Scale(labels=())
    with pytest.raises(ValueError, match="missing"):
        Scale(labels=("a", None))


def test_check_codes_rejects_out_of_range_and_non_integers() -> None:
    assert check_codes([0, 1, -1], k=2).tolist() == [0, 1, -1]
    with pytest.raises(ValueError, match="-1..1"):
        check_codes([0, 2], k=2)
    with pytest.raises(ValueError, match="-1..1"):
        check_codes([-2, 0], k=2)
    with pytest.raises(ValueError, match="whole"):
        check_codes([0.5, 1.0], k=2)
    with pytest.raises(ValueError, match="integers"):
        check_codes(["a"], k=2)


def test_long_to_matrix_fills_missing_cells_and_rejects_duplicates() -> None:
    scale = Scale(labels=("no", "yes"))
    rows = [
        ("t1", "ann", "yes"),
        ("t1", "bob", "no"),
        ("t2", "ann", "no"),
        ("t3", "bob", "can't tell"),
    ]
    matrix, raters, items = long_to_matrix(rows, scale=scale, missing={"can't tell"})
    assert raters == ["ann", "bob"]
    assert items == ["t1", "t2", "t3"]
    assert matrix.tolist() == [[1, 0, -1], [0, -1, -1]]
    with pytest.raises(ValueError, match="more than once"):
        long_to_matrix([*rows, ("t1", "ann", "no")], scale=scale, missing={"can't tell"})
