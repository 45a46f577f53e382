"""`calibrant batch export` / `batch ingest`: pending judge requests as OpenAI batch JSON Lines,
run elsewhere (here: posted one by one to a local OpenAI-compatible server, as `vllm run-batch`
would), and the results stored back idempotently."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import ROOT, Result
from tests.support.fake_openai import FakeServer, answer_from_schema, fake_openai

EXAMPLES = ROOT / "examples" / "transcripts"


@pytest.fixture(scope="module")
def server() -> Any:
    with fake_openai(answer_from_schema(lambda c, allowed: allowed[-1])) as s:
        yield s


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    folder = tmp_path / "in"
    folder.mkdir()
    for f in sorted(EXAMPLES.glob("*.json"))[:5]:
        shutil.copy(f, folder / f.name)
    return folder


def _run_batch(server: FakeServer, requests: Path, results: Path, *, fail: int = 0) -> None:
    """What a batch runner does: post each body, write one output line per request."""
    out = []
    with httpx.Client(base_url=server.url.removesuffix("/v1")) as client:
        for n, line in enumerate(requests.read_text().splitlines()):
            req = json.loads(line)
            if n < fail:
                out.append(
                    {
                        "id": f"r{n}",
                        "custom_id": req["custom_id"],
                        "response": None,
                        "error": {"code": "server_error", "message": "worker lost"},
                    }
                )
                continue
            resp = client.post(req["url"], json=req["body"])
            out.append(
                {
                    "id": f"r{n}",
                    "custom_id": req["custom_id"],
                    "error": None,
                    "response": {"status_code": resp.status_code, "body": resp.json()},
                }
            )
    results.write_text("".join(json.dumps(r) + "\n" for r in out))


def test_export_run_elsewhere_ingest_then_score_makes_no_call(
    cli: Callable[..., Result], server: FakeServer, inputs: Path, tmp_path: Path
) -> None:
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 's.db'}", "OPENAI_API_KEY": "x"}
    judge = ("--model", "openai/batched", "--api-base", server.url)
    requests, results = tmp_path / "requests.jsonl", tmp_path / "results.jsonl"
    r = cli("batch", "export", str(inputs), *judge, "--out", str(requests), env=env)
    assert r.code == 0, r.err
    lines = [json.loads(x) for x in requests.read_text().splitlines()]
    assert len(lines) == 5 and server.requests["batched"] == 0
    first = lines[0]
    assert first["method"] == "POST" and first["url"] == "/v1/chat/completions"
    assert first["body"]["model"] == "batched"
    assert first["body"]["response_format"]["type"] == "json_schema"
    assert len({x["custom_id"] for x in lines}) == 5

    _run_batch(server, requests, results, fail=1)
    r = cli("batch", "ingest", str(results), str(inputs), *judge, "--json", env=env)
    assert r.code == 0, r.err
    assert json.loads(r.out) == {
        "stored": 4,
        "already_stored": 0,
        "failed": 1,
        "outcomes": {"verdict": 4, "provider_error": 1},  # "worker lost": server_error
    }
    again = cli("batch", "ingest", str(results), str(inputs), *judge, "--json", env=env)
    assert json.loads(again.out) == {
        "stored": 0,
        "already_stored": 4,
        "failed": 1,
        "outcomes": {"provider_error": 1},
    }

    # only the failed request is pending now
    r = cli("batch", "export", str(inputs), *judge, "--out", str(requests), env=env)
    assert r.code == 0 and len(requests.read_text().splitlines()) == 1
    calls = server.requests["batched"]
    r = cli("score", str(inputs), *judge, "--json", env=env)
    assert r.code in (0, 1), r.err
    assert server.requests["batched"] - calls == 1  # the four ingested answers were reused
    assert json.loads(r.out)["from_cache"] == 4


def test_results_of_another_judge_or_unknown_ids_are_refused_whole(
    cli: Callable[..., Result], server: FakeServer, inputs: Path, tmp_path: Path
) -> None:
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 's.db'}", "OPENAI_API_KEY": "x"}
    judge = ("--model", "openai/batched", "--api-base", server.url)
    requests, results = tmp_path / "requests.jsonl", tmp_path / "results.jsonl"
    assert cli("batch", "export", str(inputs), *judge, "--out", str(requests), env=env).code == 0
    _run_batch(server, requests, results)
    rows = results.read_text().splitlines()
    bad = json.loads(rows[2])
    th, _, s = bad["custom_id"].split("|")
    bad["custom_id"] = f"{th}|sha256:{'0' * 64}|{s}"
    rows[2] = json.dumps(bad)
    results.write_text("\n".join(rows) + "\n")
    r = cli("batch", "ingest", str(results), str(inputs), *judge, env=env)
    assert r.code == 2 and f"{results}:3" in r.err and "custom_id" in r.err
    r = cli("batch", "export", str(inputs), *judge, "--out", str(requests), env=env)
    assert len(requests.read_text().splitlines()) == 5  # nothing was stored

    rows[2] = "not json"
    results.write_text("\n".join(rows) + "\n")
    r = cli("batch", "ingest", str(results), str(inputs), *judge, env=env)
    assert r.code == 2 and f"{results}:3" in r.err
