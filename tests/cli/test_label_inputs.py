"""Label inputs that would silently change a figure are refused (one line, file, line, field) or
warned about: empty labels, booleans and floats, criteria the rubric lacks, an ordinal level
with no order, a label twice."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from sklearn.metrics import cohen_kappa_score

from tests.conftest import ROOT, Result

RUBRIC = str(ROOT / "rubrics" / "refund_communication.yaml")


def _write(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _rows(rater: str, labels: list[object], criterion: str = "c") -> list[dict[str, object]]:
    return [
        {"item": f"t{i}", "rater": rater, "criterion": criterion, "label": v}
        for i, v in enumerate(labels)
    ]


def _one_line(r: Result) -> str:
    assert r.code == 2, (r.code, r.err)
    lines = [ln for ln in r.err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in r.err, r.err
    return lines[0]


@pytest.mark.parametrize(
    ("value", "needle"),
    [
        ("", "cannot be empty"),
        ("   ", "cannot be empty"),
        (True, "not true"),  # would silently count as the integer 1
        (3.0, "not 3.0"),  # would silently become 3
        (None, "not null"),
        (" pass", "surrounding spaces"),
    ],
)
def test_bad_label_value_names_file_line_and_field(
    tmp_path: Path, cli: Callable[..., Result], value: object, needle: str
) -> None:
    f = _write(tmp_path / "a.jsonl", _rows("a", ["pass", "fail", value, "pass"]))
    line = _one_line(cli("agree", str(f)))
    assert f"{f}:3:" in line and "field 'label'" in line and needle in line


def test_empty_csv_label_is_refused(tmp_path: Path, cli: Callable[..., Result]) -> None:
    f = tmp_path / "a.csv"
    f.write_text("item,rater,criterion,label\nt1,a,c,pass\nt2,a,c,\n")
    line = _one_line(cli("agree", str(f)))
    assert f"{f}:3:" in line and "empty" in line


def test_criterion_not_in_the_rubric_is_refused(tmp_path: Path, cli: Callable[..., Result]) -> None:
    rows = _rows("a", ["pass", "fail"], "explains_next_step") + _rows("a", ["pass"], "tone")
    f = _write(tmp_path / "a.jsonl", rows)
    line = _one_line(cli("agree", str(f), "--rubric", RUBRIC))
    assert f"{f}:3:" in line and "field 'criterion'" in line and "'tone'" in line


def test_label_off_the_rubric_scale_is_refused(tmp_path: Path, cli: Callable[..., Result]) -> None:
    f = _write(tmp_path / "a.jsonl", _rows("a", [4, 3, 5], "overall_clarity"))
    line = _one_line(cli("agree", str(f), "--rubric", RUBRIC))
    assert f"{f}:3:" in line and "not on the scale" in line


def test_ordinal_text_labels_need_an_order(tmp_path: Path, cli: Callable[..., Result]) -> None:
    a = _write(tmp_path / "a.jsonl", _rows("a", ["poor", "fair", "good", "fair", "good"]))
    b = _write(tmp_path / "b.jsonl", _rows("b", ["poor", "good", "good", "fair", "fair"]))
    line = _one_line(cli("agree", str(a), str(b), "--level", "ordinal"))
    assert "--order" in line and "--rubric" in line
    # with the order given, the weighted kappa follows it (alphabetical would put fair < good <
    # poor and give another number)
    r = cli("agree", str(a), str(b), "--order", "poor,fair,good", "--json")
    assert r.code == 0, r.err
    pair = json.loads(r.out)["criteria"]["c"]["pairs"][0]
    rank = {"poor": 0, "fair": 1, "good": 2}
    want = cohen_kappa_score(
        [rank[x] for x in ["poor", "fair", "good", "fair", "good"]],
        [rank[x] for x in ["poor", "good", "good", "fair", "fair"]],
        weights="linear",
    )
    assert abs(pair["weighted_kappa"] - want) < 1e-9
    # integers carry their own order
    n = _write(tmp_path / "n.jsonl", _rows("a", [1, 2, 3, 2]))
    m = _write(tmp_path / "m.jsonl", _rows("b", [1, 3, 3, 2]))
    assert cli("agree", str(n), str(m), "--level", "ordinal", "--json").code == 0


def test_label_outside_the_order_is_refused(tmp_path: Path, cli: Callable[..., Result]) -> None:
    a = _write(tmp_path / "a.jsonl", _rows("a", ["poor", "fair", "great"]))
    line = _one_line(cli("agree", str(a), "--order", "poor,fair,good"))
    assert f"{a}:3:" in line and "'great'" in line
    assert "two or more" in _one_line(cli("agree", str(a), "--order", "poor"))
    assert "nominal" in _one_line(cli("agree", str(a), "--order", "a,b", "--level", "nominal"))


def test_labels_differing_only_in_case_are_warned_about(
    tmp_path: Path, cli: Callable[..., Result]
) -> None:
    a = _write(tmp_path / "a.jsonl", _rows("a", ["pass", "Pass", "fail"]))
    b = _write(tmp_path / "b.jsonl", _rows("b", ["pass", "pass", "fail"]))
    r = cli("agree", str(a), str(b))
    assert r.code == 0
    assert "warning: criterion 'c' has labels that differ only in case (Pass, pass)" in r.err
