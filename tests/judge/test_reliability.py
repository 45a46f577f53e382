"""Retry budget and outcome taxonomy against a real OpenAI-compatible server on 127.0.0.1
(started by the test) that answers 429 / 500 / slow / malformed / refusal / flaky."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from calibrant.contracts import JudgeConfig
from calibrant.files import load_rubric, load_transcript
from calibrant.judge.client import judge_once
from calibrant.judge.llm_setup import get_litellm
from calibrant.judge.prompt import PROMPT_TEMPLATE_VERSION
from calibrant.judge.reliability import RetryPolicy
from tests.conftest import ROOT
from tests.support.fake_openai import FakeServer, answer_from_schema, fake_openai

RUBRIC = load_rubric(ROOT / "rubrics" / "refund_communication.yaml")
T = load_transcript(ROOT / "examples" / "transcripts" / "good-eligible.json")


def _first(crit: str, labels: list[object]) -> object:
    return labels[-2] if crit != "reports_access_problem" else "not_applicable"


@pytest.fixture(scope="module")
def server() -> Iterator[FakeServer]:
    with fake_openai(answer_from_schema(_first)) as s:
        yield s


def run(server: FakeServer, model: str, *, attempts: int = 3, timeout: float = 5.0):  # type: ignore[no-untyped-def]
    import asyncio

    config = JudgeConfig(
        model=f"openai/{model}",
        api_base=server.url,
        prompt_template_version=PROMPT_TEMPLATE_VERSION,
        rubric_hash=RUBRIC.content_hash,
    )
    policy = RetryPolicy(max_attempts=attempts, timeout_s=timeout, base_wait_s=0.01, max_wait_s=0.2)
    return asyncio.run(
        judge_once(
            T,
            rubric=RUBRIC,
            config=config,
            sample_index=0,
            policy=policy,
            litellm=get_litellm(),
            rng=random.Random(0),
        )
    )


def test_a_good_answer_is_a_verdict_with_accounting(server: FakeServer) -> None:
    j = run(server, "good")
    assert j.outcome == "verdict" and j.attempts == 1
    assert len(j.criteria) == len(RUBRIC.criteria)
    assert (j.input_tokens, j.output_tokens, j.cached_tokens) == (100, 20, 64)
    assert j.latency_ms > 0
    body = server.bodies[-1]
    assert body["temperature"] == 0 and body["messages"][0]["role"] == "system"
    assert body["response_format"]["json_schema"]["schema"]["required"]


def test_429_is_retried_within_the_budget_then_reported(server: FakeServer) -> None:
    before = server.requests["always-429"]
    j = run(server, "always-429", attempts=3)
    assert j.outcome == "rate_limited" and j.attempts == 3
    assert server.requests["always-429"] - before == 3  # exactly the budget, no SDK retries
    assert j.criteria == [] and j.error


def test_500_is_retried_then_provider_error(server: FakeServer) -> None:
    before = server.requests["always-500"]
    j = run(server, "always-500", attempts=2)
    assert j.outcome == "provider_error" and server.requests["always-500"] - before == 2


def test_400_is_not_retried(server: FakeServer) -> None:
    before = server.requests["bad-request"]
    j = run(server, "bad-request", attempts=4)
    assert j.outcome == "provider_error" and j.attempts == 1
    assert server.requests["bad-request"] - before == 1


def test_flaky_server_recovers_honouring_retry_after(server: FakeServer) -> None:
    j = run(server, "flaky", attempts=4)
    assert j.outcome == "verdict" and j.attempts == 3


def test_slow_server_times_out(server: FakeServer) -> None:
    j = run(server, "slow", attempts=2, timeout=0.5)
    assert j.outcome == "timeout" and j.attempts == 2


def test_malformed_output_is_unparseable_not_a_low_score(server: FakeServer) -> None:
    j = run(server, "malformed")
    assert j.outcome == "unparseable" and j.criteria == [] and j.raw
    assert j.attempts == 1


def test_refusal_is_its_own_outcome(server: FakeServer) -> None:
    j = run(server, "refusal")
    assert j.outcome == "refusal" and "can't help" in (j.error or "")


def test_api_key_never_appears_in_outputs(
    monkeypatch: pytest.MonkeyPatch, server: FakeServer
) -> None:
    secret = "sk-test-" + "".join(random.choice("abcdef0123456789") for _ in range(24))
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    for model in ("good", "bad-request", "malformed"):
        j = run(server, model)
        assert secret not in j.model_dump_json()
    assert any(h.get("authorization") == f"Bearer {secret}" for h in server.headers)


def test_a_refused_connection_stops_the_run_naming_the_url_without_retrying() -> None:
    """Nothing listens at port 9: no retry can help and every other call would fail the same
    way, so the call raises the run-stopping error (exit 2 in the CLI) at the first refusal."""
    import asyncio

    from calibrant.errors import JudgeError

    config = JudgeConfig(
        model="openai/x",
        api_base="http://127.0.0.1:9/v1",
        prompt_template_version=PROMPT_TEMPLATE_VERSION,
        rubric_hash=RUBRIC.content_hash,
    )
    calls = 0
    litellm = get_litellm()

    class Counting:
        def __getattr__(self, name: str) -> Any:
            return getattr(litellm, name)

        async def acompletion(self, **kwargs: Any) -> Any:
            nonlocal calls
            calls += 1
            return await litellm.acompletion(**kwargs)

    with pytest.raises(JudgeError) as err:
        asyncio.run(
            judge_once(
                T,
                rubric=RUBRIC,
                config=config,
                sample_index=0,
                policy=RetryPolicy(max_attempts=4, timeout_s=2, base_wait_s=0.01),
                litellm=Counting(),  # type: ignore[arg-type]
                rng=random.Random(0),
            )
        )
    assert calls == 1
    assert "http://127.0.0.1:9/v1" in str(err.value) and "connection refused" in str(err.value)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("model", ["always-401", "always-403"])
def test_refused_credentials_stop_with_the_variable_to_set_and_are_not_retried(
    server: FakeServer, model: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from calibrant.errors import JudgeAuthError

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    before = server.requests[model]
    with pytest.raises(JudgeAuthError) as info:
        run(server, model, attempts=4)
    assert server.requests[model] - before == 1  # never retried
    message = str(info.value)
    assert "'openai'" in message and "OPENAI_API_KEY" in message
    assert "\n" not in message
