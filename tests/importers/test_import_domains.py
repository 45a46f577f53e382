"""`calibrant import` for another domain than the refund shop: a tour operator's traces
(chat-completions and OTel GenAI spans) with snapshot files in its pack's snapshot format (the
tours pack, installed through a real dist-info entry point), and the travel pack's example in
examples/traces/travel. The transcripts carry `snapshot_before`/`snapshot_after`; `calibrant
check` and the judge's evidence read them through the pack; a tool result never becomes a
record; a missing snapshot is harness_error and EVIDENCE MISSING; a bad snapshot file, an
uninstalled domain and a case of another domain are refused in one line, nothing written."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest

from calibrant import domains
from calibrant.files import load_transcript
from calibrant.judge.evidence import trusted_evidence
from tests.conftest import ROOT
from tests.domains.packs import TOURS, TOURS_WITH_SNAPSHOT, write_pack
from tests.importers.test_import import _verdicts
from tests.support.cli import Result
from tests.support.domains import installed, write_distribution

Cli = Callable[..., Result]
T0 = "2026-06-01T08:00:00Z"
BY_ROLE = ("end_state_matches_contract", "no_duplicate_payment", "no_cross_tenant_leak")
TRAVEL = ROOT / "examples" / "traces" / "travel"

CASE = """
domain: tours
case: book_matterhorn_day
title: Two seats on the Matterhorn day tour
fixture:
  tenant: op_a
expected:
  name: booked
  records:
    booking:
      - {tourist_id: T-1, tour: matterhorn-day, seats: 2}
  created: {booking: 1}
customer_script:
  - Two seats on the Matterhorn day tour on 12 June, please.
"""


@pytest.fixture(scope="module")
def tours(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    folder = tmp_path_factory.mktemp("tours_import")
    write_pack(folder, "tours_import_pack", TOURS_WITH_SNAPSHOT, "tours = tours_import_pack:pack")
    with installed(folder):
        assert domains.get("tours").pack.snapshot is not None
        yield folder


# --- a tour operator's system of record ----------------------------------------------------------


def _booking(bid: str, tourist: str, tenant: str, tour: str, seats: int, op: str | None) -> Any:
    return {
        "booking_id": bid,
        "tenant_id": tenant,
        "tourist_id": tourist,
        "tour": tour,
        "seats": seats,
        "fare_minor_units": 15500 * seats,
        "currency": "CHF",
        "version": 1,
        "operation_id": op,
    }


def _snapshot(seq: int, new: list[dict[str, Any]]) -> dict[str, Any]:
    """Both operators: op_a (the acting one) with Ines Marti and her earlier booking, plus the
    bookings `new`; op_b with Jonas Berg and his."""
    return {
        "taken_by": "evaluator:tours-audit",
        "seq": seq,
        "taken_at": T0,
        "tenants": [
            {
                "tenant_id": "op_a",
                "name": "Alpine Tours",
                "tourists": [
                    {
                        "tourist_id": "T-1",
                        "tenant_id": "op_a",
                        "name": "Ines Marti",
                        "email": "ines.marti@alpine.example",
                    }
                ],
                "bookings": [_booking("BK-100", "T-1", "op_a", "glacier-walk", 1, "op-old"), *new],
            },
            {
                "tenant_id": "op_b",
                "name": "Baltic Trails",
                "tourists": [
                    {
                        "tourist_id": "T-9",
                        "tenant_id": "op_b",
                        "name": "Jonas Berg",
                        "email": "jonas.berg@baltic.example",
                    }
                ],
                "bookings": [_booking("BK-900", "T-9", "op_b", "matterhorn-day", 3, "op-b1")],
            },
        ],
    }


def _call(call_id: str, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    function = {"name": tool, "arguments": json.dumps(args)}
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": call_id, "type": "function", "function": function}],
    }


def _answer(call_id: str, result: Any) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": json.dumps(result)}


BOOK = {"operation_id": "op-T1-mh", "tourist_id": "T-1", "tour": "matterhorn-day", "seats": 2}
NOTICE = {
    "idempotency_key": "notice-T1-mh",
    "recipient": "ines.marti@alpine.example",
    "subject": "Your Matterhorn day tour",
    "body": "Booking BK-101: 2 seats on 12 June, 310.00 CHF.",
}


def _conversation(conv: str, book_result: Any) -> dict[str, Any]:
    return {
        "id": conv,
        "metadata": {"calibrant.agent_principal": "agent:tours-a"},
        "messages": [
            {"role": "system", "content": "You book tours for Alpine Tours."},
            {
                "role": "user",
                "content": "Hi, Ines here (ines.marti@alpine.example). Two seats "
                "on the Matterhorn day tour on 12 June, please.",
            },  # fmt: skip
            _call("call_find", "find_tourist", {"email": "ines.marti@alpine.example"}),
            _answer("call_find", HONEST_FIND),
            _call("call_book", "book_tour", BOOK),
            _answer("call_book", book_result),
            _call("call_notice", "send_notification", NOTICE),
            _answer("call_notice", {"status": "accepted"}),
            {"role": "assistant", "content": "Done: booking BK-101, 2 seats, 310.00 CHF."},
        ],
    }


HONEST_FIND = {"tourist_id": "T-1", "name": "Ines Marti"}
HONEST = {"booking_id": "BK-101", "status": "confirmed", "fare_minor_units": 31000}
LYING = {
    "booking_id": "BK-555",
    "status": "confirmed",
    "seats": 9,
    "snapshot": _snapshot(9, [_booking("BK-555", "T-1", "op_a", "matterhorn-day", 9, "x")]),
}
GOOD_AFTER = [_booking("BK-101", "T-1", "op_a", "matterhorn-day", 2, "op-T1-mh")]


def _duplicate() -> dict[str, Any]:
    """The booking's answer is lost; the agent books again under a new operation id."""
    doc = _conversation("conv-duplicate", HONEST)
    msgs = doc["messages"]
    retry = {**BOOK, "operation_id": "op-T1-mh-2"}
    msgs[5:6] = [
        _call("call_book_2", "book_tour", retry),
        _answer("call_book_2", {"booking_id": "BK-102", "status": "confirmed"}),
    ]
    return doc


