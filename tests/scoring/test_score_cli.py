"""`calibrant score`: new transcripts judged in batch against a local OpenAI-compatible endpoint;
safety beside communication, outputs all or none, answers reused on rerun, corrected rates."""

from __future__ import annotations

import csv
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, Result
from tests.support.fake_openai import FakeServer, answer_from_schema, fake_openai
from tests.support.gold import small_gold

EXAMPLES = ROOT / "examples" / "transcripts"


def _label(criterion: str, allowed: list[Any]) -> Any:
    if "pass" in allowed:
        return "pass"
    return 3 if 3 in allowed else allowed[0]


@pytest.fixture(scope="module")
def server() -> Any:
    with fake_openai(answer_from_schema(_label)) as s:
        yield s


@pytest.fixture
def batch(tmp_path: Path) -> Path:
    """Six JSON files (two of them broken by the agent) and a JSON Lines file of three more."""
    folder = tmp_path / "in"
    folder.mkdir()
    for name in (
        "good-eligible",
        "good-timeout",
        "broken-duplicate-after-timeout",
        "broken-false-completion",
        "broken-stale-overwrite",
        "broken-refund-before-approval",
    ):
        shutil.copy(EXAMPLES / f"{name}.json", folder / f"{name}.json")
    gold = sorted((ROOT / "gold" / "transcripts").glob("*.json"))[:3]
    lines = [json.dumps(json.loads(item.read_text())) for item in gold]
    (folder / "more.jsonl").write_text("\n".join(lines) + "\n\n")  # a blank line is allowed
    return folder


def _env(tmp_path: Path) -> dict[str, str]:
    return {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 'store.db'}", "OPENAI_API_KEY": "x"}


def _score(cli: Callable[..., Result], server: FakeServer, tmp_path: Path, *args: str) -> Result:
    return cli(
        "score", "--model", "openai/scorer", "--api-base", server.url, *args, env=_env(tmp_path)
    )


def test_a_batch_is_scored_with_safety_beside_communication(
    cli: Callable[..., Result], server: FakeServer, batch: Path, tmp_path: Path
) -> None:
    before = server.requests["scorer"]
    rows_path, csv_path = tmp_path / "out" / "rows.jsonl", tmp_path / "out" / "rows.csv"
    r = _score(
        cli, server, tmp_path, str(batch), "--out", str(rows_path), "--csv", str(csv_path), "--json"
    )
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert doc["transcripts"] == 9
    assert server.requests["scorer"] - before == 9
    rows = [json.loads(x) for x in rows_path.read_text().splitlines()]
    assert len(rows) == 9
    assert any(row["source"].endswith("more.jsonl:2") for row in rows)
    broken = {row["source"].split("/")[-1]: row for row in rows}
    dup = broken["broken-duplicate-after-timeout.json"]
    assert dup["safety"]["status"] == "violated"
    assert "no_duplicate_payment" in dup["safety"]["violated"]
    assert dup["communication"]["criteria"]["separates_done_from_pending"]["label"] == "pass"
    assert broken["good-eligible.json"]["safety"]["status"] == "pass"
    # violations are release blockers, counted apart from the judge's pass rates
    assert doc["safety"]["release_blockers"] >= 4
    assert doc["safety"]["by_invariant"]["no_duplicate_payment"] >= 1
    sep = next(c for c in doc["criteria"] if c["criterion"] == "separates_done_from_pending")
    assert sep["pass_rate_judged"]["value"] == 1.0 and sep["pass_rate_judged"]["n"] == 9
    assert sep["pass_rate_corrected"] is None
    assert any("no calibration" in w for w in doc["warnings"])
    table = list(csv.reader(csv_path.open()))
    assert table[0][:5] == ["source", "transcript_id", "safety", "violated", "judge_outcome"]
    assert len(table) == 10
    assert f"wrote {rows_path}" in r.err


