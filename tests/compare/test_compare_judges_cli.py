"""`calibrant compare A B`: two saved judge versions on the same gold items, against a local
OpenAI-compatible endpoint where one judge answers like the experts and the other does not."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT, Result
from tests.support.fake_openai import FakeServer, answer_from_schema, fake_openai

GOLD = ROOT / "gold"
CRITERIA = {
    "separates_done_from_pending": ["fail", "pass"],
    "explains_next_step": ["fail", "pass"],
    "no_claim_before_confirmed": ["fail", "pass"],
    "reports_access_problem": ["fail", "pass", "not_applicable"],
    "overall_clarity": [1, 2, 3, 4],
}


def _agent_texts(path: Path) -> tuple[str, ...]:
    t = json.loads(path.read_text())
    return tuple(sorted(turn["text"] for turn in t["conversation"] if turn["role"] == "agent"))


def _label(texts: tuple[str, ...], criterion: str) -> Any:
    """The 'experts' label: a fixed function of what the agent wrote, so a judge that sees the
    same text can give the same label."""
    digest = hashlib.sha256(("|".join(texts) + criterion).encode()).digest()
    allowed = CRITERIA[criterion]
    return allowed[digest[0] % len(allowed)]


def _cut(manifest: dict[str, Any], cases: int = 40, each: int = 2) -> dict[str, Any]:
    """A fixed cut of the shipped gold set: the first `each` items of the first `cases` cases
    (by case id), so the tests' cost does not grow with the gold set."""
    by_case: dict[str, list[str]] = {}
    for item in sorted(manifest):
        by_case.setdefault(manifest[item]["case"], []).append(item)
    keep = [i for c in sorted(by_case)[:cases] for i in by_case[c][:each]]
    return {i: manifest[i] for i in keep}