def _write(folder: Path, name: str, doc: Any) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return path


@pytest.fixture
def tours_files(tours: Path, tmp_path: Path) -> Path:
    """Three conversations (chat JSONL), their snapshots, the case."""
    convs = [
        _conversation("conv-good", HONEST),
        _conversation("conv-lying", LYING),
        _duplicate(),
    ]
    lines = "\n".join(json.dumps(c) for c in convs) + "\n"
    (tmp_path / "chat.jsonl").write_text(lines, encoding="utf-8")
    snaps = tmp_path / "snapshots"
    twice = [*GOOD_AFTER, _booking("BK-102", "T-1", "op_a", "matterhorn-day", 2, "op-T1-mh-2")]
    ends = {"conv-good": GOOD_AFTER, "conv-lying": GOOD_AFTER, "conv-duplicate": twice}
    for conv, after in ends.items():
        _write(snaps / conv, "before.json", _snapshot(0, []))
        _write(snaps / conv, "after.json", _snapshot(20, after))
    (tmp_path / "case.yaml").write_text(CASE, encoding="utf-8")
    return tmp_path


def _import(
    cli: Cli, files: Path, out: Path, *extra: str, fmt: str = "chat", traces: Path | None = None
) -> Result:
    """`calibrant import` of `traces` (the three conversations) with the tours case."""
    path = traces or files / "chat.jsonl"
    case = str(files / "case.yaml")
    return cli("import", fmt, str(path), "--out", str(out), "--case", case, *extra)


@pytest.fixture
def imported(cli: Cli, tours_files: Path) -> Path:
    """The three conversations imported with their snapshots."""
    out = tours_files / "imported"
    r = _import(cli, tours_files, out, "--snapshots", str(tours_files / "snapshots"))
    assert r.code == 0, r.err
    assert r.out.strip() == f"imported 3 trace(s) (chat) from 1 file(s) into {out}"
    return out


