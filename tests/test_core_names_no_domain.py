"""The core names no domain (issue 32): the refund shop is a pack (domains/refunds), and the
words "refund" and "ledger" belong to it. The cut is not finished: the table below is every
module of src/calibrant that still names them, with how many times. It only shrinks: a module
not in it, or naming them more often, fails (the new code belongs in the pack, or reads roles);
a module naming them less often fails too, until its count here is lowered, so the table stays
the true size of what is left (its sum is the number the closing note reports).

The users' file formats have left: a refunds file's own spelling (`ledger_before`, `order_id`,
its Fixture and outcomes) is the pack's file form (`calibrant_refunds.form`). What is left is
mostly the invariants' published names (`refund_within_paid_amount`), the importer's and the
case drafter's refund branches, and the CLI's words."""

from __future__ import annotations

import re
from pathlib import Path

CORE = Path(__file__).resolve().parents[1] / "src" / "calibrant"
NOUNS = re.compile(r"refund|ledger", re.IGNORECASE)
SUFFIXES = (".py", ".html", ".css", ".js")

STILL_NAMING = {
    "cli/app.py": 4,
    "cli/domain_commands.py": 1,
    "cli/from_store.py": 1,
    "cli/import_commands.py": 2,
    "cli/safety_commands.py": 4,
    "contracts/case.py": 1,
    "domains/pack.py": 10,
    "domains/phrasing.py": 4,
    "domains/registry.py": 3,
    "engine/tables.py": 1,
    "files.py": 2,
    "gold.py": 1,
    "harness/runfolder.py": 1,
    "importers/builder.py": 57,
    "importers/model.py": 1,
    "importers/records.py": 2,
    "importers/run.py": 5,
    "importers/snapshots.py": 10,
    "ops/job_inputs.py": 1,
    "ops/jobs.py": 2,
    "probes/attacks.py": 3,
    "regression/draft.py": 22,
    "regression/recognizers.py": 3,
    "reports/fit.py": 1,
    "safety/invariants/outcome.py": 9,
    "sandbox/protocol.py": 1,
    "sandbox/server.py": 1,
    "selftest.py": 1,
    "service/templates/_transcript.html": 1,
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
