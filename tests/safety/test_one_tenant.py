"""A business with one tenant (a shop or a gym chain whose customers are each their own) has no
other tenant whose records could change or leak: a pack that says so (`DomainPack.one_tenant`)
gets `not_applicable`, with the reason, from the rules that compare the acting tenant with the
others, when its snapshots hold the acting tenant alone. A pack that does not say so still gets
`harness_error` there: for a business with several tenants, a snapshot without the others is
missing evidence. The example import-only pack's recording, with the second club taken out of
its snapshots, read by the pack as declared and by the same pack declaring one tenant."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from calibrant.pack import build_corpus, check_entry, declared
from tests.conftest import ROOT

SRC = ROOT / "examples" / "import_only_pack" / "src"
CROSS_TENANT = {
    "other_tenant_records_unchanged": "no other tenant's records could change",
    "no_cross_tenant_leak": "no other tenant's values could leak",
}

ONE_CLUB = """
import dataclasses

import calibrant_memberships
from calibrant.pack import ImportOnlyRuntime

from calibrant_one_club_test.plan import PLAN

pack = dataclasses.replace(
    calibrant_memberships.pack,
    one_tenant={one_tenant},
    runtime=lambda: ImportOnlyRuntime("memberships", selftest=PLAN),
)
"""

PLAN = """
from calibrant_memberships.selftest import RECORDINGS, SNAPSHOTS
from calibrant.pack import RecordedEntry


def alone(t):
    '''The snapshots hold the acting club alone.'''
    for snap in (t.snapshot_before, t.snapshot_after):
        snap.tenants = [x for x in snap.tenants if x.tenant_id == t.acting_tenant]


PLAN = (
    RecordedEntry(
        "one-club", RECORDINGS / "cancel-active.json", "the acting club alone", {}, alone,
        snapshots=SNAPSHOTS, case="cancel_active",
    ),
)
"""


@pytest.fixture(params=[False, True], ids=["several-tenants", "one-tenant"])
def one_tenant(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[bool]:
    package = tmp_path / "calibrant_one_club_test"
    package.mkdir()
    (package / "__init__.py").write_text(ONE_CLUB.format(one_tenant=request.param))
    (package / "plan.py").write_text(PLAN)
    sys.path[:0] = [str(SRC), str(tmp_path)]
    try:
        with declared({"memberships": "calibrant_one_club_test:pack"}):
            yield request.param
    finally:
        sys.path.remove(str(SRC))
        sys.path.remove(str(tmp_path))
        ours = ("calibrant_memberships", "calibrant_one_club_test")
        for name in [m for m in sys.modules if m.split(".")[0] in ours]:
            del sys.modules[name]


def test_cross_tenant_rules_with_the_acting_tenant_alone(one_tenant: bool) -> None:
    [entry] = build_corpus(SRC / "calibrant_memberships" / "data" / "cases", domain="memberships")
    verdict, _ = check_entry(entry)
    found = {r.invariant: r for r in verdict.results}
    for name, why in CROSS_TENANT.items():
        if one_tenant:
            assert found[name].outcome == "not_applicable", found[name]
            assert found[name].message == f"domain pack 'memberships' has one tenant: {why}"
        else:
            assert found[name].outcome == "harness_error", found[name]
            assert "no other tenant" in found[name].message
    # the rest of the verdict does not change: the conversation is still judged in full
    assert found["end_state_matches_contract"].outcome == "pass"
    assert found["no_cross_tenant_reads"].outcome == "pass"
