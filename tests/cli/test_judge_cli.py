"""`calibrant judge` against an OpenAI-compatible endpoint: verdicts beside safety verdicts,
and a second identical run makes zero model calls."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.conftest import ROOT, Result
from tests.support.fake_openai import answer_from_schema, fake_openai

EX = ROOT / "examples" / "transcripts"


def test_judge_twice_second_run_is_all_cache(cli: Callable[..., Result], tmp_path: Path) -> None:
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 'store.db'}"}
    n = len(list(EX.glob("*.json")))
    with fake_openai(answer_from_schema(lambda c, labels: labels[0])) as server:
        args = ("judge", str(EX), "--model", "openai/good", "--api-base", server.url, "--json")
        first = cli(*args, env=env)
        assert first.code == 0, first.err
        doc = json.loads(first.out)
        assert doc["judgments"] == n and doc["outcomes"] == {"verdict": n}
        assert doc["model_calls"] == n and doc["from_cache"] == 0
        assert server.requests["good"] == n
        second = cli(*args, env=env)
        doc2 = json.loads(second.out)
        assert doc2["model_calls"] == 0 and doc2["from_cache"] == n
        assert server.requests["good"] == n  # nothing new reached the server
    by_id = {t["transcript_id"]: t for t in doc["transcripts"]}
    dup = by_id["selftest:broken-duplicate-after-timeout"]
    assert "no_duplicate_payment" in dup["safety"]["violated"]
    assert dup["communication"][0]["outcome"] == "verdict"
    assert "score" not in json.dumps(dup)  # nothing merges the two
    assert doc["judge"]["model"] == "openai/good" and doc["rubric"]["hash"].startswith("sha256:")


def test_failures_are_counted_not_dropped(cli: Callable[..., Result], tmp_path: Path) -> None:
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 'store.db'}"}
    with fake_openai(answer_from_schema(lambda c, labels: labels[0])) as server:
        r = cli(
            "judge",
            str(EX / "good-eligible.json"),
            "--model",
            "openai/always-500",
            "--api-base",
            server.url,
            "--max-attempts",
            "2",
            "--json",
            env=env,
        )
        doc = json.loads(r.out)
        assert doc["outcomes"] == {"provider_error": 1} and doc["model_calls"] == 2
        # no item got a verdict: the report is printed, and the exit code says so
        assert r.code == 3 and "no transcript got a verdict" in r.err
        assert "provider_error 1" in r.err and "boom" in r.err  # each kind, a sample message
        # the next run retries a failure (the model never answered)
        r2 = cli(
            "judge",
            str(EX / "good-eligible.json"),
            "--model",
            "openai/always-500",
            "--api-base",
            server.url,
            "--max-attempts",
            "2",
            "--json",
            env=env,
        )
        assert json.loads(r2.out)["model_calls"] == 2 and r2.code == 3
        table = cli(
            "judge",
            str(EX / "good-eligible.json"),
            "--model",
            "openai/always-500",
            "--api-base",
            server.url,
            "--max-attempts",
            "1",
            env=env,
        )
        assert "provider_error" in table.out and table.code == 3
        lines = cli(*args_jsonl(server.url), env=env)
        assert lines.code == 3 and '"provider_error": 1' in lines.out.splitlines()[-1]


def args_jsonl(url: str) -> tuple[str, ...]:
    return (
        "judge",
        str(EX / "good-eligible.json"),
        "--model",
        "openai/always-500",
        "--api-base",
        url,
        "--max-attempts",
        "1",
        "--jsonl",
    )


def test_some_verdicts_and_some_failures_exit_zero(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    """`flaky` fails its first two calls (429, 503), then answers: with one attempt per item
    and one call at a time, two items fail and the third gets a verdict."""
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 'store.db'}"}
    names = ["good-eligible", "broken-false-completion", "broken-duplicate-after-timeout"]
    files = [str(EX / f"{n}.json") for n in names]
    with fake_openai(answer_from_schema(lambda c, labels: labels[0])) as server:
        args = ("--model", "openai/flaky", "--api-base", server.url, "--max-attempts", "1")
        r = cli("judge", *files, *args, "--concurrency", "1", "--json", env=env)
    doc = json.loads(r.out)
    assert doc["outcomes"]["verdict"] == 1 and sum(doc["outcomes"].values()) == 3
    assert r.code == 0, r.err


def test_saved_judge_configuration(cli: Callable[..., Result], tmp_path: Path) -> None:
    judges = tmp_path / "judges"
    judges.mkdir()
    with fake_openai(answer_from_schema(lambda c, labels: labels[0])) as server:
        (judges / "fake.yaml").write_text(
            f"model: openai/good\napi_base: {server.url}\n"
            f"rubric: {ROOT / 'rubrics/refund_communication.yaml'}\n"
        )
        env = {
            "CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 's.db'}",
            "CALIBRANT_JUDGES_DIR": str(judges),
        }
        r = cli("judge", str(EX / "good-eligible.json"), "--judge", "fake", "--json", env=env)
        assert r.code == 0, r.err
        assert json.loads(r.out)["judge"]["api_base"] == server.url
    bad = cli("judge", str(EX / "good-eligible.json"), "--judge", "nope", env=env)
    assert bad.code == 2 and "no saved judge 'nope'" in bad.err