def test_a_rerun_asks_nothing_and_writes_the_same_rows(
    cli: Callable[..., Result], server: FakeServer, batch: Path, tmp_path: Path
) -> None:
    out = tmp_path / "rows.jsonl"
    plain = _score(cli, server, tmp_path, str(batch), "--out", str(out))
    assert plain.code == 0
    # the text output ends with the run it recorded and what to do next
    tail = plain.out.strip().splitlines()[-3:]
    assert re.fullmatch(r"Run: [0-9a-f]{32}", tail[0]), tail
    run = tail[0].split()[1][:12]
    assert tail[1].startswith(f"Next: calibrant audit {run} --queue NAME"), tail
    assert tail[2].startswith(f"Next: calibrant runs show {run}"), tail
    first = out.read_text()
    before = server.requests["scorer"]
    r = _score(cli, server, tmp_path, str(batch), "--out", str(out), "--json")
    assert r.code == 0, r.err
    assert server.requests["scorer"] == before
    assert json.loads(r.out)["from_cache"] == 9
    assert json.loads(r.out)["cost_usd"] == 0
    assert out.read_text() == first


def test_a_bad_line_stops_the_batch_before_any_call_and_writes_nothing(
    cli: Callable[..., Result], server: FakeServer, batch: Path, tmp_path: Path
) -> None:
    jsonl = batch / "more.jsonl"
    lines = jsonl.read_text().splitlines()
    doc = json.loads(lines[1])
    doc["trial"] = "second"
    lines[1] = json.dumps(doc)
    jsonl.write_text("\n".join(lines) + "\n")
    before = sum(server.requests.values())
    out = tmp_path / "rows.jsonl"
    r = _score(cli, server, tmp_path, str(batch), "--out", str(out))
    assert r.code == 2
    assert r.err.strip().count("\n") == 0, r.err
    assert f"{jsonl}:2" in r.err and "trial" in r.err
    assert sum(server.requests.values()) == before
    assert not out.exists() and not list(tmp_path.glob(".rows.jsonl*"))


def test_quoted_globs_and_patterns_that_match_nothing(
    cli: Callable[..., Result], server: FakeServer, batch: Path, tmp_path: Path
) -> None:
    r = _score(cli, server, tmp_path, str(batch / "good-*.json"), "--json")
    assert r.code == 0, r.err
    assert json.loads(r.out)["transcripts"] == 2
    r = _score(cli, server, tmp_path, str(batch / "nothing-*.json"))
    assert r.code == 2 and "matches no file" in r.err


def test_violations_fail_the_run_when_asked(
    cli: Callable[..., Result], server: FakeServer, batch: Path, tmp_path: Path
) -> None:
    r = _score(
        cli, server, tmp_path, str(batch / "broken-false-completion.json"), "--fail-on-violation"
    )
    assert r.code == 1, r.err
    r = _score(cli, server, tmp_path, str(batch / "good-eligible.json"), "--fail-on-violation")
    assert r.code == 0, r.err


def test_a_judge_that_cannot_answer_exits_3_and_names_the_failure(
    cli: Callable[..., Result], server: FakeServer, batch: Path, tmp_path: Path
) -> None:
    r = cli(
        "score",
        "--model",
        "openai/malformed",
        "--api-base",
        server.url,
        "--max-attempts",
        "1",
        str(batch / "good-eligible.json"),
        env=_env(tmp_path),
    )
    assert r.code == 3, r.err
    [line] = [ln for ln in r.err.splitlines() if ln.startswith("calibrant: ")]
    assert "unparseable 1" in line and "not JSON" in line  # the failure and its cause
    assert r.out == ""  # no pass rate from nothing


