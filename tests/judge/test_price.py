"""litellm configured for the judge it runs: a `price` in the saved judge's YAML prices its calls;
a model litellm has no price for (a local server's name) is not priced after every call, and
its cost is recorded as unknown, never as 0. Saved judges written before `price` still load.
A real local OpenAI-compatible endpoint (its usage: 100 prompt tokens, 20 completion tokens)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from calibrant.files import load_transcript, load_yaml_model
from calibrant.judge.config import JudgeOptions, SavedJudge, resolve_judge
from calibrant.judge.runner import judge_transcripts
from calibrant.store import Store, make_engine
from tests.conftest import ROOT
from tests.support.fake_openai import FakeServer, answer_from_schema, fake_openai

T = load_transcript(ROOT / "examples" / "transcripts" / "good-eligible.json")
RUBRIC = ROOT / "rubrics" / "refund_communication.yaml"


def _label(criterion: str, allowed: list[Any]) -> Any:
    return "pass" if "pass" in allowed else allowed[0]


@pytest.fixture(scope="module")
def server() -> Iterator[FakeServer]:
    with fake_openai(answer_from_schema(_label)) as s:
        yield s


def _judge(tmp_path: Path, name: str) -> Any:
    config, rubric, policy, _ = resolve_judge(JudgeOptions(judge=name))
    store = Store(make_engine(f"sqlite:///{tmp_path / 'store.db'}"))
    run = judge_transcripts([T], rubric=rubric, config=config, store=store, policy=policy)
    return run.judgments[0]


def test_a_price_in_the_judge_yaml_prices_its_calls(
    server: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    judges = tmp_path / "judges"
    judges.mkdir()
    (judges / "priced.yaml").write_text(
        f"model: openai/priced-local\napi_base: {server.url}\nrubric: {RUBRIC}\n"
        "price:\n  input_usd_per_mtok: 2.0\n  output_usd_per_mtok: 10.0\n"
    )
    monkeypatch.setenv("CALIBRANT_JUDGES_DIR", str(judges))
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    j = _judge(tmp_path, "priced")
    assert j.outcome == "verdict"
    assert (j.input_tokens, j.output_tokens) == (100, 20)
    assert j.cost_usd == pytest.approx(100 * 2.0e-6 + 20 * 10.0e-6)


def test_an_unpriced_local_model_costs_unknown_not_zero(
    server: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    judges = tmp_path / "judges"
    judges.mkdir()
    (judges / "local.yaml").write_text(
        f"model: openai/unpriced-local\napi_base: {server.url}\nrubric: {RUBRIC}\n"
    )
    monkeypatch.setenv("CALIBRANT_JUDGES_DIR", str(judges))
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    j = _judge(tmp_path, "local")
    assert j.outcome == "verdict" and j.input_tokens == 100
    assert j.cost_usd is None


def test_saved_judges_without_a_price_still_load() -> None:
    for path in sorted((ROOT / "judges").glob("*.yaml")):
        saved = load_yaml_model(SavedJudge, path, "saved judge")
        assert saved.price is None, path


def test_a_bad_price_is_one_line_naming_the_file_and_field(tmp_path: Path) -> None:
    from calibrant.errors import InputError

    path = tmp_path / "bad.yaml"
    path.write_text("model: openai/x\nprice:\n  input_usd_per_mtok: -1\n  output_usd_per_mtok: 1\n")
    with pytest.raises(InputError) as err:
        load_yaml_model(SavedJudge, path, "saved judge")
    assert str(path) in str(err.value) and "input_usd_per_mtok" in str(err.value)
    assert "\n" not in str(err.value)
