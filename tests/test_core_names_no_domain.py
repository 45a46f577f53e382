"""The core names no domain (issue 32): the refund shop is a pack (domains/refunds), and the
words "refund" and "ledger" belong to it. The cut is not finished: the table below is every
module of src/calibrant that still names them, with how many times. It only shrinks: a module
not in it, or naming them more often, fails (the new code belongs in the pack, or reads roles);
a module naming them less often fails too, until its count here is lowered, so the table stays
the true size of what is left (its sum is the number the closing note reports).

What is left is mostly the users' file formats (a refunds transcript's `ledger_before`, a
case's `refunds_fixture`, the invariants' published names such as `refund_within_paid_amount`),
which move only with `schema_version` upgrades that keep old files loading and hashing."""

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
    "cli/verdicts_options.py": 1,
    "contracts/__init__.py": 8,
    "contracts/case.py": 45,
    "contracts/domain.py": 10,
    "contracts/records.py": 37,
    "contracts/rubric.py": 1,
    "contracts/transcript.py": 46,
    "contracts/verdict.py": 1,
    "domains/conform.py": 3,
    "domains/defaults.py": 5,
    "domains/pack.py": 10,
    "domains/phrasing.py": 4,
    "domains/registry.py": 3,
    "engine/tables.py": 1,
    "files.py": 2,
    "gold.py": 1,
    "harness/runfolder.py": 1,
    "importers/builder.py": 59,
    "importers/model.py": 1,
    "importers/records.py": 2,
    "importers/run.py": 8,
    "importers/snapshots.py": 10,
    "probes/attacks.py": 8,
    "probes/variants.py": 4,
    "regression/draft.py": 23,
    "regression/recognizers.py": 3,
    "reports/fit.py": 1,
    "safety/evidence.py": 18,
    "safety/invariants/outcome.py": 9,
    "sandbox/protocol.py": 1,
    "sandbox/server.py": 1,
    "selftest.py": 1,
    "ops/job_inputs.py": 1,
    "ops/jobs.py": 2,
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
