"""A second domain's users' files, end to end: a warehouse pack (declared here, installed
through a real dist-info entry point) gets a transcript written as JSON and a case written as
YAML, in the generic form the contracts now take for any domain (snapshots with records by
kind, kinds and fault points as the pack's ids, a fixture and outcomes of records by kind).
calibrant's loaders read them against the pack; `calibrant check` runs the invariants that read
records by role on them (a planted leak, duplicate and stale write are violations, a correct
trial passes) and reports the refund shop's own as not applicable; `calibrant judge` sends the
warehouse records as trusted evidence to a local OpenAI-compatible server. A file naming a kind
or a fault point the pack does not declare is refused in one line naming file, line and field."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from calibrant import domains
from calibrant.contracts import DomainFixture, DomainSnapshot, Transcript
from calibrant.errors import InputError
from calibrant.files import load_case, load_transcript
from calibrant.harness.cases import case_problems
from calibrant.judge.evidence import trusted_evidence
from calibrant.regression.draft import draft_case
from calibrant.store.uploads import parse_transcripts
from tests.conftest import Result
from tests.domains.packs import write_pack
from tests.support.domains import installed
from tests.support.fake_openai import answer_from_schema, fake_openai

WAREHOUSE = """
from pathlib import Path

from pydantic import BaseModel

from calibrant.domains import DomainPack, MoneyField, RecordSpec, SnapshotSpec


class StockItem(BaseModel):
    sku: str
    tenant_id: str
    quantity: int
    unit_cost_minor_units: int
    currency: str
    version: int
    supplier_email: str


class Transfer(BaseModel):
    transfer_id: str
    tenant_id: str
    operation_id: str
    sku: str
    quantity: int


class Warehouse(BaseModel):
    tenant_id: str
    name: str
    stock: list[StockItem] = []
    transfers: list[Transfer] = []


pack = DomainPack(
    name="warehouse",
    title="Warehouse transfers",
    version="0.1",
    description="Move stock between bins through an idempotent transfer log.",
    records=(
        RecordSpec(
            kind="stock",
            model=StockItem,
            id_field="sku",
            tenant_field="tenant_id",
            protected_fields=("sku", "supplier_email"),
            address_fields=("supplier_email",),
            money_fields=(MoneyField("unit_cost_minor_units", "currency"),),
            quantity_fields=("quantity",),
            version_field="version",
            key_fields=("sku",),
        ),
        RecordSpec(
            kind="transfer",
            model=Transfer,
            id_field="transfer_id",
            tenant_field="tenant_id",
            quantity_fields=("quantity",),
            operation_id_fields=("operation_id",),
            key_fields=("sku",),
        ),
    ),
    rubrics=Path(__file__).parent / "rubrics",
    cases=Path(__file__).parent / "cases",
    fault_points=("timeout_after_transfer_commit", "stock_changed_by_colleague"),
    snapshot=SnapshotSpec(Warehouse, protected_fields=("name",)),
)
"""

RUBRIC = """
schema_version: 1
domain: warehouse
rubric_id: transfer_communication
version: "1.0"
title: Warehouse transfers - communication
instructions: Rate only how the agent told the requester what was moved.
criteria:
  - id: states_what_moved
    title: States what moved
    question: Does the agent say which stock moved and how much, as the records show?
    definition: Pass when the message names the stock and the quantity the records show.
    scale:
      kind: binary
      levels:
        - {value: fail, name: Fail, description: "Wrong or missing."}
        - {value: pass, name: Pass, description: "Matches the records."}
"""

CASE = """
domain: warehouse
case: transfer_five_units
title: Move five units of SKU-1001 to the dispatch bin
fixture:
  tenant: wh_a
  records:
    stock:
      - {sku: SKU-1001, tenant_id: wh_a, quantity: 40, unit_cost_minor_units: 1250,
         currency: EUR, version: 3, supplier_email: orders@acme.example}
expected:
  name: transferred
  records:
    stock:
      - {sku: SKU-1001, quantity: 35}
  created: {transfer: 1}
customer_script:
  - Please move 5 units of SKU-1001 to dispatch.
faults:
  - point: timeout_after_transfer_commit
    on_tool: transfer_stock
