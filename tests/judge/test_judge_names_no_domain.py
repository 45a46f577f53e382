"""The judge is written once for every domain: no module of calibrant.judge names the refund
shop's records or compares a file's domain with the refund shop's; the words come from the
pack (`calibrant.domains.JudgePhrasing`, tests/judge/test_pack_phrasing.py)."""

from __future__ import annotations

import re
from pathlib import Path

JUDGE = Path(__file__).resolve().parents[2] / "src" / "calibrant" / "judge"
NOUNS = re.compile(r"refund|ledger", re.IGNORECASE)


def test_no_judge_module_names_the_refund_shop() -> None:
    found = [
        f"{p.name}:{n}: {line.strip()}"
        for p in sorted(JUDGE.rglob("*.py"))
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if NOUNS.search(line)
    ]
    assert found == []


def test_no_judge_module_branches_on_the_refund_shops_domain() -> None:
    branches = [
        p.name
        for p in sorted(JUDGE.rglob("*.py"))
        if re.search(r"[!=]=\s*LEGACY_DOMAIN|LEGACY_DOMAIN\s*[!=]=", p.read_text("utf-8"))
    ]
    assert branches == []
