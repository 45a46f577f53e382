"""Outside audit of `--api-base ...?api_key=` (issue 19): the key either travels as a header or
the URL is refused in one line before any call, never a run of provider errors."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import ROOT, Result
from tests.support.fake_openai import answer_from_schema, fake_openai

EX = ROOT / "examples" / "transcripts"


@pytest.mark.parametrize("query", ["api_key=", "token=&"])
def test_an_empty_key_in_the_query_is_refused_in_one_line(
    cli: Callable[..., Result], tmp_path: Path, query: str
) -> None:
    # `--api-base "$BASE?api_key=$KEY"` with KEY unset: every item used to end as a
    # provider_error ("Missing credentials"), exit 3, with the endpoint never called
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 's.db'}", "OPENAI_API_KEY": ""}
    with fake_openai(answer_from_schema(lambda c, labels: labels[0])) as server:
        url = f"{server.url}?{query}"
        path = str(EX / "good-eligible.json")
        r = cli("judge", path, "--model", "openai/good", "--api-base", url, env=env)
        assert server.paths == []
    assert r.code == 2 and len(r.err.strip().splitlines()) == 1, r.err
    assert "--api-base" in r.err and "empty" in r.err


def test_a_key_with_escaped_characters_travels_decoded_as_a_header(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 's.db'}", "OPENAI_API_KEY": ""}
    with fake_openai(answer_from_schema(lambda c, labels: labels[0])) as server:
        url = f"{server.url}/?API_KEY=a%2Bb%2Fc#frag"  # trailing slash, upper case, fragment
        path = str(EX / "good-eligible.json")
        r = cli("judge", path, "--model", "openai/good", "--api-base", url, env=env)
    assert r.code == 0, r.err
    assert server.paths == ["/v1/chat/completions"]
    assert server.headers[0].get("authorization") == "Bearer a+b/c"
