"""Opening the contracts to other domains changes nothing for a refunds file: every one the
repository holds (gold/, examples/, cases/, tests/data/) loads and dumps to the same bytes, with
the same content hash, as before the contracts were opened; a file that was its model's indented
dump still is, byte for byte. The baseline (tests/data/refunds_files.json) was written by the
code before the change."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from calibrant.contracts import LedgerSnapshot, content_hash
from calibrant.errors import InputError
from calibrant.files import load_case, load_transcript, read_text
from tests.conftest import ROOT

BASELINE: dict[str, dict[str, object]] = json.loads(
    (ROOT / "tests" / "data" / "refunds_files.json").read_text(encoding="utf-8")
)


def _load(path: Path) -> BaseModel:
    rel = path.relative_to(ROOT).as_posix()
    if path.suffix == ".yaml":
        return load_case(path)
    if "/snapshots/" in rel:
        return LedgerSnapshot.model_validate_json(read_text(path))
    return load_transcript(path)


OTHER_PACKS = ("examples/traces/travel/", "examples/import_only_pack/")
"""Folders of other packs' files (the travel pack's, the example memberships pack's), not the
refund shop's."""


def _after_baseline(rel: str) -> bool:
    """Gold v4's files (gold-301 on, the `*_v4?` cases): written by the opened contracts, after
    the baseline; nothing can have loaded them before."""
    name = rel.rsplit("/", 1)[-1]
    if rel.startswith("gold/transcripts/gold-"):
        return name.removesuffix(".json") > "gold-300"
    return rel.startswith("gold/cases/") and name.removesuffix(".yaml")[-4:-1] == "_v4"


def test_the_baseline_covers_every_refunds_file() -> None:
    found = {
        p.relative_to(ROOT).as_posix()
        for d in ("gold", "examples", "cases", "tests/data")
        for pattern in ("*.json", "*.yaml")
        for p in (ROOT / d).rglob(pattern)
        if not p.relative_to(ROOT).as_posix().startswith(OTHER_PACKS)
        and not _after_baseline(p.relative_to(ROOT).as_posix())
        and (
            ("/transcripts/" in p.as_posix() and p.suffix == ".json")
            or "/snapshots/" in p.as_posix()
            or p.relative_to(ROOT).as_posix().startswith(("cases/", "gold/cases/"))
        )
    }
    assert found == set(BASELINE)
    assert len(BASELINE) >= 250


@pytest.mark.parametrize("rel", sorted(BASELINE))
def test_a_refunds_file_reads_and_writes_as_before(rel: str) -> None:
    path = ROOT / rel
    model = _load(path)
    dump = model.model_dump_json()
    assert '"domain"' not in dump
    assert "snapshot_before" not in dump and "target_id" not in dump
    expected = BASELINE[rel]
    assert hashlib.sha256(dump.encode()).hexdigest() == expected["dump_sha256"]
    assert content_hash(model) == expected["content_hash"]
    if expected["file_is_dump"]:
        text = read_text(path)
        assert text.rstrip("\n") == model.model_dump_json(indent=1)


SNAPSHOT = {"taken_by": "evaluator:x", "seq": 0, "taken_at": "2026-01-01T00:00:00Z", "tenants": []}
FAULT = [{"point": "stock_changed", "on_tool": "create_refund"}]
KINDS = "'customer', 'order', 'refund', 'ticket', 'approval', 'policy', 'permission' or 'audit'"
PURPOSES = "'refund_confirmation', 'status_update', 'escalation_notice' or 'other'"
CLOSED = [
    ("tool_calls.0.reads.0.kind", "pallet", "", f'Input should be {KINDS} (got "pallet")'),
    ("notifications.attempts.0.kind", "memo", "", f'Input should be {PURPOSES} (got "memo")'),
    ("provenance.fault_schedule", FAULT, ".0.point", "Input should be 'timeout_after_payment"),
    ("snapshot_before", SNAPSHOT, "", "unknown field"),  # another domain's field
]


def _set(doc: Any, path: str, value: object) -> None:
    *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]
    for part in parents:
        doc = doc[part]
    doc[last] = value


@pytest.mark.parametrize(("path", "value", "deeper", "says"), CLOSED)
def test_a_refunds_transcript_is_still_closed_on_the_refund_shop(
    tmp_path: Path, path: str, value: object, deeper: str, says: str
) -> None:
    doc = json.loads((ROOT / "examples" / "transcripts" / "good-eligible.json").read_text())
    _set(doc, path, value)
    file = tmp_path / "t.json"
    file.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_transcript(file)
    assert f"field '{path}{deeper}': {says}" in str(err.value)
