"""Domains are never mixed in one run: check (transcript vs its case), judge, score and batch
export (transcripts vs the rubric), calibrate, probe and compare (gold manifest and transcripts
vs the rubric) refuse in one line naming the file and both domains, exit 2, before any model
call, with no run recorded."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT, Result
from tests.support.domains import case_of_domain, transcript_of_domain
from tests.support.gold import small_gold

TRANSCRIPT = ROOT / "gold" / "transcripts" / "gold-001.json"
NOWHERE = ("--model", "openai/house", "--api-base", "http://127.0.0.1:9")  # never called


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 'store.db'}", "OPENAI_API_KEY": "x"}


def tours_copy(src: Path, dest: Path) -> Path:
    """`src` (a case or rubric YAML) as a file of domain tours (a case in the generic form)."""
    data = yaml.safe_load(src.read_text(encoding="utf-8"))
    data = case_of_domain(data, "tours") if "fixture" in data else {**data, "domain": "tours"}
    dest.write_text(yaml.safe_dump(data), encoding="utf-8")
    return dest


def tours_transcript(src: Path, dest: Path) -> Path:
    data = json.loads(src.read_text(encoding="utf-8"))
    dest.write_text(json.dumps(transcript_of_domain(data, "tours")), encoding="utf-8")
    return dest


def refused(r: Result, path: Path, found: str, expected: str, of: str) -> None:
    assert r.code == 2, (r.out, r.err)
    assert r.out == ""  # nothing printed (nor written) before the refusal
    (line,) = r.err.strip().splitlines()
    assert line == (
        f"calibrant: error: {path}: field 'domain': domain '{found}', but {of} is domain "
        f"'{expected}'; calibrant does not mix domains in one run"
    )


def no_run(cli: Callable[..., Result], env: dict[str, str]) -> None:
    assert json.loads(cli("runs", "list", "--json", env=env).out) == []


def test_check_refuses_a_transcript_of_another_domain_than_its_case(
    cli: Callable[..., Result], env: dict[str, str], tmp_path: Path
) -> None:
    case = tours_copy(ROOT / "cases" / "policy_in_customer_note.yaml", tmp_path / "case.yaml")
    for fmt in ((), ("--json",), ("--jsonl",)):
        r = cli("check", str(TRANSCRIPT), "--case", str(case), *fmt, env=env)
        refused(r, TRANSCRIPT, "refunds", "tours", f"case {case}")
    # the other way round: a tours transcript against a refunds case
    tours = tours_transcript(TRANSCRIPT, tmp_path / "t.json")
    ok_case = ROOT / "cases" / "policy_in_customer_note.yaml"
    r = cli("check", str(tours), "--case", str(ok_case), env=env)
    refused(r, tours, "tours", "refunds", f"case {ok_case}")
    no_run(cli, env)
    # the same transcript against its own domain's case is checked as before
    assert cli("check", str(TRANSCRIPT), "--json", env=env).code == 0


def test_judge_and_score_refuse_transcripts_of_another_domain_than_the_rubric(
    cli: Callable[..., Result], env: dict[str, str], tmp_path: Path
) -> None:
    rubric = tours_copy(ROOT / "rubrics" / "refund_communication.yaml", tmp_path / "r.yaml")
    of = "rubric 'refund_communication'"
    args = (str(TRANSCRIPT), *NOWHERE, "--rubric", str(rubric))
    refused(cli("judge", *args, "--json", env=env), TRANSCRIPT, "refunds", "tours", of)
    refused(cli("judge", *args, "--jsonl", env=env), TRANSCRIPT, "refunds", "tours", of)
    refused(cli("score", *args, "--json", env=env), TRANSCRIPT, "refunds", "tours", of)
    out = tmp_path / "requests.jsonl"
    exported = cli("batch", "export", *args, "--out", str(out), env=env)
    refused(exported, TRANSCRIPT, "refunds", "tours", of)
    assert not out.exists()
    # read once, the file is known to the store: its domain is still checked on the next run
    tours = tours_transcript(TRANSCRIPT, tmp_path / "t.json")
    folder = tmp_path / "inbox"
    folder.mkdir()
    shutil.copy(tours, folder / "t.json")
    shutil.copy(TRANSCRIPT, folder / "u.json")
    for _ in range(2):
        r = cli("score", str(folder), *NOWHERE, "--rubric", str(rubric), env=env)
        refused(r, folder / "u.json", "refunds", "tours", of)
    no_run(cli, env)


def test_calibrate_probe_and_compare_refuse_a_gold_set_of_another_domain_than_the_rubric(
    cli: Callable[..., Result], env: dict[str, str], tmp_path: Path
) -> None:
    gold = small_gold(tmp_path / "gold", n=4)
    rubric = tours_copy(ROOT / "rubrics" / "refund_communication.yaml", tmp_path / "r.yaml")
    of = "rubric 'refund_communication'"
    args = ("calibrate", "--gold", str(gold), "--split", "all", *NOWHERE)
    manifest = gold / "manifest.yaml"
    r = cli(*args, "--rubric", str(rubric), "--json", env=env)
    refused(r, manifest, "refunds", "tours", of)
    # probe and compare read the gold set with a rubric too
    probe = ("probe", "--gold", str(gold), "--split", "all", *NOWHERE, "--rubric", str(rubric))
    refused(cli(*probe, env=env), manifest, "refunds", "tours", of)
    judges = tmp_path / "judges"
    judges.mkdir()
    for name in ("a", "b"):
        (judges / f"{name}.yaml").write_text(
            f"model: openai/{name}\napi_base: http://127.0.0.1:9\nrubric: {rubric}\n"
        )
    compare = ("compare", "a", "b", "--gold", str(gold), "--split", "all")
    r = cli(*compare, env={**env, "CALIBRANT_JUDGES_DIR": str(judges)})
    refused(r, manifest, "refunds", "tours", of)
    # a manifest of another domain than the (refunds) rubric
    items = yaml.safe_load(manifest.read_text())
    manifest.write_text(yaml.safe_dump({k: {**v, "domain": "tours"} for k, v in items.items()}))
    refused(cli(*args, env=env), manifest, "tours", "refunds", of)
    # the manifest agrees with the rubric but a transcript does not
    first = sorted(items)[0]
    manifest.write_text(yaml.safe_dump(items))
    path = gold / "transcripts" / f"{first}.json"
    tours_transcript(path, path)
    refused(cli(*args, env=env), path, "tours", "refunds", of)
    no_run(cli, env)
    assert not (tmp_path / "reports").exists() and not (ROOT / "reports" / "x").exists()
