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


def test_judge_with_no_verdict_exits_3_and_says_truly_what_a_rerun_retries(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    # unparseable answers are stored (the model responded): a rerun does not ask again, so the
    # stderr line must not promise that it retries them
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 's.db'}"}
    path = str(EX / "good-eligible.json")
    calls = []
    for _ in range(2):
        with fake_openai(answer_from_schema(lambda c, labels: labels[0])) as server:
            r = cli("judge", path, "--model", "openai/malformed", "--api-base", server.url, env=env)
        calls.append(len(server.paths))
        assert r.code == 3, r.err
        line = next(x for x in r.err.splitlines() if "no transcript got a verdict" in x)
        assert "unparseable 1" in line
        assert "a rerun retries the failures" not in line
        assert "not asked again" in line
    assert calls == [1, 0]


def test_the_rerun_note_names_what_is_asked_again_and_what_is_not() -> None:
    from calibrant.cli.judge_commands import rerun_note

    assert rerun_note({"timeout": 2, "provider_error": 1}) == (
        "a rerun retries the provider_error and timeout items"
    )
    assert rerun_note(["refusal", "timeout"]) == (
        "a rerun retries the timeout items; refusal answers are stored and not asked again"
    )