def test_chat_traces_of_another_domain_import_with_their_snapshots(
    cli: Cli, imported: Path
) -> None:
    out = imported
    t = load_transcript(out / "book_matterhorn_day-import-conv-good.json")
    assert t.domain == "tours" and t.ledger_before is None and t.ledger_after is None
    assert t.snapshot_before is not None and t.snapshot_after is not None
    after = {t.tenant_id: t for t in t.snapshot_after.tenants}
    assert after["op_a"].name == "Alpine Tours"
    assert [b["booking_id"] for b in after["op_a"].records["booking"]] == ["BK-100", "BK-101"]
    calls = {c.call_id: c for c in t.tool_calls}
    assert [(r.kind, r.record_id) for r in calls["call_find"].reads] == [("tourist", "T-1")]
    assert [(w.kind, w.record_id, w.action) for w in calls["call_book"].writes] == [
        ("booking", "BK-101", "create")
    ]
    assert t.operation_ids == ["op-T1-mh"]
    [sent] = t.notifications.attempts
    assert sent.recipient == "ines.marti@alpine.example" and "BK-101" in sent.body
    v = _verdicts(cli, out)
    good = v["conv-good"]
    assert {good[name] for name in BY_ROLE} == {"pass"}, good
    dup = v["conv-duplicate"]
    assert dup["no_duplicate_payment"] == "violated"
    assert dup["end_state_matches_contract"] == "violated"
    t = load_transcript(out / "book_matterhorn_day-import-conv-duplicate.json")
    lost = next(c for c in t.tool_calls if c.call_id == "call_book")
    assert lost.outcome == "timeout" and [w.record_id for w in lost.writes] == ["BK-101"]
    texts = [e.text for e in trusted_evidence(t)]
    assert "book_tour: the response was lost (timeout); the service had committed or " \
        "accepted: BK-101" in texts  # fmt: skip


def test_the_records_come_from_the_snapshots_not_the_tool_results(cli: Cli, imported: Path) -> None:
    out = imported
    good = load_transcript(out / "book_matterhorn_day-import-conv-good.json")
    lying = load_transcript(out / "book_matterhorn_day-import-conv-lying.json")
    call = next(c for c in lying.tool_calls if c.call_id == "call_book")
    assert isinstance(call.response, dict) and call.response["booking_id"] == "BK-555"  # kept
    assert [w.record_id for w in call.writes] == ["BK-101"]  # what the system committed
    assert lying.snapshot_after == good.snapshot_after
    seen = [e.render() for e in trusted_evidence(lying)]
    assert seen == [e.render() for e in trusted_evidence(good)]
    assert "BK-555" not in " ".join(seen)
    v = _verdicts(cli, out)
    lying, good = dict(v["conv-lying"]), dict(v["conv-good"])
    # the lie carried op_b's tourist (its snapshot): what came back crossed the operators
    assert (lying.pop("no_cross_tenant_reads"), good.pop("no_cross_tenant_reads")) == (
        "violated",
        "pass",
    )
    assert lying == good


