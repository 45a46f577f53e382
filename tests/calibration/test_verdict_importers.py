"""`calibrant verdicts import`: an Inspect eval log (.json, or the .eval zip) and a promptfoo
result file become the rows of a recorded-verdicts file; the shipped examples under
examples/verdicts/ import to the rows of examples/verdicts/judged.csv, and a foreign file given
straight to `calibrate --verdicts` is measured like its rows."""

from __future__ import annotations

import csv
import json
import re
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import ROOT, Result

EXAMPLES = ROOT / "examples" / "verdicts"
RUBRIC = ROOT / "rubrics" / "refund_communication.yaml"
BINARY = ("separates_done_from_pending", "explains_next_step", "no_claim_before_confirmed")


def _csv_rows() -> list[tuple[str, str, Any, str]]:
    with (EXAMPLES / "judged.csv").open() as f:
        return [
            (
                r["item"],
                r["criterion"],
                int(r["label"]) if r["label"].isdigit() else r["label"],
                r["rationale"],
            )
            for r in csv.DictReader(f)
        ]


def _run_import(
    cli: Callable[..., Result], source: Path, fmt: str, out: Path, *extra: str
) -> Result:
    return cli("verdicts", "import", str(source), "--from", fmt, "--out", str(out), *extra)


def _imported(
    cli: Callable[..., Result], tmp_path: Path, source: Path, fmt: str, *extra: str
) -> list[dict[str, Any]]:
    out = tmp_path / f"{source.stem}.jsonl"
    r = _run_import(cli, source, fmt, out, "--rubric", str(RUBRIC), *extra)
    assert r.code == 0, r.err
    assert f"wrote {out}" in r.out
    return [json.loads(ln) for ln in out.read_text().splitlines()]


def _eval_zip(tmp_path: Path, log: dict[str, Any]) -> Path:
    """The same log in Inspect's .eval form: header.json, then one file per sample."""
    path = tmp_path / "run.eval"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("_journal/start.json", json.dumps({"version": 2, "eval": log["eval"]}))
        z.writestr("header.json", json.dumps({k: v for k, v in log.items() if k != "samples"}))
        for s in log["samples"]:
            z.writestr(f"samples/{s['id']}_epoch_{s['epoch']}.json", json.dumps(s, indent=2))
        z.writestr("summaries.json", json.dumps([{"id": s["id"]} for s in log["samples"]]))
    return path


