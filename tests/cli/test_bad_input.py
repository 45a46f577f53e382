"""Bad input: one line on stderr naming file, line and field; exit 2; nothing written."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from calibrant.errors import InputError
from calibrant.files import load_case, load_labels, load_transcript
from tests.conftest import CASES, ROOT, Result

GOOD = ROOT / "examples" / "transcripts" / "good-eligible.json"


def _one_line(r: Result) -> str:
    assert r.code == 2, r.err
    lines = [ln for ln in r.err.splitlines() if ln.strip()]
    assert len(lines) == 1, r.err
    assert "Traceback" not in r.err
    return lines[0]


def test_truncated_transcript_names_file_and_line(
    tmp_path: Path, cli: Callable[..., Result]
) -> None:
    bad = tmp_path / "t.json"
    text = GOOD.read_text()
    bad.write_text(text[: len(text) // 2])
    line = _one_line(cli("check", str(bad)))
    assert f"{bad}:" in line and "malformed JSON" in line
    lineno = int(line.split(f"{bad}:")[1].split(":")[0])
    assert lineno > 100  # the parser's line, deep in the file


def test_unknown_field_names_line_and_field(tmp_path: Path) -> None:
    data = json.loads(GOOD.read_text())
    data["provenance"]["mood"] = "happy"
    bad = tmp_path / "t.json"
    bad.write_text(json.dumps(data, indent=1))
    with pytest.raises(InputError) as info:
        load_transcript(bad)
    err = info.value
    assert err.field == "provenance.mood" and err.detail == "unknown field"
    assert bad.read_text().splitlines()[err.line - 1].strip().startswith('"mood"')


def test_float_amount_in_transcript_is_rejected_with_its_line(tmp_path: Path) -> None:
    data = json.loads(GOOD.read_text())
    data["ledger_after"]["tenants"][0]["refunds"][0]["amount_minor_units"] = 4200.0
    bad = tmp_path / "t.json"
    bad.write_text(json.dumps(data, indent=1))
    with pytest.raises(InputError) as info:
        load_transcript(bad)
    err = info.value
    assert err.field == "ledger_after.tenants.0.refunds.0.amount_minor_units"
    assert "4200.0" in bad.read_text().splitlines()[err.line - 1]


@pytest.mark.parametrize(
    ("old", "new", "field", "needle"),
    [
        ("paid_minor_units: 4200", "paid_minor_units: 42.00", "fixture.paid_minor_units", "42.00"),
        ("paid_minor_units: 4200", "paid_minor_units: -4200", "fixture.paid_minor_units", "-4200"),
        (
            "  policy_version: refund_v3",
            "  policy_version: refund_v3\n  colour: red",
            "fixture.colour",
            "colour",
        ),
        ("ticket_state: resolved", "ticket_state: closed", "expected", "ticket_state"),
    ],
)
def test_bad_case_file_names_line_and_field(
    tmp_path: Path, old: str, new: str, field: str, needle: str
) -> None:
    bad = tmp_path / "case.yaml"
    bad.write_text((CASES / "eligible_damaged_order.yaml").read_text().replace(old, new, 1))
    with pytest.raises(InputError) as info:
        load_case(bad)
    err = info.value
    assert err.field is not None and err.field.startswith(field)
    assert err.line is not None and needle in bad.read_text().splitlines()[err.line - 1]


def test_malformed_yaml(tmp_path: Path) -> None:
    bad = tmp_path / "case.yaml"
    bad.write_text("case: x\nfixture: [unclosed\n")
    with pytest.raises(InputError, match="malformed YAML") as info:
        load_case(bad)
    assert info.value.line is not None


def test_labels_jsonl_bad_line(tmp_path: Path) -> None:
    f = tmp_path / "labels.jsonl"
    f.write_text(
        '{"item": "t1", "rater": "a", "criterion": "c", "label": "pass"}\n'
        '{"item": "t2", "rater": "a", "criterion": "c"}\n'
    )
    with pytest.raises(InputError) as info:
        load_labels(f)
    assert info.value.line == 2 and info.value.field == "label"


def test_labels_csv_import_matches_jsonl(tmp_path: Path) -> None:
    csv = tmp_path / "labels.csv"
    csv.write_text("item,rater,criterion,label,note\nt1,a,clarity,3,\nt2,a,next_step,pass,ok\n")
    labels = load_labels(csv)
    assert [(x.item, x.label, x.note) for x in labels] == [("t1", 3, None), ("t2", "pass", "ok")]
    bad = tmp_path / "bad.csv"
    bad.write_text("item,rater,criterion,label,score\nt1,a,c,pass,1\n")
    with pytest.raises(InputError, match="unknown column") as info:
        load_labels(bad)
    assert info.value.field == "score"


def test_trials_with_a_bad_case_writes_nothing(tmp_path: Path, cli: Callable[..., Result]) -> None:
    cases = tmp_path / "cases"
    shutil.copytree(CASES, cases)
    bad = cases / "zz_bad.yaml"
    bad.write_text(
        (CASES / "eligible_damaged_order.yaml")
        .read_text()
        .replace("paid_minor_units: 4200", "paid_minor_units: 4200.5")
    )
    out = tmp_path / "out"
    line = _one_line(
        cli("trials", str(cases), "--agent", "scripted:correct", "-k", "1", "--out", str(out))
    )
    assert f"{bad}:" in line and "fixture.paid_minor_units" in line
    assert not out.exists()


def test_unknown_agent_writes_nothing(tmp_path: Path, cli: Callable[..., Result]) -> None:
    out = tmp_path / "out"
    line = _one_line(cli("trials", str(CASES), "--agent", "scripted:nope", "--out", str(out)))
    assert "unknown agent 'scripted:nope'" in line
    assert not out.exists()


def test_missing_path_and_unknown_schema(cli: Callable[..., Result]) -> None:
    assert "no such file or folder" in _one_line(cli("check", "does/not/exist.json"))
    assert "unknown schema" in _one_line(cli("schema", "nope"))


def test_a_lone_surrogate_escape_names_the_line_and_field(
    tmp_path: Path, cli: Callable[..., Result]
) -> None:
    """JSON allows "\\ud83d" alone; it is no character, and no output or store can hold it."""
    data = json.loads(GOOD.read_text())
    data["conversation"][1]["text"] = "PLACEHOLDER"
    bad = tmp_path / "t.json"
    text = json.dumps(data, indent=1)
    bad.write_text(text.replace("PLACEHOLDER", "refund \\ud83d sent"))
    want = text.split("PLACEHOLDER")[0].count("\n") + 1
    with pytest.raises(InputError) as err:
        load_transcript(bad)
    assert err.value.line == want and err.value.field == "conversation.1.text"
    line = _one_line(cli("check", str(bad)))
    assert f"{bad}:{want}: field 'conversation.1.text'" in line and "surrogate" in line
    # a surrogate pair written as two escapes is one character, and fine
    bad.write_text(text.replace("PLACEHOLDER", "refund \\ud83d\\ude00 sent"))
    assert "\U0001f600" in load_transcript(bad).conversation[1].text