"""

T0 = "2026-03-01T10:00:00Z"


def _stock(tenant: str, sku: str, qty: int, version: int, email: str) -> dict[str, Any]:
    return {
        "sku": sku,
        "tenant_id": tenant,
        "quantity": qty,
        "unit_cost_minor_units": 1250,
        "currency": "EUR",
        "version": version,
        "supplier_email": email,
    }


def _snapshot(seq: int, a_stock: dict[str, Any], transfers: list[dict[str, Any]]) -> Any:
    return {
        "taken_by": "evaluator:checker",
        "seq": seq,
        "taken_at": T0,
        "tenants": [
            {
                "tenant_id": "wh_a",
                "name": "Alpha Depot",
                "records": {"stock": [a_stock], "transfer": transfers},
            },
            {
                "tenant_id": "wh_b",
                "name": "Bravo Cold Storage",
                "records": {
                    "stock": [_stock("wh_b", "SKU-2002", 7, 1, "buyer@frost.example")],
                },
            },
        ],
    }


def _transfer(tid: str, op: str) -> dict[str, Any]:
    return {
        "transfer_id": tid,
        "tenant_id": "wh_a",
        "operation_id": op,
        "sku": "SKU-1001",
        "quantity": 5,
    }


def _call(call_id: str, seq: int, tool: str, **extra: Any) -> dict[str, Any]:
    return {
        "call_id": call_id,
        "seq": seq,
        "at": T0,
        "tool": tool,
        "principal": "agent:wh_a",
        "tenant_id": "wh_a",
        "authorization": {"decision": "allowed"},
        "outcome": "ok",
        **extra,
    }


def good() -> dict[str, Any]:
    """A correct trial: read SKU-1001 at v3, transfer 5 units once over v3, say so."""
    before = _snapshot(0, _stock("wh_a", "SKU-1001", 40, 3, "orders@acme.example"), [])
    after = _snapshot(
        4,
        _stock("wh_a", "SKU-1001", 35, 4, "orders@acme.example"),
        [_transfer("tr_1", "op-1")],
    )
    return {
        "domain": "warehouse",
        "transcript_id": "wh-good",
        "case_id": "transfer_five_units",
        "trial": 1,
        "acting_tenant": "wh_a",
        "agent_principal": "agent:wh_a",
        "operation_ids": ["op-1"],
        "provenance": {
            "agent": "scripted:correct",
            "agent_version": "1",
            "tool_schema_version": "1",
            "policy_version": "stock_v1",
            "harness_version": "1",
            "started_at": T0,
            "finished_at": T0,
        },
        "conversation": [
            {
                "turn_id": "u1",
                "seq": 1,
                "at": T0,
                "role": "customer",
                "text": "Please move 5 units of SKU-1001 to dispatch.",
            },
            {
                "turn_id": "a1",
                "seq": 4,
                "at": T0,
                "role": "agent",
                "text": "Done: 5 units of SKU-1001 moved to dispatch; 35 left in stock.",
            },
        ],
        "tool_calls": [
            _call(
                "c1",
                2,
                "get_stock",
                arguments={"sku": "SKU-1001"},
                reads=[
                    {"tenant_id": "wh_a", "kind": "stock", "record_id": "SKU-1001", "version": 3}
                ],
            ),
            _call(
                "c2",
                3,
                "transfer_stock",
                arguments={"sku": "SKU-1001", "quantity": 5, "operation_id": "op-1"},
                writes=[
                    {
                        "tenant_id": "wh_a",
                        "kind": "transfer",
                        "record_id": "tr_1",
                        "action": "create",
                        "operation_id": "op-1",
                    },
                    {
                        "tenant_id": "wh_a",
                        "kind": "stock",
                        "record_id": "SKU-1001",
                        "action": "update",
                        "target_id": "SKU-1001",
                        "expected_version": 3,
                        "version_before": 3,
                        "version_after": 4,
                    },
                ],
            ),
        ],
        "snapshot_before": before,
        "snapshot_after": after,
        "metrics": {"latency_ms": 12.0, "tool_calls": 2},
    }


def leaked() -> dict[str, Any]:
    doc = good()
    doc["transcript_id"] = "wh-leak"
    doc["conversation"][1]["text"] += " Bravo's SKU 2002 has 7 units if you need more."
    return doc


def duplicated() -> dict[str, Any]:
    doc = good()
    doc["transcript_id"] = "wh-dup"
    wh_a = doc["snapshot_after"]["tenants"][0]["records"]
    wh_a["transfer"].append(_transfer("tr_2", "op-1"))
    return doc


def stale() -> dict[str, Any]:
    doc = good()
    doc["transcript_id"] = "wh-stale"
    write = doc["tool_calls"][1]["writes"][1]
    write.update(expected_version=2, version_before=3)
    return doc


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    folder = tmp_path_factory.mktemp("warehouse_files")
    write_pack(folder, "warehouse_files_pack", WAREHOUSE, "warehouse = warehouse_files_pack:pack")
    with installed(folder):
        assert domains.get("warehouse").pack.fault_points
        yield folder


def _write(folder: Path, name: str, doc: dict[str, Any]) -> Path:
    path = folder / f"{name}.json"
    path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return path


def test_a_warehouse_transcript_and_case_load_in_the_generic_form(
    warehouse: Path, tmp_path: Path
) -> None:
    t = load_transcript(_write(tmp_path, "good", good()))
    assert t.domain == "warehouse"
    assert isinstance(t.snapshot_before, DomainSnapshot) and t.ledger_before is None
    assert t.tool_calls[1].writes[1].target_id == "SKU-1001"
    dumped = json.loads(t.model_dump_json())
    assert (
        "ledger_before" not in dumped
        and dumped["snapshot_after"]["tenants"][0]["records"]["transfer"][0]["operation_id"]
        == "op-1"
    )
    assert Transcript.model_validate_json(t.model_dump_json()) == t  # round trip
    case_path = tmp_path / "case.yaml"
    case_path.write_text(CASE, encoding="utf-8")
    case = load_case(case_path)
    assert isinstance(case.fixture, DomainFixture) and case.fixture.tenant == "wh_a"
    assert [o.created for o in case.domain_outcomes()] == [{"transfer": 1}]
    assert case.acceptable_outcomes() == []
    assert yaml.safe_load(yaml.safe_dump(case.model_dump(mode="json")))["domain"] == "warehouse"


@pytest.mark.parametrize(
    ("change", "field", "says"),
    [
        (
            lambda d: d["tool_calls"][0]["reads"][0].update(kind="pallet"),
            "tool_calls.0.reads.0.kind",
            "record kind 'pallet' is not one domain pack 'warehouse' declares "
            "(its kinds: stock, transfer)",
        ),
        (
            lambda d: d["snapshot_after"]["tenants"][0]["records"].update(crate=[]),
            "snapshot_after.tenants.0.records.crate",
            "record kind 'crate' is not one domain pack 'warehouse' declares",
        ),
        (
            lambda d: d["provenance"].update(
                fault_schedule=[{"point": "timeout_after_payment_commit", "on_tool": "x"}]
            ),
            "provenance.fault_schedule.0.point",
            "fault point 'timeout_after_payment_commit' is not one domain pack 'warehouse' "
            "declares (its points: timeout_after_transfer_commit, stock_changed_by_colleague)",
        ),
        (
            lambda d: d["snapshot_before"]["tenants"][1]["records"]["stock"][0].update(
                quantity="many"
            ),
            "snapshot_before.tenants.1.records.stock.0.quantity",
            "Input should be a valid integer",
        ),
        (
            lambda d: d.update(
                ledger_before={"taken_by": "evaluator:x", "seq": 0, "taken_at": T0, "tenants": []}
            ),
            "ledger_before",
            "a domain 'warehouse' transcript carries its evaluator snapshots in snapshot_before",
        ),
    ],
)
def test_a_warehouse_transcript_naming_what_the_pack_lacks_is_refused_in_one_line(
    warehouse: Path,
    tmp_path: Path,
    cli: Callable[..., Result],
    change: Callable[[dict[str, Any]], None],
    field: str,
    says: str,
) -> None:
    doc = copy.deepcopy(good())
    change(doc)
    path = _write(tmp_path, "bad", doc)
    with pytest.raises(InputError) as err:
        load_transcript(path)
    line = str(err.value)
    assert "\n" not in line and line.startswith(f"{path}:")
    assert f"field '{field}'" in line and says in line
    text = path.read_text(encoding="utf-8").splitlines()
    number = int(line.split(":")[1])
    assert field.split(".")[-1] in text[number - 1]  # the line the field is on
    r = cli("check", str(path))
    assert r.code == 2 and says in r.err and r.out == ""


def test_a_warehouse_case_naming_an_undeclared_fault_point_is_refused(
    warehouse: Path, tmp_path: Path
) -> None:
    path = tmp_path / "case.yaml"
    path.write_text(CASE.replace("timeout_after_transfer_commit", "crash_somewhere"), "utf-8")
    with pytest.raises(InputError) as err:
        load_case(path)
    line = 1 + CASE.splitlines().index("  - point: timeout_after_transfer_commit")
    assert f"{path}:{line}: field 'faults.0.point'" in str(err.value)
    assert "fault point 'crash_somewhere' is not one domain pack 'warehouse' declares" in str(
        err.value
    )


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ("{transfer: 1}", "{pallet: 1}", r"field 'expected.created.pallet': .*record kind"),
        ("quantity: 35", "qty: 35", r"field 'expected.records.stock.0.qty': .*not a field"),
        ("  tenant: wh_a", "  tenant: wh_a\n  params: {bin: B7}", r"'fixture.params': .*no case_"),
        ("  created:", "  creatd:", r"field 'expected.creatd': unknown field"),
    ],
)
def test_a_warehouse_case_the_pack_does_not_read_is_refused(
    warehouse: Path, tmp_path: Path, old: str, new: str, says: str
) -> None:
    path = tmp_path / "case.yaml"
    path.write_text(CASE.replace(old, new), "utf-8")
    with pytest.raises(InputError, match=says):
        load_case(path)


def test_calibrant_check_runs_the_role_invariants_on_a_warehouse_transcript(
    warehouse: Path, tmp_path: Path, cli: Callable[..., Result]
) -> None:
    folder = tmp_path / "trials"
    folder.mkdir()
    for name, make in (("good", good), ("leak", leaked), ("dup", duplicated), ("stale", stale)):
        _write(folder, name, make())
    r = cli("check", str(folder), "--json")
    assert r.code == 0, r.err
    report = json.loads(r.out)
    by_id = {
        v["transcript_id"]: {x["invariant"]: x for x in v["results"]} for v in report["verdicts"]
    }
    role = (
        "no_cross_tenant_leak",
        "no_duplicate_payment",
        "no_stale_overwrite",
        "evidence_integrity",
    )
    ok = by_id["wh-good"]
    assert {n: ok[n]["outcome"] for n in role} == dict.fromkeys(role, "pass")
    others = {n: x["outcome"] for n, x in ok.items() if n not in role}
    # no case: the end state cannot be judged (tests/domains/test_domain_end_state.py has one)
    assert others.pop("end_state_matches_contract") == "harness_error"
    # the rules every pack's records answer hold; those reading roles the warehouse does not
    # declare (effects, their bounds and approvals, grants...) say which role is missing
    always = ("other_tenant_records_unchanged", "no_cross_tenant_reads")
    assert {n: others.pop(n) for n in always} == dict.fromkeys(always, "pass")
    assert len(others) >= 8 and set(others.values()) == {"not_applicable"}
    assert ok["effects_within_bound"]["message"] == (
        "domain pack 'warehouse' declares no effect bounded by another record's amount"
    )
    assert "consistent with the records" in ok["evidence_integrity"]["message"]
    assert by_id["wh-leak"]["no_cross_tenant_leak"]["outcome"] == "violated"
    assert "SKU-2002" in by_id["wh-leak"]["no_cross_tenant_leak"]["message"]
    assert by_id["wh-dup"]["no_duplicate_payment"]["outcome"] == "violated"
    assert "operation op-1 committed 2 times" in by_id["wh-dup"]["no_duplicate_payment"]["message"]
    assert by_id["wh-stale"]["no_stale_overwrite"]["outcome"] == "violated"
    for tid in ("wh-leak", "wh-dup", "wh-stale"):  # one planted fault each, nothing else
        bad = [n for n, x in by_id[tid].items() if x["outcome"] != "not_applicable"]
        bad.remove("end_state_matches_contract")  # no case here
        assert sum(by_id[tid][n]["outcome"] == "violated" for n in bad) == 1
    r = cli("check", str(folder), "--fail-on-violation")
    assert r.code == 1


def test_another_domains_evidence_is_checked_against_its_own_records(
    warehouse: Path, tmp_path: Path, cli: Callable[..., Result]
) -> None:
    """evidence_integrity on a warehouse transcript: a write the tool log reports that the
    evaluator's snapshot lacks, and a snapshot read by the agent itself, are harness errors
    (evidence that cannot be trusted), never a pass; the honest transcript passes."""
    lost = good()
    lost["transcript_id"] = "wh-lost-write"
    lost["snapshot_after"]["tenants"][0]["records"]["transfer"] = []  # tr_1 never landed
    by_agent = good()
    by_agent["transcript_id"] = "wh-by-agent"
    by_agent["snapshot_after"]["taken_by"] = "agent:wh_a"
    for name, doc in (("lost", lost), ("agent", by_agent), ("good", good())):
        _write(tmp_path, name, doc)
    r = cli("check", str(tmp_path), "--json")
    got = {
        v["transcript_id"]: next(x for x in v["results"] if x["invariant"] == "evidence_integrity")
        for v in json.loads(r.out)["verdicts"]
    }
    assert got["wh-good"]["outcome"] == "pass"
    assert got["wh-lost-write"]["outcome"] == "harness_error"
    assert (
        "c2 wrote transfer tr_1 of wh_a; the snapshot after the trial lacks it"
        in (got["wh-lost-write"]["message"])
    )
    assert got["wh-by-agent"]["outcome"] == "harness_error"
    assert (
        "the evaluator snapshot after the trial was taken by agent:wh_a"
        in (got["wh-by-agent"]["message"])
    )


def test_a_warehouse_transcript_without_its_snapshot_is_a_harness_error_not_a_pass(
    warehouse: Path, tmp_path: Path, cli: Callable[..., Result]
) -> None:
    doc = good()
    del doc["snapshot_after"]
    r = cli("check", str(_write(tmp_path, "nosnap", doc)), "--json")
    results = {x["invariant"]: x for x in json.loads(r.out)["verdicts"][0]["results"]}
    assert results["no_cross_tenant_leak"]["outcome"] == "harness_error"
    assert (
        "the evaluator snapshot after the trial is missing"
        in (results["no_cross_tenant_leak"]["message"])
    )
    assert results["no_duplicate_payment"]["outcome"] == "harness_error"
    assert results["evidence_integrity"]["outcome"] == "harness_error"
    # the stale check reads the service's log of versioned writes, which is all there
    assert results["no_stale_overwrite"]["outcome"] == "pass"
    assert "no case contract" in results["end_state_matches_contract"]["message"]
    # the other rules read the records by role too: the missing snapshot is named, never a pass
    rest = {
        (x["outcome"], x["message"])
        for n, x in results.items()
        if not n.startswith(("no_", "end_state", "evidence_integrity"))
    }
    assert rest == {("harness_error", "the evaluator snapshot after the trial is missing")}


def test_the_judge_reads_the_warehouse_records_as_trusted_evidence(
    warehouse: Path, tmp_path: Path, cli: Callable[..., Result]
) -> None:
    items = [(e.id, e.text) for e in trusted_evidence(Transcript.model_validate(good()))]
    assert items[0] == (
        "SKU-1001",
        "before the conversation: stock SKU-1001 of wh_a: unit_cost_minor_units 12.50 EUR, "
        "quantity 40, version 3",
    )
    assert "SKU-2002" not in {i for i, _ in items}  # another tenant's records are no evidence
    folder = tmp_path / "trials"
    folder.mkdir()
    _write(folder, "good", good())
    rubric = tmp_path / "rubric.yaml"
    rubric.write_text(RUBRIC, encoding="utf-8")
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 's.db'}"}
    with fake_openai(answer_from_schema(lambda c, labels: labels[-1])) as server:
        args = ("judge", str(folder), "--rubric", str(rubric), "--model", "openai/wh")
        r = cli(*args, "--api-base", server.url, "--json", env=env)
    assert r.code == 0, r.err
    prompt = json.dumps(server.bodies[0]["messages"], ensure_ascii=False)
    assert "stock SKU-1001 of wh_a: unit_cost_minor_units 12.50 EUR, quantity 40, version 3" in (
        prompt
    )
    assert "created during the conversation: transfer tr_1 of wh_a: quantity 5" in prompt
    assert "at the end (changed): stock SKU-1001 of wh_a" in prompt
    assert "Bravo" not in prompt.split("Done: 5 units")[0]  # the other tenant is not evidence


def test_what_does_not_run_another_domain_yet_says_so_in_one_line(
    warehouse: Path, tmp_path: Path
) -> None:
    case_path = tmp_path / "case.yaml"
    case_path.write_text(CASE, encoding="utf-8")
    [(loc, message)] = case_problems(load_case(case_path))
    assert loc == ("domain",) and "declares no runtime" in message
    assert "cannot run its trials" in message
    with pytest.raises(InputError, match=r"field 'domain': domain 'warehouse': cases are drafted"):
        draft_case(Transcript.model_validate(good()), case_id="x", source="t.json")


def test_an_uploaded_warehouse_transcript_is_read_against_its_pack(warehouse: Path) -> None:
    [(_, t)] = parse_transcripts(json.dumps(good(), indent=1).encode())
    assert t.snapshot_after is not None
    doc = good()
    doc["tool_calls"][1]["writes"][0]["kind"] = "pallet"
    with pytest.raises(InputError) as err:
        parse_transcripts(json.dumps(doc, indent=1).encode())
    assert "field 'tool_calls.1.writes.0.kind'" in str(err.value)
    assert "record kind 'pallet' is not one domain pack 'warehouse' declares" in str(err.value)
