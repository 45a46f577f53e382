"""Provenance in the store: calibrations, scoring batches and comparisons are runs with who,
when, which judge version and their report; `score` finds this judge version's latest
calibration there, and `judges list` shows it."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, Result
from tests.support.fake_openai import FakeServer, answer_from_schema, fake_openai
from tests.support.gold import small_gold


@pytest.fixture(scope="module")
def server() -> Any:
    def pick(criterion: str, allowed: list[Any]) -> Any:
        return allowed[len(criterion) % len(allowed)]

    with fake_openai(answer_from_schema(pick)) as s:
        yield s


def test_a_calibration_is_recorded_and_used_by_the_next_score(
    cli: Callable[..., Result], server: FakeServer, tmp_path: Path
) -> None:
    judges = tmp_path / "judges"
    judges.mkdir()
    (judges / "house.yaml").write_text(
        f"model: openai/house\napi_base: {server.url}\nrubric: rubrics/refund_communication.yaml\n"
    )
    env = {
        "CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 'store.db'}",
        "CALIBRANT_JUDGES_DIR": str(judges),
        "OPENAI_API_KEY": "x",
    }
    listed = json.loads(cli("judges", "list", "--json", env=env).out)
    assert listed[0]["name"] == "house" and listed[0]["latest_calibration"] is None

    gold = small_gold(tmp_path / "gold", n=10)
    r = cli(
        "calibrate", "--judge", "house", "--gold", str(gold), "--split", "all", "--json", env=env
    )
    assert r.code in (0, 1), r.err
    cal_run = json.loads(r.out)["run_id"]

    listed = json.loads(cli("judges", "list", "--json", env=env).out)
    latest = listed[0]["latest_calibration"]
    assert latest["run_id"] == cal_run and latest["split"] == "all" and latest["n_items"] == 10

    inbox = tmp_path / "inbox"
    inbox.mkdir()
    shutil.copy(ROOT / "examples" / "transcripts" / "good-eligible.json", inbox)
    # without --calibration nothing corrects; the warning names the calibration available
    r = cli("score", str(inbox), "--judge", "house", "--json", env=env)
    assert r.code == 0, r.err
    plain = json.loads(r.out)
    assert plain["calibration"] is None
    assert all(c.get("pass_rate_corrected") is None for c in plain["criteria"])
    warning = next(w for w in plain["warnings"] if "no calibration given" in w)
    assert cal_run in warning and "--calibration latest" in warning
    shown = cli("score", str(inbox), "--judge", "house", env=env)
    assert "Calibration: none given; pass rates are as judged" in shown.out

    r = cli("score", str(inbox), "--judge", "house", "--calibration", "latest", "--json", env=env)
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert doc["calibration"]["source"] == f"store: calibrate run {cal_run}"
    assert doc["calibration"]["run_id"] == cal_run and doc["calibration"]["n_items"] == 10
    assert not any("no calibration" in w for w in doc["warnings"])
    by_id = cli("score", str(inbox), "--judge", "house", "--calibration", cal_run[:10], env=env)
    assert by_id.code == 0, by_id.err
    assert f"Calibration: store: calibrate run {cal_run}, split all, 10 items" in " ".join(
        by_id.out.split()
    )
    nothing = cli("score", str(inbox), "--judge", "house", "--calibration", "nope", env=env)
    assert nothing.code == 2 and "no such file and no finished calibrate run 'nope'" in nothing.err

    runs = json.loads(cli("runs", "list", "--json", env=env).out)
    assert [x["kind"] for x in runs] == ["score"] * 4 + ["calibrate"]
    assert all(x["status"] == "finished" and "@" in x["who"] for x in runs)
    assert runs[0]["judge_hash"] == listed[0]["hash"]
    shown = json.loads(cli("runs", "show", doc["run_id"][:10], "--json", env=env).out)
    assert shown["kind"] == "score" and shown["report"]["transcripts"] == 1
    assert shown["judge"]["model"] == "openai/house"
    assert shown["sampling"]["temperature"] == 0.0
    assert shown["arguments"]["transcripts"] == 1
    read = cli("runs", "show", doc["run_id"][:10], env=env)
    assert read.code == 0, read.err
    text = " ".join(read.out.split())
    assert f"run {doc['run_id']} (score, finished)" in text
    assert f"judge openai/house ({listed[0]['hash']})" in text
    assert "transcripts: 1" in text and '"transcripts"' not in read.out  # in words, not JSON
    assert f"calibrant runs show {doc['run_id']} --json" in text
    missing = cli("runs", "show", "zzzz", env=env)
    assert missing.code == 2 and "no run" in missing.err


def test_a_calibration_of_another_judge_version_is_not_used(
    cli: Callable[..., Result], server: FakeServer, tmp_path: Path
) -> None:
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 'store.db'}", "OPENAI_API_KEY": "x"}
    gold = small_gold(tmp_path / "gold", n=6)
    judge = ("--model", "openai/house", "--api-base", server.url)
    assert cli("calibrate", *judge, "--gold", str(gold), "--split", "all", env=env).code in (0, 1)
    r = cli(
        "score",
        str(ROOT / "examples" / "transcripts" / "good-eligible.json"),
        "--model",
        "openai/other",
        "--api-base",
        server.url,
        "--json",
        env=env,
    )
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert doc["calibration"] is None
    assert any("no calibration of this judge version is in the store" in w for w in doc["warnings"])
    # `latest` means this judge version's latest: another version's calibration is not taken
    r = cli(
        "score",
        str(ROOT / "examples" / "transcripts" / "good-eligible.json"),
        "--model",
        "openai/other",
        "--api-base",
        server.url,
        "--calibration",
        "latest",
        env=env,
    )
    assert r.code == 2 and "no finished calibration of this judge version" in r.err


def test_judges_list_shows_each_versions_latest_probe_run_or_none(
    cli: Callable[..., Result], server: FakeServer, tmp_path: Path
) -> None:
    judges = tmp_path / "judges"
    judges.mkdir()
    for name in ("probed", "unprobed"):
        (judges / f"{name}.yaml").write_text(
            f"model: openai/{name}\napi_base: {server.url}\n"
            "rubric: rubrics/refund_communication.yaml\n"
        )
    env = {
        "CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 'store.db'}",
        "CALIBRANT_JUDGES_DIR": str(judges),
        "OPENAI_API_KEY": "x",
    }
    gold = small_gold(tmp_path / "gold", n=8)
    probe = (
        "probe", "--judge", "probed", "--gold", str(gold), "--split", "all",
        "--probes", "injection", "--families", "completion", "--channels", "agent",
        "--defenses", "on", "--min-items", "5", "--json",
    )  # fmt: skip
    r = cli(*probe, env=env)
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    inj = doc["probes"]["injection"]
    success = inj["prompts"]["defended"]["families"]["completion"]["agent"]
    success = success["attack_success_rate"]

    listed = {j["name"]: j for j in json.loads(cli("judges", "list", "--json", env=env).out)}
    latest = listed["probed"]["latest_probe"]
    assert latest["run_id"] == doc["run_id"] and latest["finished_at"]
    assert latest["split"] == "all" and latest["flags"] == doc["flags"]
    assert latest["injection_gate"] == inj["gate"]["status"]
    assert latest["highest_attack_success"] == {
        "family": "completion",
        "channel": "agent",
        "rate": success,
    }
    assert listed["unprobed"]["latest_probe"] is None

    # wide enough for the whole cell on one line ("injection UNDECIDED": the small gold set has
    # too few cases for the gate to decide)
    table = cli("judges", "list", env={**env, "COLUMNS": "260"})
    assert table.code == 0, table.err
    assert "latest probe" in table.out
    [probed] = [x for x in table.out.splitlines() if "probed" in x and "unprobed" not in x]
    [unprobed] = [x for x in table.out.splitlines() if "unprobed" in x]
    pct = f"{success['value']:.0%}"
    assert f"injection {inj['gate']['status']}" in probed, table.out
    assert f"completion/agent {pct}" in probed and "n=" in probed, table.out
    assert "no flag" in probed and probed.count("none") == 1, table.out  # never calibrated
    assert unprobed.count("none") == 2, table.out  # neither calibrated nor probed


def test_a_misspelt_kind_is_refused_in_one_line_not_answered_with_an_empty_list(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 'store.db'}"}
    typo = cli("runs", "list", "--kind", "calibration", env=env)
    assert typo.code == 2, typo.out
    lines = typo.err.strip().splitlines()
    assert len(lines) == 1 and "--kind" in lines[0] and "calibration" in lines[0]
    assert "calibrate" in lines[0] and "probe" in lines[0]  # what it could have been
    assert cli("runs", "list", "--kind", "batch", env=env).code == 0