def test_the_inspect_example_imports_to_the_rows_of_the_csv(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    rows = _imported(cli, tmp_path, EXAMPLES / "inspect_log.json", "inspect")
    got = [(r["item"], r["criterion"], r["label"], r["rationale"]) for r in rows]
    assert got == _csv_rows()  # C/I read as pass/fail, 1-4 as themselves
    assert {r["judge_version"] for r in rows} == {"inspect/refund_comms_judge@3"}
    log = json.loads((EXAMPLES / "inspect_log.json").read_text())
    zipped = _imported(cli, tmp_path, _eval_zip(tmp_path, log), "inspect")
    assert zipped == rows


def test_inspect_epochs_values_and_versions_are_mapped_as_asked(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    log = json.loads((EXAMPLES / "inspect_log.json").read_text())
    second = json.loads(json.dumps(log["samples"][0]))
    second["epoch"] = 2
    second["scores"]["explains_next_step"]["value"] = "P"  # partial: not a rubric label
    log["samples"].append(second)
    path = tmp_path / "epochs.json"
    path.write_text(json.dumps(log, indent=2))
    first = _imported(cli, tmp_path, path, "inspect", "--judge-version", "judge-v9")
    assert len(first) == 20 and {r["judge_version"] for r in first} == {"judge-v9"}
    r = _run_import(
        cli, path, "inspect", tmp_path / "e2.jsonl", "--epoch", "2", "--rubric", str(RUBRIC)
    )
    assert r.code == 2 and len(r.err.strip().splitlines()) == 1
    line = path.read_text().splitlines()[_line(r.err) - 1]
    assert "field 'samples[4].scores.explains_next_step.value'" in r.err and '"value": "P"' in line
    assert "label 'P' is not on the scale" in r.err and not (tmp_path / "e2.jsonl").exists()
    e2 = _imported(cli, tmp_path, path, "inspect", "--epoch", "2", "--label-map", "P=fail")
    assert len(e2) == 5 and ("explains_next_step", "fail") in {
        (r["criterion"], r["label"]) for r in e2
    }


def _line(err: str) -> int:
    found = re.search(r":(\d+): field", err)
    assert found, err
    return int(found.group(1))


def test_the_promptfoo_example_imports_its_named_assertions(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    rows = _imported(cli, tmp_path, EXAMPLES / "promptfoo_results.json", "promptfoo")
    got = [(r["item"], r["criterion"], r["label"], r["rationale"]) for r in rows]
    assert got == [r for r in _csv_rows() if r[1] in BINARY]  # the is-json assertion left out
    assert {r["judge_version"] for r in rows} == {"promptfoo/eval-Qx7-2026-11-30T10:20:05"}


def test_a_promptfoo_result_without_the_item_var_names_where(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    doc = json.loads((EXAMPLES / "promptfoo_results.json").read_text())
    del doc["results"]["results"][1]["vars"]["item"]
    del doc["results"]["results"][1]["testCase"]["vars"]["item"]
    path = tmp_path / "results.json"
    path.write_text(json.dumps(doc, indent=2))
    r = cli(
        "verdicts", "import", str(path), "--from", "promptfoo", "--out", str(tmp_path / "o.csv")
    )
    assert r.code == 2 and len(r.err.strip().splitlines()) == 1
    assert "field 'results.results[1].vars.item'" in r.err and "var 'item'" in r.err
    assert '"vars"' in path.read_text().splitlines()[_line(r.err) - 1]
    assert not (tmp_path / "o.csv").exists()
    r = cli(
        "verdicts",
        "import",
        str(path),
        "--from",
        "promptfoo",
        "--out",
        str(tmp_path / "o.csv"),
        "--item-from",
        "description",
    )
    assert r.code == 0, r.err


def test_an_imported_row_off_the_rubric_is_refused_and_nothing_written(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    log = json.loads((EXAMPLES / "inspect_log.json").read_text())
    log["samples"][2]["scores"]["tone"] = {"value": "C", "explanation": "polite"}
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log, indent=2))
    out = tmp_path / "v.jsonl"
    r = _run_import(cli, path, "inspect", out, "--rubric", str(RUBRIC))
    assert r.code == 2 and "field 'samples[2].scores.tone'" in r.err
    assert "'tone' is not in rubric" in r.err and not out.exists()
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 's.db'}"}
    gold = ("--gold", str(ROOT / "gold"), "--rubric", str(RUBRIC))
    r = cli("calibrate", "--verdicts", str(path), *gold, env=env, cwd=tmp_path)
    assert r.code == 2 and "samples[2].scores.tone" in r.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log.json"]


def test_a_foreign_file_is_calibrated_as_it_is(cli: Callable[..., Result], tmp_path: Path) -> None:
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 's.db'}"}
    r = cli(
        "calibrate",
        "--verdicts",
        str(EXAMPLES / "inspect_log.json"),
        "--resamples",
        "100",
        "--json",
        "--out",
        str(tmp_path / "report"),
        env=env,
    )
    assert r.code in (0, 1), r.err
    report = json.loads(r.out)
    recorded = report["judge"]["recorded"]
    assert (
        recorded["format"] == "inspect"
        and recorded["judge_version"] == "inspect/refund_comms_judge@3"
    )
    assert recorded["items_with_verdicts"] == 4 and report["judge_outcomes"]["verdict"] == 4
    by = {c["criterion"]: c for c in report["criteria"]}
    assert by["explains_next_step"]["coverage"]["usable"] == 4


def test_an_error_in_an_eval_archive_names_the_member_and_its_line(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    log = json.loads((EXAMPLES / "inspect_log.json").read_text())
    log["samples"][1]["scores"]["overall_clarity"]["value"] = 2.5
    path = _eval_zip(tmp_path, log)
    r = cli("verdicts", "import", str(path), "--from", "inspect", "--out", str(tmp_path / "v.csv"))
    assert r.code == 2 and len(r.err.strip().splitlines()) == 1
    member = "samples/gold-007_epoch_1.json"
    assert f"{path}[{member}]:" in r.err and "field 'scores.overall_clarity.value'" in r.err
    with zipfile.ZipFile(path) as z:
        text = z.read(member).decode()
    assert '"value": 2.5' in text.splitlines()[_line(r.err) - 1]
    assert not (tmp_path / "v.csv").exists()


def test_promptfoo_scores_become_labels_through_the_map(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    rows = _imported(
        cli,
        tmp_path,
        EXAMPLES / "promptfoo_results.json",
        "promptfoo",
        "--label-from",
        "score",
        "--label-map",
        "1=pass,0=fail",
        "--judge-version",
        "pf-v2",
    )
    by_pass = _imported(cli, tmp_path, EXAMPLES / "promptfoo_results.json", "promptfoo")
    assert [(r["item"], r["criterion"], r["label"]) for r in rows] == [
        (r["item"], r["criterion"], r["label"]) for r in by_pass
    ]
    assert {r["judge_version"] for r in rows} == {"pf-v2"}


def test_an_inspect_sample_that_failed_unscored_gives_no_row(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    log = json.loads((EXAMPLES / "inspect_log.json").read_text())
    del log["samples"][3]["scores"]
    log["samples"][3]["error"] = {"message": "RateLimitError: 429", "traceback": ""}
    path = tmp_path / "failed.json"
    path.write_text(json.dumps(log, indent=2))
    rows = _imported(cli, tmp_path, path, "inspect")
    assert len(rows) == 15 and log["samples"][3]["id"] not in {r["item"] for r in rows}
    del log["samples"][3]["error"]
    path.write_text(json.dumps(log, indent=2))
    r = cli("verdicts", "import", str(path), "--from", "inspect", "--out", str(tmp_path / "x.csv"))
    assert r.code == 2 and "field 'samples[3].scores'" in r.err


def test_imported_rows_carry_the_time_the_source_gives_and_none_it_lacks(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    log = json.loads((EXAMPLES / "inspect_log.json").read_text())
    rows = _imported(cli, tmp_path, EXAMPLES / "inspect_log.json", "inspect")
    per_sample = {s["id"]: s["completed_at"] for s in log["samples"]}
    assert [r["judged_at"] for r in rows] == [per_sample[r["item"]] for r in rows]
    # a log whose samples carry no time: the run's end (stats.completed_at), on every row
    for s in log["samples"]:
        del s["started_at"], s["completed_at"]
    path = tmp_path / "untimed.json"
    path.write_text(json.dumps(log, indent=2))
    assert {r["judged_at"] for r in _imported(cli, tmp_path, path, "inspect")} == {
        "2026-11-30T10:13:02+00:00"
    }
    zipped = _imported(cli, tmp_path, _eval_zip(tmp_path, log), "inspect")
    assert {r["judged_at"] for r in zipped} == {"2026-11-30T10:13:02+00:00"}
    # no time anywhere in the log: the column is left empty and the import says so
    del log["stats"], log["eval"]["created"]
    path.write_text(json.dumps(log, indent=2))
    out = tmp_path / "untimed.csv"
    r = _run_import(cli, path, "inspect", out)
    assert r.code == 0, r.err
    assert "note: 20 of 20 verdicts have no judged_at (untimed.json" in r.out
    assert out.read_text().splitlines()[0] == "item,criterion,label,judge_version,rationale"
    # a time that is not one: one line naming the field and its line
    log["samples"][1]["completed_at"] = "yesterday"
    path.write_text(json.dumps(log, indent=2))
    r = _run_import(cli, path, "inspect", out)
    assert r.code == 2 and len(r.err.strip().splitlines()) == 1
    assert "field 'samples[1].completed_at'" in r.err and "ISO 8601" in r.err
    assert '"yesterday"' in path.read_text().splitlines()[_line(r.err) - 1]


def test_promptfoo_rows_carry_the_runs_timestamp(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    rows = _imported(cli, tmp_path, EXAMPLES / "promptfoo_results.json", "promptfoo")
    assert {r["judged_at"] for r in rows} == {"2026-11-30T10:20:05+00:00"}  # results.timestamp
    doc = json.loads((EXAMPLES / "promptfoo_results.json").read_text())
    del doc["results"]["timestamp"]
    path = tmp_path / "results.json"
    path.write_text(json.dumps(doc, indent=2))
    out = tmp_path / "o.jsonl"
    r = _run_import(cli, path, "promptfoo", out)
    assert r.code == 0 and "note: 12 of 12 verdicts have no judged_at" in r.out
    assert not any("judged_at" in json.loads(ln) for ln in out.read_text().splitlines())