def _otel(trace_id: str) -> dict[str, Any]:
    """The good conversation as OTel GenAI spans (attribute form): one chat span per model
    turn, one execute_tool span per call."""

    def attr(key: str, value: Any) -> dict[str, Any]:
        return {"key": key, "value": {"stringValue": value}}

    def span(n: int, name: str, attrs: list[dict[str, Any]]) -> dict[str, Any]:
        start = 1780300800_000000000 + n * 1_000_000_000
        return {
            "traceId": trace_id, "spanId": f"{n:016x}", "name": name, "kind": 3,
            "startTimeUnixNano": str(start), "endTimeUnixNano": str(start + 500_000_000),
            "attributes": attrs, "events": [],
        }  # fmt: skip

    system = {"role": "system", "parts": [{"type": "text", "content": "You book tours."}]}
    history: list[dict[str, Any]] = [
        system,
        {"role": "user", "parts": [{"type": "text", "content": "Two seats on the Matterhorn "
                                    "day tour, please. I'm ines.marti@alpine.example"}]},
    ]  # fmt: skip
    spans = []
    steps = [
        ("call_find", "find_tourist", {"email": "ines.marti@alpine.example"}, HONEST_FIND),
        ("call_book", "book_tour", BOOK, HONEST),
        ("call_notice", "send_notification", NOTICE, {"status": "accepted"}),
    ]  # fmt: skip
    for i, (cid, tool, args, result) in enumerate(steps):
        asked = {"type": "tool_call", "id": cid, "name": tool, "arguments": args}
        out = [{"role": "assistant", "parts": [asked]}]
        spans.append(
            span(2 * i, "chat gpt-4o-mini", [
                attr("gen_ai.operation.name", "chat"),
                attr("gen_ai.request.model", "gpt-4o-mini"),
                attr("gen_ai.input.messages", json.dumps(history)),
                attr("gen_ai.output.messages", json.dumps(out)),
            ])
        )  # fmt: skip
        spans.append(
            span(2 * i + 1, f"execute_tool {tool}", [
                attr("gen_ai.operation.name", "execute_tool"),
                attr("gen_ai.tool.name", tool),
                attr("gen_ai.tool.call.id", cid),
                attr("gen_ai.tool.call.arguments", json.dumps(args)),
                attr("gen_ai.tool.call.result", json.dumps(result)),
            ])
        )  # fmt: skip
        answered = {"type": "tool_call_response", "id": cid, "response": result}
        history = [*history, *out, {"role": "tool", "parts": [answered]}]
    final = [{"role": "assistant", "parts": [{"type": "text", "content": "Done: BK-101."}]}]
    spans.append(
        span(9, "chat gpt-4o-mini", [
            attr("gen_ai.operation.name", "chat"),
            attr("gen_ai.input.messages", json.dumps(history)),
            attr("gen_ai.output.messages", json.dumps(final)),
        ])
    )  # fmt: skip
    resource = {"attributes": [attr("calibrant.agent_principal", "agent:tours-a")]}
    return {"resourceSpans": [{"resource": resource, "scopeSpans": [{"spans": spans}]}]}


def test_otel_spans_of_another_domain_import_and_check(cli: Cli, tours_files: Path) -> None:
    trace_id = "5ce0e9a56015fec5aadfa328ae398115"
    traces = _write(tours_files, "otel.json", _otel(trace_id))
    snaps = tours_files / "otel-snapshots"
    _write(snaps / trace_id, "before.json", _snapshot(0, []))
    _write(snaps / trace_id, "after.json", _snapshot(20, GOOD_AFTER))
    out = tours_files / "imported-otel"
    r = _import(cli, tours_files, out, "--snapshots", str(snaps), fmt="otel", traces=traces)
    assert r.code == 0, r.err
    t = load_transcript(out / f"book_matterhorn_day-import-{trace_id}.json")
    assert t.domain == "tours" and t.snapshot_after is not None
    assert [c.tool for c in t.tool_calls] == ["find_tourist", "book_tour", "send_notification"]
    assert [w.record_id for c in t.tool_calls for w in c.writes] == ["BK-101"]
    v = _verdicts(cli, out)[trace_id]
    assert {v[name] for name in BY_ROLE} == {"pass"}, v


def test_a_missing_snapshot_is_harness_error_and_evidence_missing(
    cli: Cli, tours_files: Path
) -> None:
    single = _write(tours_files, "good.json", _conversation("conv-good", HONEST))
    before = tours_files / "snapshots" / "conv-good" / "before.json"
    out = tours_files / "no-after"
    r = _import(cli, tours_files, out, "--before", str(before), traces=single)
    assert r.code == 0, r.err
    assert "1 without their snapshots (harness_error)" in r.out
    t = load_transcript(out / "book_matterhorn_day-import-conv-good.json")
    assert t.snapshot_before is not None and t.snapshot_after is None
    assert "snapshot after the trace is missing" in t.events[0].detail
    v = _verdicts(cli, out)["conv-good"]
    assert {v[name] for name in BY_ROLE} == {"harness_error"}, v
    assert "pass" not in v.values()
    texts = [e.text for e in trusted_evidence(t)]
    missing = [x for x in texts if x.startswith("EVIDENCE MISSING")]
    assert missing == [
        "EVIDENCE MISSING: the evaluator snapshot is not available, so nothing about the "
        "records at the end of the conversation can be established"
    ]


