"""Issue 30 item 8: a model string no call can succeed with stops the run in one line before a
second call, instead of a report of nothing but provider errors and litellm's paragraph (exit 3):
`--model gpt4o` (no provider, the commonest newcomer slip) before any call, naming the nearest
valid model strings; a model the endpoint does not have (404) at the first answer. The real
command line run to its end; a real OpenAI-compatible server on a thread."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from calibrant.judge.llm_setup import get_litellm
from calibrant.judge.model_names import nearest_models
from tests.conftest import ROOT
from tests.support.cli import Result
from tests.support.fake_openai import answer_from_schema, fake_openai
from tests.support.gold import small_gold

Cli = Callable[..., Result]


def _lines(r: Result) -> list[str]:
    return [x for x in r.err.splitlines() if x.strip()]


@pytest.mark.parametrize("with_endpoint", [False, True])
def test_a_model_without_a_provider_stops_before_any_call_naming_the_nearest(
    cli: Cli, tmp_path: Path, with_endpoint: bool
) -> None:
    gold = small_gold(tmp_path / "gold", 4)
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 's.db'}"}
    with fake_openai(answer_from_schema(lambda c, labels: labels[0])) as server:
        endpoint = ("--api-base", server.url) if with_endpoint else ()
        r = cli(
            "calibrate", "--gold", str(gold), "--split", "all", "--model", "gpt4o", *endpoint,
            "--out", str(tmp_path / "report"), env=env,
        )  # fmt: skip
        assert server.paths == []  # not one call
    assert r.code == 2, (r.code, r.out[-500:], r.err[-2000:])
    assert r.out == "" and "Traceback" not in r.err
    [said] = _lines(r)
    assert said.startswith("calibrant: error: the judge's model 'gpt4o' names no provider")
    assert "openai/gpt-4o" in said
    assert not (tmp_path / "report").exists()


def test_the_nearest_model_strings_are_routable_and_near() -> None:
    litellm = get_litellm()
    near = nearest_models(litellm, "gpt4o")
    assert near[0] == "openai/gpt-4o", near
    for model in near:
        litellm.get_llm_provider(model=model)  # each can be called as written
    assert nearest_models(litellm, "no-model-is-named-anything-like-this-zzzz") == []


def test_a_model_the_endpoint_does_not_have_stops_at_the_first_answer(
    cli: Cli, tmp_path: Path
) -> None:
    """A 404 (no such model, or no chat completions at that address) is asked once: no retry,
    no second item (one call at a time here), one line naming the model and the address."""
    items = tmp_path / "items"
    items.mkdir()
    for k in range(4):
        doc = (ROOT / "examples" / "transcripts" / "good-eligible.json").read_text()
        (items / f"{k}.json").write_text(
            doc.replace('"transcript_id": "', f'"transcript_id": "{k}-', 1)
        )
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 's.db'}", "OPENAI_API_KEY": "x"}
    with fake_openai(answer_from_schema(lambda c, labels: labels[0])) as server:
        url = f"{server.url}/nowhere"  # the server answers 404 there
        r = cli(
            "judge", str(items), "--model", "openai/gpt4o", "--api-base", url,
            "--concurrency", "1", "--max-attempts", "4",
            "--rubric", str(ROOT / "rubrics" / "refund_communication.yaml"), env=env,
        )  # fmt: skip
        calls = len(server.paths)
    assert r.code == 2, (r.code, r.out[-500:], r.err[-2000:])
    assert calls == 1, server.paths
    [said] = _lines(r)
    assert f"the server at {url} has no model 'gpt4o'" in said and "(404)" in said
