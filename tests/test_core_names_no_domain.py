"""The core names no domain (issue 32): the refund shop is a pack (domains/refunds), and the
words "refund" and "ledger" belong to it. The cut is not finished: the table below is every
module of src/calibrant that still names them, with how many times. It only shrinks: a module
not in it, or naming them more often, fails (the new code belongs in the pack, or reads roles);
a module naming them less often fails too, until its count here is lowered, so the table stays
the true size of what is left (its sum is the number the closing note reports).

The users' file formats have left: a refunds file's own spelling (`ledger_before`, `order_id`,
its Fixture and outcomes) is the pack's file form (`calibrant_refunds.form`). What is left is
mostly the invariants' published names (`refund_within_paid_amount`), the case drafter's
refund branch, and the CLI's words (the importer reads every pack through its roles and import
rules since issue 32's importer cut)."""

from __future__ import annotations

import re
from pathlib import Path

CORE = Path(__file__).resolve().parents[1] / "src" / "calibrant"
NOUNS = re.compile(r"refund|ledger", re.IGNORECASE)
SUFFIXES = (".py", ".html", ".css", ".js")

STILL_NAMING = {
    "regression/recognizers.py": 1,
}


def _counts() -> dict[str, int]:
    out: dict[str, int] = {}
    for path in sorted(CORE.rglob("*")):
        if path.suffix not in SUFFIXES or "__pycache__" in path.parts:
            continue
        n = len(NOUNS.findall(path.read_text(encoding="utf-8")))
        if n:
            out[path.relative_to(CORE).as_posix()] = n
    return out


def test_no_new_core_module_names_the_refund_shop() -> None:
    grown = {
        name: (STILL_NAMING.get(name, 0), n)
        for name, n in _counts().items()
        if n > STILL_NAMING.get(name, 0)
    }
    assert grown == {}, (
        "these core modules name the refund shop (refund/ledger) more than before "
        "(was, now): put the domain's words in its pack, or read the pack's roles"
    )


def test_the_table_of_what_is_left_is_true() -> None:
    now = _counts()
    shrunk = {
        name: (was, now.get(name, 0))
        for name, was in STILL_NAMING.items()
        if now.get(name, 0) < was
    }
    assert shrunk == {}, "fewer refund words than the table says (was, now): lower the table"
