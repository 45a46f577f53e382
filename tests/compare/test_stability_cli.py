"""`calibrant stability`: one judge sampled k times; a steady judge agrees with itself, a judge
whose answers are coin tosses is flagged."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Result
from tests.support.fake_openai import FakeServer, answer_from_schema, fake_openai
from tests.support.gold import small_gold


@pytest.fixture(scope="module")
def server() -> Any:
    coin = random.Random(1)

    def answer(body: dict[str, Any]) -> str:
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        records = user.split("CONVERSATION")[0]  # the same for every sample of one item
        digest = hashlib.sha256(records.encode()).digest()

        def pick(criterion: str, allowed: list[Any]) -> Any:
            if body["model"] == "shaky":
                return coin.choice(allowed)
            return allowed[(digest[0] + len(criterion)) % len(allowed)]

        return answer_from_schema(pick)(body)

    with fake_openai(answer) as s:
        yield s


def _run(
    cli: Callable[..., Result],
    server: FakeServer,
    tmp_path: Path,
    gold: Path,
    model: str,
    *args: str,
) -> Result:
    return cli(
        "stability",
        "--model",
        f"openai/{model}",
        "--api-base",
        server.url,
        "--gold",
        str(gold),
        "--split",
        "all",
        "--json",
        *args,
        env={"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 's.db'}", "OPENAI_API_KEY": "x"},
    )


def test_a_steady_judge_agrees_with_itself_and_a_coin_tossing_one_is_flagged(
    cli: Callable[..., Result], server: FakeServer, tmp_path: Path
) -> None:
    gold = small_gold(tmp_path / "gold", n=16)
    before = server.requests["steady"]
    r = _run(cli, server, tmp_path, gold, "steady", "-k", "3", "--temperature", "0.7")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert server.requests["steady"] - before == 16 * 3  # k distinct samples per item
    assert doc["samples"] == 3 and doc["items"] == 16 and doc["judge"]["temperature"] == 0.7
    assert doc["warnings"] == []
    defined = [c for c in doc["criteria"] if c["self_agreement"]["estimate"] is not None]
    assert defined
    for c in defined:
        assert c["self_agreement"]["estimate"] == pytest.approx(1.0)
        assert c["items_with_differing_samples"]["value"] == 0
        # an interval needs two cases (issue 18): without one the flag is undefined, not a verdict
        assert c["flag"] == ("stable" if c["self_agreement"]["ci"] else "undefined")
    assert any(c["flag"] == "stable" for c in defined)

    shaky = json.loads(
        _run(cli, server, tmp_path, gold, "shaky", "-k", "4", "--temperature", "1").out
    )
    flags = {c["criterion"]: c["flag"] for c in shaky["criteria"]}
    assert all(
        f == ("UNSTABLE" if c["self_agreement"]["ci"] else "undefined")
        for c, f in zip(shaky["criteria"], flags.values(), strict=True)
    ), flags
    assert "UNSTABLE" in flags.values()
    for c in shaky["criteria"]:
        assert c["items_with_differing_samples"]["value"] > 0.3
        assert c["unstable_items"]


def test_samples_are_stored_and_temperature_zero_is_warned_about(
    cli: Callable[..., Result], server: FakeServer, tmp_path: Path
) -> None:
    gold = small_gold(tmp_path / "gold", n=6)
    assert _run(cli, server, tmp_path, gold, "steady", "-k", "2").code == 0
    before = server.requests["steady"]
    r = _run(cli, server, tmp_path, gold, "steady", "-k", "2")
    assert r.code == 0, r.err
    assert server.requests["steady"] == before  # all 12 answers came from the store
    assert any("temperature is 0" in w for w in json.loads(r.out)["warnings"])


def test_one_sample_is_not_a_stability_measurement(
    cli: Callable[..., Result], server: FakeServer, tmp_path: Path
) -> None:
    r = _run(cli, server, tmp_path, tmp_path, "steady", "-k", "1")
    assert r.code == 2 and "Traceback" not in r.err
