"""Credentials written into an --api-base URL (user:password@, token query parameters) reach
the endpoint but never an output: not the report, not an error, not the store."""

from __future__ import annotations

import base64
import json
import socket
from collections.abc import Callable
from pathlib import Path

import pytest

from calibrant.contracts import JudgeConfig
from calibrant.contracts.judgment import mask_url, url_secrets
from tests.conftest import ROOT, Result
from tests.support.fake_openai import answer_from_schema, fake_openai

EX = ROOT / "examples" / "transcripts"
USER, PASSWORD, TOKEN = "judgeuser", "s3cretPW-41", "tok3nXYZ-99"


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (f"http://{USER}:{PASSWORD}@host:8000/v1", "http://***:***@host:8000/v1"),
        (f"https://{TOKEN}@host/v1", "https://***@host/v1"),
        (
            f"https://host/v1?api_key={TOKEN}&api-version=2024-06-01",
            "https://host/v1?api_key=***&api-version=2024-06-01",
        ),
        (
            f"https://host/v1?access_token={TOKEN}&sig={PASSWORD}",
            "https://host/v1?access_token=***&sig=***",
        ),
        ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"),
    ],
)
def test_masked_url_keeps_the_endpoint_and_drops_the_credentials(url: str, shown: str) -> None:
    assert mask_url(url) == shown
    assert mask_url(shown) == shown  # masking twice changes nothing (stored configs reload)
    config = JudgeConfig(
        model="openai/x", api_base=url, prompt_template_version="v", rubric_hash="h"
    )
    dumped = config.model_dump_json()
    assert config.api_base == shown and config.endpoint == url
    assert all(s not in dumped for s in (USER, PASSWORD, TOKEN))
    reloaded = JudgeConfig.model_validate_json(dumped)
    assert reloaded.hash == config.hash and reloaded.endpoint == shown


def test_url_secrets_lists_what_to_scrub_from_messages() -> None:
    assert set(url_secrets(f"http://{USER}:{PASSWORD}@h/v1?token={TOKEN}&x=1")) == {
        USER,
        PASSWORD,
        TOKEN,
    }
    assert url_secrets("http://h/v1?x=1") == []


def _store_bytes(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in folder.glob("s.db*"))


def test_credentials_reach_the_endpoint_but_no_output(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 's.db'}"}
    with fake_openai(answer_from_schema(lambda c, labels: labels[0])) as server:
        url = server.url.replace("http://", f"http://{USER}:{PASSWORD}@")
        path = str(EX / "good-eligible.json")
        args = ("judge", path, "--model", "openai/good", "--api-base", url)
        as_json = cli(*args, "--json", env=env)
        other = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 't.db'}"}
        table = cli(*args, env=other)
        assert server.requests["good"] == 2  # the endpoint was called, with the credentials
        basic = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
        assert [h.get("authorization") for h in server.headers] == [basic, basic]
    assert as_json.code == 0 and table.code == 0, as_json.err + table.err
    doc = json.loads(as_json.out)
    assert doc["judge"]["api_base"] == server.url.replace("http://", "http://***:***@")
    assert doc["outcomes"] == {"verdict": 1}
    outputs = (as_json.out + as_json.err + table.out + table.err).encode()
    for secret in (USER, PASSWORD):
        assert secret.encode() not in outputs
        assert secret.encode() not in _store_bytes(tmp_path)
        assert secret.encode() not in (tmp_path / "t.db").read_bytes()


@pytest.mark.parametrize(
    ("credentials", "query"), [(f"{USER}:{PASSWORD}@", ""), ("", f"?api_key={TOKEN}")]
)
def test_credentials_stay_out_of_errors(
    cli: Callable[..., Result], tmp_path: Path, credentials: str, query: str
) -> None:
    with socket.socket() as s:  # a port nothing listens on: every call fails to connect
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    # (one credential per URL: both at once are refused, see below)
    url = f"http://{credentials}127.0.0.1:{port}/v1{query}"
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 's.db'}"}
    r = cli(
        "judge",
        str(EX / "good-eligible.json"),
        "--model",
        "openai/good",
        "--api-base",
        url,
        "--max-attempts",
        "1",
        "--timeout",
        "5",
        "--json",
        env=env,
    )
    text = (r.out + r.err).encode() + _store_bytes(tmp_path)
    for secret in (USER, PASSWORD, TOKEN):
        assert secret.encode() not in text, secret
    # a refused connection stops the run at once, in one line naming the URL, masked
    assert r.code == 2 and r.out == ""
    assert len(r.err.strip().splitlines()) == 1, r.err
    assert mask_url(url) in r.err and "***" in mask_url(url), r.err


@pytest.mark.parametrize("param", ["api_key", "key", "token", "access_token"])
def test_a_key_in_the_query_is_sent_as_a_header_never_in_the_path(
    cli: Callable[..., Result], tmp_path: Path, param: str
) -> None:
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 's.db'}", "OPENAI_API_KEY": ""}
    with fake_openai(answer_from_schema(lambda c, labels: labels[0])) as server:
        url = f"{server.url}?{param}={TOKEN}"
        path = str(EX / "good-eligible.json")
        r = cli("judge", path, "--model", "openai/good", "--api-base", url, "--json", env=env)
    assert r.code == 0, r.err
    assert json.loads(r.out)["outcomes"] == {"verdict": 1}
    assert server.paths == ["/v1/chat/completions"]  # the key is not in the URL
    assert server.headers[0].get("authorization") == f"Bearer {TOKEN}"
    assert TOKEN.encode() not in (r.out + r.err).encode() + _store_bytes(tmp_path)


@pytest.mark.parametrize(
    "query", ["api-version=2024-06-01", f"api_key={TOKEN}&sig={PASSWORD}", "x=1", f"sig={TOKEN}"]
)
def test_a_query_that_cannot_travel_as_a_header_is_refused_in_one_line(
    cli: Callable[..., Result], tmp_path: Path, query: str
) -> None:
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 's.db'}"}
    with fake_openai(answer_from_schema(lambda c, labels: labels[0])) as server:
        url = f"{server.url}?{query}"
        path = str(EX / "good-eligible.json")
        r = cli("judge", path, "--model", "openai/good", "--api-base", url, env=env)
        assert server.paths == []  # refused before any call
    assert r.code == 2 and len(r.err.strip().splitlines()) == 1, r.err
    assert "--api-base" in r.err and "query" in r.err
    assert TOKEN not in r.err and PASSWORD not in r.err