@pytest.fixture(scope="module")
def gold(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fixed cut of the shipped gold transcripts and manifest (`_cut`: 80 items of 40
    cases), labeled by `_label`."""
    dest = tmp_path_factory.mktemp("gold")
    manifest = _cut(yaml.safe_load((GOLD / "manifest.yaml").read_text()))
    (dest / "transcripts").mkdir()
    for item in manifest:
        shutil.copy(GOLD / "transcripts" / f"{item}.json", dest / "transcripts")
    (dest / "manifest.yaml").write_text(yaml.safe_dump(manifest))
    (dest / "labels").mkdir()
    rows = [
        {
            "item": item,
            "criterion": c,
            "label": _label(_agent_texts(dest / "transcripts" / f"{item}.json"), c),
        }
        for item in sorted(manifest)
        for c in CRITERIA
    ]
    for rater in ("consensus", "rater_a", "rater_b"):
        (dest / "labels" / f"{rater}.jsonl").write_text(
            "".join(json.dumps({**r, "rater": rater}) + "\n" for r in rows)
        )
    return dest


@pytest.fixture(scope="module")
def server(gold: Path) -> Any:
    known = {_agent_texts(p) for p in (gold / "transcripts").glob("*.json")}

    def answer(body: dict[str, Any]) -> str:
        prompt = json.dumps(body["messages"])
        found = [t for t in known if all(json.dumps(x)[1:-1] in prompt for x in t)]
        texts = max(found, key=lambda t: (len(t), sum(map(len, t)))) if found else None

        def pick(criterion: str, allowed: list[Any]) -> Any:
            if body["model"] == "expert-like" and texts is not None:
                return _label(texts, criterion)
            return allowed[0]

        return answer_from_schema(pick)(body)

    with fake_openai(answer) as s:
        yield s


@pytest.fixture
def judges(tmp_path: Path, server: FakeServer) -> dict[str, str]:
    folder = tmp_path / "judges"
    folder.mkdir()
    for name, model in (
        ("plain", "always-first"),
        ("tuned", "expert-like"),
        ("tuned2", "expert-like"),
    ):
        (folder / f"{name}.yaml").write_text(
            f"model: openai/{model}\napi_base: {server.url}\n"
            "rubric: rubrics/refund_communication.yaml\nconcurrency: 8\nmax_attempts: 1\n"
        )
    (folder / "broken.yaml").write_text(  # every call fails: nothing to compare
        f"model: openai/always-500\napi_base: {server.url}\n"
        "rubric: rubrics/refund_communication.yaml\nconcurrency: 8\nmax_attempts: 1\n"
    )
    (folder / "other-rubric.yaml").write_text(
        f"model: openai/expert-like\napi_base: {server.url}\nrubric: {tmp_path / 'r.yaml'}\n"
    )
    text = (ROOT / "rubrics" / "refund_communication.yaml").read_text()
    other = re.sub(r'(?m)^version: "[^"]+"$', 'version: "0.9-other"', text, count=1)
    assert other != text  # another rubric (another hash), whatever version ships
    (tmp_path / "r.yaml").write_text(other)
    return {
        "CALIBRANT_JUDGES_DIR": str(folder),
        "CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 'store.db'}",
        "LITELLM_API_KEY": "x",
        "OPENAI_API_KEY": "x",
    }


def _doc(r: Result) -> dict[str, Any]:
    assert r.code in (0, 1), r.err
    return json.loads(r.out)


def test_a_judge_that_answers_like_the_experts_is_called_better(
    cli: Callable[..., Result], gold: Path, judges: dict[str, str], server: FakeServer
) -> None:
    doc = _doc(
        cli(
            "compare", "plain", "tuned", "--split", "all", "--gold", str(gold), "--json", env=judges
        )
    )
    assert doc["judges"]["a"]["name"] == "plain" and doc["judges"]["b"]["name"] == "tuned"
    assert doc["judges"]["a"]["hash"] != doc["judges"]["b"]["hash"]
    by = {c["criterion"]: c for c in doc["criteria"]}
    sep = by["separates_done_from_pending"]
    assert sep["kappa_b"] == pytest.approx(1.0)
    assert sep["decision"] == "B better"
    assert sep["ci95"][0] > 0
    assert sep["mcnemar"]["b_only_right"] > 0 and sep["mcnemar"]["a_only_right"] == 0
    assert all(f["direction"] == "improvement" for f in sep["flips"])
    assert sep["flips"] and sep["flips"][0]["rationale_b"]
    assert doc["overall"] in ("B better", "mixed: B better on some criteria, undecided on the rest")


def test_the_reverse_is_worse_lists_regressions_and_fails_when_asked(
    cli: Callable[..., Result], gold: Path, judges: dict[str, str]
) -> None:
    r = cli(
        "compare",
        "tuned",
        "plain",
        "--split",
        "all",
        "--gold",
        str(gold),
        "--fail-if-worse",
        env=judges,
    )
    assert r.code == 1, r.err
    assert "B worse" in r.out and "Regressions on" in r.out


def test_two_names_for_one_judge_version_share_answers_and_differ_in_nothing(
    cli: Callable[..., Result], gold: Path, judges: dict[str, str], server: FakeServer
) -> None:
    before = server.requests["expert-like"]
    first = _doc(
        cli(
            "compare",
            "tuned",
            "tuned2",
            "--split",
            "all",
            "--gold",
            str(gold),
            "--json",
            env=judges,
        )
    )
    calls = server.requests["expert-like"] - before
    assert first["judges"]["a"]["hash"] == first["judges"]["b"]["hash"]
    for c in first["criteria"]:
        assert c["difference"] in (0, None) and c["decision"] == "undecided"
        assert c["flips"] == []
    again = server.requests["expert-like"]
    _doc(
        cli(
            "compare",
            "tuned",
            "tuned2",
            "--split",
            "all",
            "--gold",
            str(gold),
            "--json",
            env=judges,
        )
    )
    assert server.requests["expert-like"] == again  # every answer came from the store
    assert calls <= len(list((gold / "transcripts").glob("*.json")))  # once per item at most


def test_judges_on_different_rubrics_are_refused_before_any_model_call(
    cli: Callable[..., Result], gold: Path, judges: dict[str, str], server: FakeServer
) -> None:
    before = sum(server.requests.values())
    r = cli("compare", "tuned", "other-rubric", "--split", "all", "--gold", str(gold), env=judges)
    assert r.code == 2 and "rubric" in r.err and r.err.count("\n") == 1, r.err
    assert sum(server.requests.values()) == before


def test_an_unknown_judge_or_split_gets_one_line(
    cli: Callable[..., Result], gold: Path, judges: dict[str, str]
) -> None:
    r = cli("compare", "tuned", "nope", env=judges)
    assert r.code == 2 and "nope" in r.err and "Traceback" not in r.err
    r = cli("compare", "tuned", "plain", "--split", "test", env=judges)
    assert r.code == 2 and "--split" in r.err


def test_a_judge_with_no_verdict_gets_no_decision(
    cli: Callable[..., Result], gold: Path, judges: dict[str, str]
) -> None:
    """Nothing measured is not a verdict: no table, no "B worse", one line with the cause."""
    r = cli("compare", "plain", "broken", "--split", "all", "--gold", str(gold), env=judges)
    assert r.code == 3, r.err
    assert r.out == ""
    [line] = [ln for ln in r.err.splitlines() if ln.startswith("calibrant: ")]
    assert "no gold item got a verdict from judge 'broken'" in line and "boom" in line
    assert "B worse" not in r.err