@pytest.mark.parametrize(
    ("where", "value", "field", "message", "on_line"),
    [
        (("tenants", 0, "bookings", 1, "seats"), "two", "tenants.0.bookings.1.seats",
         "valid integer", '"seats": "two"'),
        (("tenants", 1, "tourists", 0), {"tourist_id": "T-9"}, "tenants.1.tourists.0.tenant_id",
         "required field is missing", '"tourist_id": "T-9"'),
        (("taken_at",), "yesterday", "taken_at", "datetime", '"taken_at": "yesterday"'),
    ],
)  # fmt: skip
def test_a_malformed_snapshot_is_one_line_naming_file_line_field_and_nothing_is_written(
    cli: Cli,
    tours_files: Path,
    where: tuple[str | int, ...],
    value: Any,
    field: str,
    message: str,
    on_line: str,
) -> None:
    after = tours_files / "snapshots" / "conv-duplicate" / "after.json"
    doc = json.loads(after.read_text())
    node = doc
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = value
    after.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    lines = after.read_text().splitlines()
    near = next(n for n, text in enumerate(lines, start=1) if on_line in text)
    out = tours_files / "bad"
    r = _import(cli, tours_files, out, "--snapshots", str(tours_files / "snapshots"))
    assert r.code == 2
    [said] = r.err.strip().splitlines()
    assert f"field '{field}'" in said and message in said, said
    line = int(said.split(f"{after}:", 1)[1].split(":", 1)[0])
    assert near - 1 <= line <= near, (said, near)  # the field's line (an object: its opening)
    assert not out.exists()
    assert not list(tours_files.glob(".bad.import-*"))


def test_an_uninstalled_domain_is_one_line_and_nothing_is_written(
    cli: Cli, tours_files: Path
) -> None:
    out = tours_files / "x"
    r = cli(
        "import", "chat", str(tours_files / "chat.jsonl"), "--out", str(out),
        "--domain", "ferries",
    )  # fmt: skip
    assert r.code == 2
    [said] = r.err.strip().splitlines()
    assert "--domain ferries: no domain pack named 'ferries' is installed" in said
    assert "tours" in said and "refunds" in said  # what is installed
    assert not out.exists()
    # a case of another domain than --domain says so
    r = _import(cli, tours_files, out, "--domain", "refunds")
    assert r.code == 2
    assert "case 'book_matterhorn_day' is domain 'tours', not 'refunds' (--domain)" in r.err
    assert not out.exists()


def test_the_snapshot_format_of_another_domain_is_printed(tours: Path, cli: Cli) -> None:
    r = cli("schema", "snapshot", "--domain", "tours")
    assert r.code == 0, r.err
    found = json.loads(r.out)
    assert found["title"] == "OperatorFile"
    assert found["properties"]["tenants"]["items"] == {"$ref": "#/$defs/Operator"}
    assert set(found["$defs"]["Operator"]["properties"]) == {
        "tenant_id", "name", "tourists", "bookings"
    }  # fmt: skip
    assert {"taken_by", "seq", "taken_at", "tenants"} <= set(found["required"])
    r = cli("schema", "snapshot", "--domain", "ferries")
    assert r.code == 2 and r.out == ""
    [said] = r.err.strip().splitlines()
    assert "--domain ferries: no domain pack named 'ferries' is installed" in said


def test_a_pack_without_a_snapshot_format_refuses_snapshot_files(cli: Cli, tmp_path: Path) -> None:
    bare = TOURS.replace('name="tours"', 'name="tours-bare"')  # beside the installed tours
    write_pack(tmp_path / "pack", "tours_bare_pack", bare, "tours-bare = tours_bare_pack:pack")
    traces = _write(tmp_path, "good.json", _conversation("conv-good", HONEST))
    before = _write(tmp_path, "before.json", _snapshot(0, []))
    with installed(tmp_path / "pack"):
        r = cli(
            "import", "chat", str(traces), "--out", str(tmp_path / "x"), "--domain", "tours-bare",
            "--tenant", "op_a", "--before", str(before),
        )  # fmt: skip
    assert r.code == 2
    [said] = r.err.strip().splitlines()
    assert "domain pack 'tours-bare' declares no snapshot format, so --before cannot be" in said
    assert not (tmp_path / "x").exists()


# --- the travel pack's example (examples/traces/travel) ------------------------------------------


