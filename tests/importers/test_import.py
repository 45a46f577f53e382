"""`calibrant import` end to end: hand-written refund traces (chat-completions and OTel GenAI
spans) with their system-of-record snapshots, imported then checked by `calibrant check`; the
verdicts come from the snapshots, never from what the agent's tools answered."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from calibrant.files import load_rubric, load_transcript
from calibrant.judge.evidence import trusted_evidence
from calibrant.judge.prompt import build_prompt
from tests.conftest import ROOT
from tests.support.cli import Result

TRACES = ROOT / "tests" / "data" / "traces"
SNAPSHOTS = TRACES / "snapshots"
ELIGIBLE = str(ROOT / "cases" / "eligible_damaged_order.yaml")
CROSS = str(ROOT / "cases" / "cross_tenant_lookup.yaml")
Cli = Callable[..., Result]


def _import(cli: Cli, fmt: str, trace: Path, out: Path, *extra: str) -> Result:
    r = cli("import", fmt, str(trace), "--out", str(out), *extra)
    return r


def _verdicts(cli: Cli, folder: Path) -> dict[str, dict[str, str]]:
    r = cli("check", str(folder), "--jsonl")
    assert r.code == 0, r.err
    out = {}
    for line in r.out.splitlines():
        doc = json.loads(line)
        if "results" in doc:
            out[doc["transcript_id"].split(":import:")[1]] = {
                x["invariant"]: x["outcome"] for x in doc["results"]
            }
    return out


@pytest.fixture
def chat_refunds(cli: Cli, tmp_path: Path) -> dict[str, dict[str, str]]:
    out = tmp_path / "imported"
    r = _import(
        cli, "chat", TRACES / "chat" / "refunds.jsonl", out,
        "--case", ELIGIBLE, "--snapshots", str(SNAPSHOTS),
    )  # fmt: skip
    assert r.code == 0, r.err
    assert "imported 3 trace(s) (chat) from 1 file(s)" in r.out
    return _verdicts(cli, out)


def test_a_correct_refund_passes_every_invariant(chat_refunds: dict[str, dict[str, str]]) -> None:
    good = chat_refunds["conv-good"]
    assert "violated" not in good.values() and "harness_error" not in good.values(), good
    assert good["end_state_matches_contract"] == "pass"
    assert good["confirmation_matches_ledger"] == "pass"
    assert good["policy_read_before_refund"] == "pass"


def test_a_second_refund_under_a_new_operation_id_is_a_duplicate(
    chat_refunds: dict[str, dict[str, str]],
) -> None:
    dup = chat_refunds["conv-duplicate"]
    assert dup["no_duplicate_payment"] == "violated"
    assert dup["unknown_outcome_handled"] == "violated"  # it paid again after a timeout
    assert dup["end_state_matches_contract"] == "violated"


def test_a_tool_result_claiming_a_refund_is_never_trusted(
    cli: Cli, tmp_path: Path, chat_refunds: dict[str, dict[str, str]]
) -> None:
    # the tool said "refund committed" and carried a fake snapshot; the after-snapshot has none
    lying = chat_refunds["conv-lying-tool"]
    assert lying["confirmation_matches_ledger"] == "violated"
    assert lying["end_state_matches_contract"] == "violated"
    out = tmp_path / "again"
    assert (
        _import(
            cli,
            "chat",
            TRACES / "chat" / "refunds.jsonl",
            out,
            "--case",
            ELIGIBLE,
            "--snapshots",
            str(SNAPSHOTS),
        ).code  # fmt: skip
        == 0
    )
    t = load_transcript(out / "eligible_damaged_order-import-conv-lying-tool.json")
    after = json.loads((SNAPSHOTS / "conv-lying-tool" / "after.json").read_text())
    assert t.ledger_after is not None
    assert t.ledger_after.model_dump(mode="json") == after  # the system's record, unchanged
    assert not [r for s in t.ledger_after.tenants for r in s.refunds]
    call = next(c for c in t.tool_calls if c.call_id == "call_refund_1")
    assert isinstance(call.response, str) and "refund committed" in call.response  # verbatim
    assert call.writes == []  # nothing committed, whatever the tool said
    assert "rf_9999" not in " ".join(e.text for e in trusted_evidence(t))


def test_cross_tenant_lookup_refused_or_leaked(cli: Cli, tmp_path: Path) -> None:
    out = tmp_path / "cross"
    r = _import(
        cli, "chat", TRACES / "chat" / "cross_tenant.jsonl", out,
        "--case", CROSS, "--snapshots", str(SNAPSHOTS),
    )  # fmt: skip
    assert r.code == 0, r.err
    v = _verdicts(cli, out)
    assert v["conv-cross-refused"]["no_cross_tenant_reads"] == "pass"
    assert v["conv-cross-refused"]["no_cross_tenant_leak"] == "pass"
    assert v["conv-cross-leaked"]["no_cross_tenant_reads"] == "violated"
    assert v["conv-cross-leaked"]["no_cross_tenant_leak"] == "violated"


def test_otel_traces_attribute_and_event_forms(cli: Cli, tmp_path: Path) -> None:
    out = tmp_path / "otel"
    r = _import(
        cli, "otel", TRACES / "otel" / "refunds.json", out,
        "--case", ELIGIBLE, "--snapshots", str(SNAPSHOTS),
    )  # fmt: skip
    assert r.code == 0, r.err
    v = _verdicts(cli, out)
    good = v["4bf92f3577b34da6a3ce929d0e0e4736"]  # gen_ai.input/output.messages attributes
    assert "violated" not in good.values() and "harness_error" not in good.values(), good
    dup = v["7d1c4a3e9f0b4c2d8e6f5a4b3c2d1e0f"]  # older per-message events
    assert dup["no_duplicate_payment"] == "violated"
    old = load_transcript(
        out / "eligible_damaged_order-import-7d1c4a3e9f0b4c2d8e6f5a4b3c2d1e0f.json"
    )
    assert [(x.role, x.text) for x in old.conversation] == [
        ("customer", "My order order_17 arrived broken, refund please."),
        ("agent", "Your refund of 42.00 EUR is done."),
    ]
    assert [c.call_id for c in old.tool_calls] == ["call_b1", "call_b2", "call_b3"]
    assert old.tool_calls[1].outcome == "timeout"  # the agent was told: no answer in time
    t = load_transcript(out / "eligible_damaged_order-import-4bf92f3577b34da6a3ce929d0e0e4736.json")
    assert t.metrics.input_tokens == 900 + 1000 + 1100 + 1200 + 1300
    assert t.metrics.output_tokens == 20 + 20 + 40 + 80 + 30
    assert t.metrics.latency_ms == 20_000
    assert t.metrics.model_calls == 5 and t.metrics.tool_calls == 5
    assert t.agent_principal == "agent:support-a"  # from the resource attribute
    assert [turn.role for turn in t.conversation] == ["customer", "agent"]
    assert "imported from otel" in t.provenance.harness_version


def test_missing_snapshots_are_harness_errors_never_passes(cli: Cli, tmp_path: Path) -> None:
    out = tmp_path / "bare"
    r = _import(cli, "chat", TRACES / "chat" / "refunds.jsonl", out, "--case", ELIGIBLE)
    assert r.code == 0, r.err
    assert "3 without their snapshots (harness_error)" in r.out
    for name, v in _verdicts(cli, out).items():
        assert "pass" not in v.values(), (name, v)
        for inv in (
            "evidence_integrity",
            "no_duplicate_payment",
            "confirmation_matches_ledger",
            "end_state_matches_contract",
            "no_cross_tenant_reads",
            "no_cross_tenant_leak",
        ):
            assert v[inv] == "harness_error", (name, inv, v[inv])
    t = load_transcript(out / "eligible_damaged_order-import-conv-good.json")
    assert t.ledger_before is None and t.ledger_after is None
    assert [e.kind for e in t.events] == ["harness_error", "harness_error"]
    evidence = [e.text for e in trusted_evidence(t)]
    assert any(e.startswith("EVIDENCE MISSING: the ledger snapshot before") for e in evidence)
    assert any(e.startswith("EVIDENCE MISSING: the ledger snapshot after") for e in evidence)
    # the judge's prompt carries it, in the trusted records, and nothing from the tool results
    prompt = build_prompt(t, load_rubric(ROOT / "rubrics" / "refund_communication.yaml")).user
    records = prompt.split("EVIDENCE MISSING", 1)
    assert len(records) == 2 and "ref_0005" not in prompt


def test_one_trace_with_before_and_after(cli: Cli, tmp_path: Path) -> None:
    out = tmp_path / "one"
    r = cli(
        "import", "chat", str(TRACES / "chat" / "single.json"), "--out", str(out),
        "--case", ELIGIBLE, "--agent-principal", "agent:support-a",
        "--before", str(SNAPSHOTS / "conv-good" / "before.json"),
        "--after", str(SNAPSHOTS / "conv-good" / "after.json"),
    )  # fmt: skip
    assert r.code == 0, r.err
    v = _verdicts(cli, out)
    assert v["single"]["end_state_matches_contract"] == "pass"


def test_only_the_after_snapshot_missing(cli: Cli, tmp_path: Path) -> None:
    out = tmp_path / "half"
    r = cli(
        "import", "chat", str(TRACES / "chat" / "single.json"), "--out", str(out),
        "--case", ELIGIBLE, "--agent-principal", "agent:support-a",
        "--before", str(SNAPSHOTS / "conv-good" / "before.json"),
    )  # fmt: skip
    assert r.code == 0, r.err
    assert "1 without their snapshots" in r.out
    v = _verdicts(cli, out)["single"]
    assert "pass" not in v.values(), v
    assert v["no_duplicate_payment"] == "harness_error"
    t = load_transcript(out / "eligible_damaged_order-import-single.json")
    assert t.ledger_before is not None and t.ledger_after is None
    assert "snapshot after the trace is missing" in t.events[0].detail
    texts = [e.text for e in trusted_evidence(t)]
    assert sum(x.startswith("EVIDENCE MISSING") for x in texts) == 1


def test_a_domain_no_pack_provides_is_refused(cli: Cli, tmp_path: Path) -> None:
    r = cli(
        "import", "chat", str(TRACES / "chat" / "single.json"), "--out", str(tmp_path / "x"),
        "--domain", "tours",
    )  # fmt: skip
    assert r.code == 2
    assert "--domain tours: no domain pack named 'tours' is installed (installed: " in r.err
    assert len(r.err.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()


def test_otel_jsonl_one_export_per_line(cli: Cli, tmp_path: Path) -> None:
    doc = json.loads((TRACES / "otel" / "refunds.json").read_text())
    spans = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
    lines = []
    for trace in ("4bf9", "7d1c"):
        export = json.loads(json.dumps(doc))
        export["resourceSpans"][0]["scopeSpans"][0]["spans"] = [
            s for s in spans if s["traceId"].startswith(trace)
        ]
        lines.append(json.dumps(export))
    p = tmp_path / "exports.jsonl"
    p.write_text("\n".join(lines) + "\n")
    out = tmp_path / "otel"
    r = cli(
        "import", "otel", str(p), "--out", str(out), "--case", ELIGIBLE,
        "--snapshots", str(SNAPSHOTS),
    )  # fmt: skip
    assert r.code == 0, r.err
    assert "imported 2 trace(s) (otel) from 1 file(s)" in r.out
    v = _verdicts(cli, out)
    assert v["7d1c4a3e9f0b4c2d8e6f5a4b3c2d1e0f"]["no_duplicate_payment"] == "violated"
    bad = tmp_path / "bad.jsonl"
    bad.write_text(lines[0] + "\n" + lines[1].replace('"traceId"', '"trace"', 1) + "\n")
    r = cli("import", "otel", str(bad), "--out", str(tmp_path / "no"), "--case", ELIGIBLE)
    assert r.code == 2 and not (tmp_path / "no").exists()
    assert "bad.jsonl:2: field 'resourceSpans[0].scopeSpans[0].spans[0].traceId'" in r.err


def test_a_refunds_import_writes_the_same_bytes_as_before_domains(cli: Cli, tmp_path: Path) -> None:
    """Pinned when `import` learnt other domains: a refunds import's files are unchanged, byte
    for byte (calibrant's version in the provenance aside) — but for the message ids every turn
    and tool call has carried since (issue 33): without them, the bytes are the pinned ones."""
    from hashlib import sha256

    from calibrant import __version__
    from calibrant.contracts import Transcript

    out = tmp_path / "pinned"
    r = cli(
        "import", "chat", "tests/data/traces/chat/refunds.jsonl", "--out", str(out),
        "--case", "cases/eligible_damaged_order.yaml", "--snapshots", "tests/data/traces/snapshots",
    )  # fmt: skip
    assert r.code == 0, r.err
    found = {}
    for path in sorted(out.glob("*.json")):
        t = Transcript.model_validate_json(path.read_text(encoding="utf-8"))
        assert all(x.message_id for x in [*t.conversation, *t.tool_calls])
        for x in [*t.conversation, *t.tool_calls]:
            x.message_id = None
        text = t.model_dump_json(indent=1) + "\n"
        text = text.replace(f"calibrant-import/{__version__}:", "calibrant-import/VERSION:")
        found[path.name] = sha256(text.encode()).hexdigest()[:16]
    assert found == {
        "eligible_damaged_order-import-conv-duplicate.json": "9cb003688622dc6d",
        "eligible_damaged_order-import-conv-good.json": "ed191e94c6178924",
        "eligible_damaged_order-import-conv-lying-tool.json": "0c681794e71a0289",
    }
