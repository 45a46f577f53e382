"""`check --json` is written from a spool, `--jsonl` as it goes: same verdicts and totals as
the in-memory document, and a bad file still leaves nothing half-written."""

from __future__ import annotations

import io
import json
import shutil
from collections.abc import Callable
from pathlib import Path

from calibrant.contracts import SafetyVerdict
from calibrant.files import expand_paths, load_transcript
from calibrant.reports.safety import VerdictSpool, safety_json, write_safety_json
from calibrant.safety import check_transcript
from tests.conftest import ROOT, Result

EXAMPLES = ROOT / "examples" / "transcripts"


def _verdicts() -> list[SafetyVerdict]:
    return [
        check_transcript(load_transcript(f), source=str(f))
        for f in expand_paths([EXAMPLES], suffixes=(".json",))
    ]


def test_streamed_document_is_byte_identical_to_the_in_memory_one() -> None:
    verdicts = _verdicts()
    spool = VerdictSpool()
    for v in verdicts:
        spool.add(v)
    out = io.StringIO()
    write_safety_json(out, spool.totals.doc().json_data(), spool.documents())
    spool.close()
    assert out.getvalue() == safety_json(verdicts) + "\n"
    empty = io.StringIO()
    write_safety_json(empty, VerdictSpool().totals.doc().json_data(), [])
    assert json.loads(empty.getvalue())["verdicts"] == []


def test_check_json_and_jsonl_agree(cli: Callable[..., Result]) -> None:
    doc = json.loads(cli("check", str(EXAMPLES), "--json").out)
    r = cli("check", str(EXAMPLES), "--jsonl")
    assert r.code == 0, r.err
    lines = [json.loads(x) for x in r.out.splitlines()]
    *verdicts, summary = lines
    assert [SafetyVerdict.model_validate(v).transcript_id for v in verdicts] == [
        v["transcript_id"] for v in doc["verdicts"]
    ]
    assert summary == {k: v for k, v in doc.items() if k != "verdicts"}
    assert summary["transcripts"] == len(verdicts) == doc["files"]["read"]


def test_bad_file_late_in_the_run_prints_nothing(
    tmp_path: Path, cli: Callable[..., Result]
) -> None:
    for f in EXAMPLES.glob("*.json"):
        shutil.copy(f, tmp_path / f.name)
    (tmp_path / "zzz-last.json").write_text('{"transcript_id": "x"')
    for flag in ("--json", "-v"):
        r = cli("check", str(tmp_path), flag)
        assert r.code == 2 and r.out == ""
        assert "zzz-last.json:1" in r.err
    # --jsonl streams: what was printed is whole verdicts, and no summary line
    r = cli("check", str(tmp_path), "--jsonl")
    assert r.code == 2 and "zzz-last.json:1" in r.err
    lines = [json.loads(x) for x in r.out.splitlines()]
    assert lines and all("results" in x for x in lines)


def test_json_and_jsonl_are_exclusive(cli: Callable[..., Result]) -> None:
    r = cli("check", str(EXAMPLES), "--json", "--jsonl")
    assert r.code == 2 and "exclusive" in r.err and r.out == ""


def test_check_warns_about_a_trials_run_that_did_not_finish(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    run = tmp_path / "run"
    run.mkdir()
    shutil.copy(ROOT / "examples" / "transcripts" / "good-eligible.json", run)
    finished = cli("check", str(run), "--fail-on-violation")
    assert finished.code == 0 and "unfinished" not in finished.err
    (run / "TRIALS_INCOMPLETE").write_text("{}")
    r = cli("check", str(run), "--fail-on-violation")
    assert r.code == 0, r.err  # the transcripts there are still checked as before
    warning = [ln for ln in r.err.splitlines() if "unfinished trials run" in ln]
    assert len(warning) == 1 and str(run) in warning[0]