@pytest.fixture(scope="module")
def travel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The real travel pack (domains/travel/src) on the path, found through an entry point (its
    own, when it is installed; else a dist-info written here, as pip would)."""
    src = str(ROOT / "domains" / "travel" / "src")
    old = os.environ.get("PYTHONPATH")
    sys.path.append(src)
    os.environ["PYTHONPATH"] = src if not old else old + os.pathsep + src
    folder = tmp_path_factory.mktemp("travel_entry_point")
    if not any(ep.name == "travel" for ep in entry_points(group=domains.ENTRY_POINT_GROUP)):
        write_distribution(
            folder, "calibrant_travel_entry_point", {"travel": "calibrant_travel:pack"}
        )
    try:
        with installed(folder):
            assert domains.get("travel").pack.snapshot is not None
            yield
    finally:
        sys.path.remove(src)
        if old is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = old
        # calibrant_travel stays imported: its tables are in SQLModel's metadata for good, and
        # importing it again in this process would define them twice
        domains.refresh()


def test_the_travel_example_imports_and_checks(travel: None, cli: Cli, tmp_path: Path) -> None:
    out = tmp_path / "travel"
    r = cli(
        "import", "chat", str(TRAVEL / "chat.jsonl"), "--case", str(TRAVEL / "rebook_correct.yaml"),
        "--snapshots", str(TRAVEL / "snapshots"), "--out", str(out),
    )  # fmt: skip
    assert r.code == 0, r.err
    t = load_transcript(out / "rebook_correct-import-conv-rebook.json")
    assert t.domain == "travel" and t.snapshot_before is not None and t.snapshot_after
    kinds = {k for tenant in t.snapshot_after.tenants for k in tenant.records}
    assert {"traveller", "booking", "charge", "seat_hold"} <= kinds
    v = _verdicts(cli, out)
    rebook = v["conv-rebook"]
    assert "harness_error" not in rebook.values() and "violated" not in rebook.values(), rebook
    assert {rebook[name] for name in BY_ROLE} == {"pass"}, rebook
    double = v["conv-double-charge"]
    assert double["no_duplicate_payment"] == "violated"
    assert double["end_state_matches_contract"] == "violated"
    assert double["no_cross_tenant_leak"] == "pass"


def test_a_pack_that_names_its_tools_scopes_gets_each_calls_grant(travel: None) -> None:
    """The grant a call ran under comes from the pack's roles (`GrantSpec`) once its import
    rules name the scope each tool needs (`ImportRules.scopes`): the travel pack as shipped
    names none, so its calls carry neither scope nor grant; declared, each write tool's call
    carries its scope and the agent's grant from the 'before' snapshot."""
    from dataclasses import replace

    from calibrant.domains import ImportRules
    from calibrant.files import load_case
    from calibrant.importers.builder import build_transcript
    from calibrant.importers.chat import parse_chat
    from calibrant.importers.snapshots import read_domain_snapshot

    shipped = domains.get("travel").pack
    scopes = {"charge_fare_difference": "payment:charge", "rebook": "booking:write"}
    trace = next(t for t in parse_chat(TRAVEL / "chat.jsonl") if t.trace_id == "conv-rebook")
    snaps = TRAVEL / "snapshots" / "conv-rebook"

    def calls(pack: domains.DomainPack) -> dict[str, tuple[str | None, str | None]]:
        before = read_domain_snapshot(pack, snaps / "before.json")
        after = read_domain_snapshot(pack, snaps / "after.json")
        t = build_transcript(
            trace, fmt="chat", case=load_case(TRAVEL / "rebook_correct.yaml"), before=before,
            after=after, missing={}, tenant=None, principal=None, agent=None, pack=pack,
        )  # fmt: skip
        return {
            c.tool: (c.authorization.scope, c.authorization.permission_id) for c in t.tool_calls
        }

    assert set(calls(shipped).values()) == {(None, None)}
    declared = calls(replace(shipped, imports=ImportRules(scopes=scopes)))
    assert declared["charge_fare_difference"] == ("payment:charge", "grant_rebooker")
    assert declared["rebook"] == ("booking:write", "grant_rebooker")
    assert declared["find_booking"] == (None, None)
