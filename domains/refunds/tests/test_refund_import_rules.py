"""The refund shop's import rules (`calibrant_refunds.importing`) say what its own service says:
the scope `calibrant import` looks a write tool's grant up by is the one the tool declares."""

from __future__ import annotations

from calibrant_refunds import pack
from calibrant_refunds.importing import SCOPES
from calibrant_refunds.ledger.tools import REFUND_TOOLS


def test_each_write_tool_is_imported_with_the_scope_the_service_checks() -> None:
    declared = {t.name: t.scopes for t in REFUND_TOOLS.tools if t.scopes}
    assert {tool: (scope,) for tool, scope in SCOPES.items()} == declared


def test_the_pack_declares_its_import_rules() -> None:
    rules = pack().imports
    assert rules.scopes is SCOPES and rules.writes is not None and rules.message is not None
    assert set(rules.reads) <= {r.kind for r in pack().records}
