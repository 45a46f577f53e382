"""A pack's file form: one generic shape in memory, the pack's own spelling on disk.

A refunds transcript holds its snapshots as records by kind and its writes' targets in
`target_id`/`version_*` once read; dumped, it is spelled as refunds files always were
(`ledger_before`, `order_id`, no `domain`). A file of a domain with no form is in the generic
spelling; the empty refund-shop fields older calibrant wrote into it are dropped, a filled one
is refused naming the generic field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import calibrant.contracts as contracts
from calibrant.contracts import DomainSnapshot, Transcript
from calibrant.contracts.forms import form_of, unnamed_form
from calibrant.errors import InputError
from calibrant.files import load_case, load_transcript
from calibrant_refunds import records
from calibrant_refunds.case_models import Fixture, refunds_fixture
from calibrant_refunds.form import edited, ledger
from tests.conftest import ROOT

GOOD = ROOT / "examples" / "transcripts" / "good-eligible.json"


def test_a_refunds_transcript_is_generic_in_memory_and_spelled_as_before_on_disk() -> None:
    t = load_transcript(GOOD)
    assert t.domain == "refunds"
    assert isinstance(t.snapshot_after, DomainSnapshot)
    tenant = t.snapshot_after.tenant(t.acting_tenant)
    assert tenant is not None and [o["order_id"] for o in tenant.records["order"]][:1]
    writes = [w for c in t.tool_calls for w in c.writes if w.kind == "refund"]
    assert writes and writes[0].target_id == "order_17"
    dumped = json.loads(t.model_dump_json())
    assert "ledger_after" in dumped and "snapshot_after" not in dumped and "domain" not in dumped
    refund_write = next(
        w for c in dumped["tool_calls"] for w in c["writes"] if w["kind"] == "refund"
    )
    assert refund_write["order_id"] == "order_17" and "target_id" not in refund_write
    assert list(refund_write)[:7] == [
        "tenant_id",
        "kind",
        "record_id",
        "action",
        "operation_id",
        "order_id",
        "expected_version",
    ]


def test_the_typed_view_is_a_copy_and_edited_writes_back() -> None:
    t = load_transcript(GOOD)
    view = t.ledger_after  # the pack's spelling still reads
    assert isinstance(view, records.LedgerSnapshot) and view == ledger(t.snapshot_after)
    view.taken_by = "evaluator:someone-else"
    assert t.snapshot_after is not None and t.snapshot_after.taken_by == "evaluator:independent"
    with edited(t, "after") as after:
        after.taken_by = "evaluator:someone-else"
    assert t.snapshot_after.taken_by == "evaluator:someone-else"
    assert json.loads(t.model_dump_json())["ledger_after"]["taken_by"] == "evaluator:someone-else"


def test_the_names_that_moved_to_the_pack_still_import_from_the_contracts() -> None:
    assert contracts.LedgerSnapshot is records.LedgerSnapshot
    assert contracts.Fixture is Fixture
    with pytest.raises(AttributeError, match="no attribute 'NoSuchRecord'"):
        _ = contracts.NoSuchRecord


def test_the_refund_shop_claims_files_that_name_no_domain() -> None:
    form = unnamed_form()
    assert form is not None and form.domain == "refunds" and form is form_of("refunds")
    assert form_of("tours") is None  # no pack: the generic spelling


def test_a_refunds_case_holds_the_packs_models() -> None:
    case = load_case(ROOT / "cases" / "eligible_damaged_order.yaml")
    assert isinstance(case.fixture, Fixture)
    assert refunds_fixture(case).order == "order_17"
    assert case.domain_outcomes() == [] and case.acceptable_outcomes()


def _tours(write: dict[str, Any]) -> dict[str, Any]:
    doc = json.loads(GOOD.read_text(encoding="utf-8"))
    doc.pop("case", None)
    doc["domain"] = "tours"
    for which in ("before", "after"):
        doc[f"snapshot_{which}"] = None
        doc.pop(f"ledger_{which}")
    doc["tool_calls"] = [doc["tool_calls"][0] | {"writes": [write]}]
    return doc


WRITE = {"tenant_id": "tenant_a", "kind": "booking", "record_id": "b1", "action": "create"}


def test_a_generic_file_written_with_the_refund_shops_empty_fields_still_loads(
    tmp_path: Path,
) -> None:
    old = WRITE | {"order_id": None, "order_version_before": None, "order_version_after": None}
    path = tmp_path / "old.json"
    path.write_text(json.dumps(_tours(old)), encoding="utf-8")
    t = load_transcript(path)
    assert t.domain == "tours" and t.ledger_after is None
    dumped = json.loads(t.model_dump_json())
    assert "order_id" not in dumped["tool_calls"][0]["writes"][0]
    assert Transcript.model_validate_json(t.model_dump_json()) == t


def test_a_generic_file_naming_a_refund_shop_field_is_refused_naming_the_generic_one(
    tmp_path: Path,
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_tours(WRITE | {"order_id": "b1"})), encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_transcript(path)
    says = str(err.value)
    assert "field 'tool_calls.0.writes.0.order_id'" in says
    assert "names the record a write was applied over in target_id" in says