def test_pass_rates_are_corrected_by_this_judge_versions_calibration(
    cli: Callable[..., Result], server: FakeServer, batch: Path, tmp_path: Path
) -> None:
    gold = small_gold(tmp_path / "gold", n=12)
    r = cli(
        "calibrate",
        "--gold",
        str(gold),
        "--split",
        "all",
        "--model",
        "openai/scorer",
        "--api-base",
        server.url,
        "--json",
        env=_env(tmp_path),
    )
    assert r.code in (0, 1), r.err
    cal = tmp_path / "calibration.json"
    cal.write_text(r.out)
    # the judge's pass/fail errors per case, summing to the confusion table's pass/fail cells
    for crit in json.loads(r.out)["criteria"]:
        by_case = crit["pass_fail_by_case"]
        if by_case is None:
            continue
        conf = crit["confusion"]
        rows, cols = conf["rows_consensus"], conf["columns_judge"]
        for field, (row, col) in {
            "true_pass": ("pass", "pass"),
            "false_fail": ("pass", "fail"),
            "true_fail": ("fail", "fail"),
            "false_pass": ("fail", "pass"),
        }.items():
            cell = conf["counts"][rows.index(row)][cols.index(col)]
            assert sum(c[field] for c in by_case) == cell
        assert len({c["case"] for c in by_case}) == len(by_case) >= 2
    r = _score(cli, server, tmp_path, str(batch), "--calibration", str(cal), "--json")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert doc["calibration"]["n_items"] == 12
    assert doc["calibration"]["source"] == f"file {cal}"
    assert doc["calibration"]["file"] == str(cal.resolve())
    assert doc["calibration"]["n_cases"] >= 2
    assert not any("no calibration" in w for w in doc["warnings"])
    sep = next(c for c in doc["criteria"] if c["criterion"] == "separates_done_from_pending")
    corrected = sep["pass_rate_corrected"]
    # a judge that passes everything has no specificity: the correction says so, not a number
    assert corrected["value"] is None and corrected["undefined_reason"]
    assert sep["judge_specificity"]["value"] == 0.0
    shown = _score(cli, server, tmp_path, str(batch), "--calibration", str(cal))
    assert f"Calibration: file {cal}, split all, 12 items from" in " ".join(shown.out.split())

    # a calibration written before per-case counts is read, and not used to correct
    old = json.loads(cal.read_text())
    for c in old["criteria"]:
        del c["pass_fail_by_case"]
    old_cal = tmp_path / "old-calibration.json"
    old_cal.write_text(json.dumps(old))
    r = _score(cli, server, tmp_path, str(batch), "--calibration", str(old_cal), "--json")
    assert r.code == 0, r.err
    for c in json.loads(r.out)["criteria"]:
        if "pass_rate_judged" in c:
            assert c["pass_rate_corrected"] is None
            assert "does not record the judge's errors per case" in c["correction"]

    other = json.loads(cal.read_text())
    other["judge"]["hash"] = "sha256:" + "0" * 64
    cal.write_text(json.dumps(other))
    before = sum(server.requests.values())
    r = _score(cli, server, tmp_path, str(batch), "--calibration", str(cal))
    assert r.code == 2 and "calibrate this judge version" in r.err
    assert sum(server.requests.values()) == before


def test_a_known_file_changed_into_bad_input_is_still_refused(
    cli: Callable[..., Result], server: FakeServer, batch: Path, tmp_path: Path
) -> None:
    # the store now knows every file's bytes; a line edited afterwards is new bytes, read again
    assert _score(cli, server, tmp_path, str(batch)).code == 0
    jsonl = batch / "more.jsonl"
    lines = jsonl.read_text().splitlines()
    doc = json.loads(lines[2])
    doc["conversation"] = "not a list"
    lines[2] = json.dumps(doc)
    jsonl.write_text("\n".join(lines) + "\n")
    before = sum(server.requests.values())
    out = tmp_path / "rows.jsonl"
    r = _score(cli, server, tmp_path, str(batch), "--out", str(out))
    assert r.code == 2
    assert f"{jsonl}:3" in r.err and "conversation" in r.err
    assert sum(server.requests.values()) == before
    assert not out.exists()


def test_rounds_mixing_stored_and_new_answers_keep_the_input_order(
    cli: Callable[..., Result], server: FakeServer, tmp_path: Path
) -> None:
    # 300 transcripts cross several rounds; the first 150 are answered by an earlier run
    gold = [json.loads(p.read_text()) for p in sorted((ROOT / "gold" / "transcripts").glob("*"))]
    folder = tmp_path / "many"
    folder.mkdir()
    for part in range(2):
        with (folder / f"part-{part}.jsonl").open("w") as fh:
            for i in range(150):
                doc = dict(gold[i % len(gold)])
                doc["transcript_id"] = f"order-{part}-{i:03d}"
                fh.write(json.dumps(doc) + "\n")
    assert _score(cli, server, tmp_path, str(folder / "part-0.jsonl")).code == 0
    before = server.requests["scorer"]
    out = tmp_path / "rows.jsonl"
    r = _score(cli, server, tmp_path, str(folder), "--out", str(out), "--json")
    assert r.code == 0, r.err
    assert server.requests["scorer"] - before == 150
    assert json.loads(r.out)["from_cache"] == 150
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    expected = [
        (f"part-{p}.jsonl:{i + 1}", f"order-{p}-{i:03d}") for p in range(2) for i in range(150)
    ]
    assert [(row["source"].split("/")[-1], row["transcript_id"]) for row in rows] == expected
