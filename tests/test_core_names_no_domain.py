"""The core names no domain (issue 32): the refund shop is a pack (domains/refunds), and the
words "refund" and "ledger" belong to it. No module of src/calibrant names them: new code that
needs them belongs in the pack, or reads the pack's roles and declarations.

How the last ones left: the users' file formats are the pack's file form
(`calibrant_refunds.form`: `ledger_before`, `order_id`, its Fixture and outcomes, and the name
its files give the case setting `policy_read_before_effect`); the invariants' published names
are the pack's `PUBLISHED`; the words never taken as a person's name in redaction are its
`not_names`."""

from __future__ import annotations

import re
from pathlib import Path

CORE = Path(__file__).resolve().parents[1] / "src" / "calibrant"
NOUNS = re.compile(r"refund|ledger", re.IGNORECASE)
SUFFIXES = (".py", ".html", ".css", ".js")


def _counts() -> dict[str, int]:
    out: dict[str, int] = {}
    for path in sorted(CORE.rglob("*")):
        if path.suffix not in SUFFIXES or "__pycache__" in path.parts:
            continue
        n = len(NOUNS.findall(path.read_text(encoding="utf-8")))
        if n:
            out[path.relative_to(CORE).as_posix()] = n
    return out


def test_the_scan_reads_the_core() -> None:
    scanned = [p for p in CORE.rglob("*.py") if "__pycache__" not in p.parts]
    assert len(scanned) > 100 and (CORE / "contracts" / "case.py") in scanned


def test_no_core_module_names_the_refund_shop() -> None:
    assert _counts() == {}, (
        "these core modules name the refund shop (refund/ledger), how many times: put the "
        "domain's words in its pack, or read the pack's roles"
    )
