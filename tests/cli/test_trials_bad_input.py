"""`calibrant trials` on bad input: one line naming the file (and line and field), exit 2,
before any trial runs, nothing written."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import CASES, Result

CASE = CASES / "eligible_damaged_order.yaml"


def _one_line(r: Result) -> str:
    assert r.code == 2, (r.code, r.out, r.err)
    lines = [ln for ln in r.err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in r.err, r.err
    return lines[0]


def _trials(cli: Callable[..., Result], case: Path, out: Path) -> Result:
    return cli("trials", str(case), "--agent", "scripted:correct", "-k", "1", "--out", str(out))


def test_out_is_an_existing_file(tmp_path: Path, cli: Callable[..., Result]) -> None:
    out = tmp_path / "report.txt"
    out.write_text("keep me\n")
    line = _one_line(_trials(cli, CASE, out))
    assert "--out" in line and str(out) in line and "file" in line
    assert out.read_text() == "keep me\n" and sorted(tmp_path.iterdir()) == [out]


def test_out_under_a_file(tmp_path: Path, cli: Callable[..., Result]) -> None:
    blocker = tmp_path / "notes.txt"
    blocker.write_text("x")
    out = blocker / "runs" / "ok"
    line = _one_line(_trials(cli, CASE, out))
    assert "--out" in line and str(blocker) in line and "not a folder" in line
    assert sorted(tmp_path.iterdir()) == [blocker] and blocker.read_text() == "x"


def _line_of(text: str, needle: str) -> int:
    return next(i for i, ln in enumerate(text.splitlines(), 1) if needle in ln)


# (text replaced, replacement, field named, line holding it, words the message must contain)
INCONSISTENT = [
    ("  tenant: tenant_a", "  tenant: tenant_b", "fixture.order", "  order: order_17", "tenant_a"),
    (
        "  order: order_17\n",
        "  order: order_999\n",
        "fixture.order",
        "  order: order_999",
        "no order",
    ),
    (
        "  tenant: tenant_a",
        "  tenant: tenant_c",
        "fixture.tenant",
        "  tenant: tenant_c",
        "tenant_c",
    ),
    (
        "  policy_version: refund_v3",
        "  policy_version: refund_v9",
        "fixture.policy_version",
        "  policy_version: refund_v9",
        "refund_v9",
    ),
    (
        "  refund_total_minor_units: 4200",
        "  refund_total_minor_units: 5000",
        "expected.refund_total_minor_units",
        "  refund_total_minor_units: 5000",
        "4200",
    ),
    (
        "    - {order: order_17, amount_minor_units: 4200}",
        "    - {order: order_17, amount_minor_units: 4201}",
        "expected.refunds.0.amount_minor_units",
        "amount_minor_units: 4201",
        "4200",
    ),
    (
        "  prior_refunds: []",
        "  prior_refunds: [{operation_id: op-old, amount_minor_units: 5000}]",
        "fixture.prior_refunds",
        "  prior_refunds:",
        "4200",
    ),
]


@pytest.mark.parametrize(("old", "new", "field", "needle", "word"), INCONSISTENT)
def test_case_inconsistent_with_the_dataset_is_refused_before_any_trial(
    tmp_path: Path,
    cli: Callable[..., Result],
    old: str,
    new: str,
    field: str,
    needle: str,
    word: str,
) -> None:
    text = CASE.read_text()
    assert old in text
    bad = tmp_path / "cases" / "bad.yaml"
    bad.parent.mkdir()
    bad.write_text(text.replace(old, new))
    out = tmp_path / "out"
    # a good case first: nothing may run or be written before the bad one is found
    good = tmp_path / "cases" / "a_good.yaml"
    good.write_text(text)
    line = _one_line(_trials(cli, bad.parent, out))
    assert f"{bad}:{_line_of(bad.read_text(), needle)}:" in line, line
    assert f"'{field}'" in line and word in line, line
    assert not out.exists()


def test_fault_on_an_unknown_tool_is_refused(tmp_path: Path, cli: Callable[..., Result]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        (CASES / "timeout_after_payment_commit.yaml")
        .read_text()
        .replace("on_tool: create_refund", "on_tool: create_refunds")
    )
    line = _one_line(_trials(cli, bad, tmp_path / "out"))
    assert f"{bad}:" in line and "'faults.0.on_tool'" in line and "create_refunds" in line
    assert not (tmp_path / "out").exists()


def test_two_files_with_one_case_id_are_refused(tmp_path: Path, cli: Callable[..., Result]) -> None:
    # both would write the same transcript files: the second would silently replace the first
    folder = tmp_path / "cases"
    folder.mkdir()
    (folder / "a.yaml").write_text(CASE.read_text())
    (folder / "b.yaml").write_text(CASE.read_text().replace("title: Eligible", "title: Copy"))
    line = _one_line(_trials(cli, folder, tmp_path / "out"))
    assert f"{folder / 'b.yaml'}:" in line and "'case'" in line and str(folder / "a.yaml") in line
    assert not (tmp_path / "out").exists()
