"""JSON Lines are split at line feeds only: a JSON string may hold U+2028, U+2029, U+0085 or
\\x1c-\\x1e unescaped (any export written with ensure_ascii=False), and `str.splitlines` would
cut the line there and call valid JSON malformed. Through `calibrant import chat`, the service's
upload and a labels file, the three readers of JSON Lines."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from calibrant.files import json_lines, load_labels
from tests.conftest import ROOT
from tests.support.cli import Result
from tests.support.labeling import GOLD, labeling_service

SEPARATORS = ["\u2028", "\u2029", "\u0085", "\x1c", "\x1d", "\x1e", "\x0b", "\x0c"]
TRACES = ROOT / "tests" / "data" / "traces"


def test_only_a_line_feed_ends_a_line() -> None:
    text = 'a\u2028b\r\n{"x": "\x1c"}\n\nlast'
    assert json_lines(text) == ["a\u2028b", '{"x": "\x1c"}', "", "last"]
    assert json_lines("one\n") == ["one"] and json_lines("") == []


@pytest.mark.parametrize("sep", SEPARATORS, ids=lambda s: f"U+{ord(s):04X}")
def test_an_imported_trace_may_hold_any_line_separator_in_its_text(
    cli: Callable[..., Result], tmp_path: Path, sep: str
) -> None:
    first = json.loads((TRACES / "chat" / "refunds.jsonl").read_text().split("\n")[0])
    user = next(m for m in first["messages"] if m["role"] == "user")
    user["content"] = f"Hi{sep}my vase arrived broken"
    trace = tmp_path / "trace.jsonl"
    trace.write_text(json.dumps(first, ensure_ascii=False) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    r = cli(
        "import", "chat", str(trace), "--out", str(out),
        "--case", str(ROOT / "cases" / "eligible_damaged_order.yaml"),
        "--snapshots", str(TRACES / "snapshots"),
    )  # fmt: skip
    assert r.code == 0, r.err
    (written,) = out.glob("*.json")
    texts = [t["text"] for t in json.loads(written.read_text())["conversation"]]
    assert any(f"Hi{sep}my vase" in t for t in texts), texts


def test_an_upload_and_a_labels_file_may_hold_them_too(tmp_path: Path) -> None:
    docs = [json.loads((GOLD / f"gold-{n:03d}.json").read_text()) for n in (1, 2)]
    docs[0]["conversation"][0]["text"] += "\u2028(sent from my phone)\x1e"
    body = "\n".join(json.dumps(d, ensure_ascii=False) for d in docs) + "\n"
    with labeling_service("sqlite", tmp_path) as service:
        admin = service.client(service.user("jl-admin", "admin"))
        got = admin.post(
            "/api/transcripts?queue=jl",
            content=body.encode(),
            headers={"Content-Type": "application/x-ndjson"},
        )
        assert got.status_code == 200, got.text
        assert got.json()["added"] == ["gold-001", "gold-002"]
    labels = tmp_path / "rater.jsonl"
    rows = [
        {"item": "gold-001", "rater": "ana", "criterion": "explains_next_step",
         "label": "pass", "note": "clear\u2028enough\x1c"},
        {"item": "gold-002", "rater": "ana", "criterion": "explains_next_step",
         "label": "fail"},
    ]  # fmt: skip
    labels.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    loaded = load_labels(labels)
    assert [x.item for x in loaded] == ["gold-001", "gold-002"]
    assert loaded[0].note == "clear\u2028enough\x1c"
