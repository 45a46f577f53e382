"""Contextual calibration of the embedded judge's label choices, on a fake log-probability source:
a model that prefers `fail` whatever it reads, whose log-probabilities move only slightly with
the item. Raw, it answers `fail` on every item; rebalanced by its content-free prior, its label
follows the item. No model file is loaded: the fake stands where llama.cpp would."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import calibrant.judge.embedded_model as embedded_model
from calibrant.errors import ConfigError
from calibrant.files import load_rubric, load_transcript
from calibrant.judge.client import prepare_call
from calibrant.judge.config import JudgeOptions, SavedJudge, build_judge
from calibrant.judge.embedded import EMBEDDED_MODEL
from calibrant.judge.embedded_choice import choice_plan, choose
from calibrant.judge.embedded_plans import _options
from calibrant.judge.embedded_prior import PriorFiles, enumerate_prior
from calibrant.judge.embedded_request import CONTENT_FREE_KEY, Request

LABELS = ["fail", "pass", "insufficient_evidence"]
SCHEMA = {
    "type": "object",
    "properties": {"first": {"enum": LABELS}, "second": {"enum": LABELS}},
    "required": ["first", "second"],
    "additionalProperties": False,
}
PLAN = choice_plan(json.dumps(SCHEMA, sort_keys=True))
SIGNAL = re.compile(rb"SIGNAL=([+-]\d)")


class FakeLlama:
    """One byte, one token. After the prompt and the answer so far, the first letter of a label
    gets logit 4 - s/4 for `f`, 2 + s/4 for `p`, 0 for `i`, where s is the item's signal (the
    digit after SIGNAL= in the prompt, 0 when there is none): `fail` always wins raw."""

    def __init__(self) -> None:
        self.input_ids = np.zeros(8192, dtype=np.int64)
        self.n_tokens = 0
        self.evaluated: list[list[int]] = []

    def tokenize(self, text: bytes, add_bos: bool = False, special: bool = False) -> list[int]:
        return list(text)

    def eval(self, tokens: list[int]) -> None:
        self.input_ids[self.n_tokens : self.n_tokens + len(tokens)] = tokens
        self.n_tokens += len(tokens)
        self.evaluated.append(list(tokens))

    def n_ctx(self) -> int:
        return 8192


def fake_logits(llama: FakeLlama) -> np.ndarray:
    seen = bytes(int(t) for t in llama.input_ids[: llama.n_tokens])
    found = SIGNAL.search(seen)
    s = int(found.group(1)) if found else 0
    logits = np.full(256, -20.0)
    logits[ord("f")], logits[ord("p")], logits[ord("i")] = 4 - s / 4, 2 + s / 4, 0.0
    if b"ABSTAIN" in seen:  # the abstention gains, still far below fail
        logits[ord("i")] = 1.5
    return logits


def _answer(prompt: bytes, prior: Any) -> dict[str, str]:
    llama = FakeLlama()
    llama.eval(list(prompt))
    assert PLAN is not None
    picked = choose(
        llama,
        PLAN,
        temperature=0,
        seed=None,
        stopped=lambda: False,
        prior=prior,
        logits_of=fake_logits,
    )
    assert picked is not None
    return json.loads(picked[0])


def _content_free_prior(unbalanced: Any = None) -> Any:
    llama = FakeLlama()
    prompt = list(b"judge this: N/A\n")

    def logits_after(key: tuple[int, ...]) -> np.ndarray:
        llama.n_tokens = 0
        llama.eval(prompt + list(key))
        return fake_logits(llama)

    assert PLAN is not None
    return enumerate_prior(
        PLAN, lambda text: list(text.encode()), logits_after, unbalanced=unbalanced
    )


def test_rebalanced_labels_follow_the_item_where_raw_labels_are_constant() -> None:
    prior = _content_free_prior()
    signals = [-3, -2, -1, 1, 2, 3]
    raw = [_answer(f"judge this: SIGNAL={s:+d}\n".encode(), None) for s in signals]
    rebalanced = [_answer(f"judge this: SIGNAL={s:+d}\n".encode(), prior) for s in signals]
    assert {a["first"] for a in raw} == {"fail"} and {a["second"] for a in raw} == {"fail"}
    # p_cf: fail 0.87, pass 0.12, insufficient 0.02; the item moves pass against fail by s/2
    assert [a["first"] for a in rebalanced] == ["fail"] * 3 + ["pass"] * 3
    assert [a["second"] for a in rebalanced] == ["fail"] * 3 + ["pass"] * 3


def test_joint_prior_is_the_content_free_distribution_after_each_path_of_earlier_labels() -> None:
    prior = _content_free_prior()
    # one branch point for `first`, and one for `second` after each of its three labels
    assert len(prior.exact) == 4
    first = prior.lookup(tuple(b'{"first": "'), (1, ()))
    assert first is not None
    expected = np.log(np.exp([4.0, 0.0, 2.0]) / np.exp([4.0, 0.0, 2.0]).sum())
    assert [first[ord(c)] for c in "fip"] == pytest.approx(list(expected))


def test_an_abstention_left_unbalanced_is_not_boosted_by_its_tiny_prior() -> None:
    item = b"judge this: SIGNAL=-1 ABSTAIN\n"
    assert _answer(item, None)["first"] == "fail"
    assert _answer(item, _content_free_prior())["first"] == "insufficient_evidence"
    assert PLAN is not None
    unbalanced = _options(PLAN, ("insufficient_evidence",))
    assert unbalanced == {1: {2}, 3: {2}}  # the option writing it, at each choice
    kept = _content_free_prior(unbalanced=unbalanced)
    assert ord("i") not in (kept.lookup(tuple(b'{"first": "'), (1, ())) or {})
    assert _answer(item, kept) == {"first": "fail", "second": "fail"}


def _formatter(messages: list[dict[str, str]]) -> Any:
    prompt = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages)
    return SimpleNamespace(prompt=prompt + "<|im_start|>assistant\n", added_special=True, stop=None)


def _model(monkeypatch: pytest.MonkeyPatch, folder: Path) -> tuple[Any, FakeLlama]:
    monkeypatch.setattr(embedded_model, "read_logits", fake_logits)
    model = embedded_model._LocalModel()
    llama = FakeLlama()
    model._llama, model._formatter = llama, _formatter
    model._message_token = None
    model._priors = PriorFiles(folder, "fake-model")
    return model, llama


def _request(signal: int) -> Request:
    system = {"role": "system", "content": "Rate the item. Labels: fail, pass."}
    return Request(
        messages=[system, {"role": "user", "content": f"SIGNAL={signal:+d}"}],
        temperature=0.0,
        top_p=None,
        max_tokens=None,
        seed=None,
        stop=[],
        schema_json=json.dumps(SCHEMA, sort_keys=True),
        deadline=None,
        content_free=([system, {"role": "user", "content": "N/A"}],),
        independent=True,
    )


def test_content_free_prior_is_measured_once_and_kept(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    model, llama = _model(monkeypatch, tmp_path)
    texts = [model.generate(_request(s)).text for s in (-2, 2, -1, 1)]
    assert texts[1] == '{"first": "pass", "second": "pass"}'  # the joint answer's JSON
    answers = [json.loads(t) for t in texts]
    assert [a["first"] for a in answers] == ["fail", "pass", "fail", "pass"]
    assert [a["second"] for a in answers] == ["fail", "pass", "fail", "pass"]
    content_free = sum(1 for batch in llama.evaluated if b"N/A" in bytes(batch))
    assert content_free == 1  # the content-free prompt was evaluated for the first item only
    files = list(tmp_path.glob("*.prior.json"))
    assert len(files) == 1
    kept = json.loads(files[0].read_text())
    assert sorted(kept) == ["first", "second"]  # one prior per criterion, one branch point each
    assert [len(kept[name]["exact"]) for name in ("first", "second")] == [1, 1]

    again, fresh = _model(monkeypatch, tmp_path)  # a new process: the prior comes from the file
    assert json.loads(again.generate(_request(2)).text)["second"] == "pass"
    assert not any(b"N/A" in bytes(batch) for batch in fresh.evaluated)


ROOT = Path(__file__).resolve().parents[2]


def test_calibrated_is_an_option_and_the_default_keeps_the_old_identity() -> None:
    rubric = load_rubric(ROOT / "rubrics" / "refund_communication.yaml")
    joint, _, policy, _ = build_judge(SavedJudge(model=EMBEDDED_MODEL), JudgeOptions(), rubric)
    calibrated = build_judge(
        SavedJudge(model=EMBEDDED_MODEL, label_scoring="calibrated"), JudgeOptions(), rubric
    )[0]
    assert calibrated.label_scoring == "calibrated" and joint.label_scoring is None
    assert "label_scoring" not in joint.model_dump()  # hashed as before the field existed
    assert calibrated.hash != joint.hash  # answers cached under the other rule are not reused
    hosted = build_judge(SavedJudge(model="openai/gpt-4o-mini"), JudgeOptions(), rubric)[0]
    assert hosted.label_scoring is None
    with pytest.raises(ConfigError, match="label_scoring calibrated needs the embedded model"):
        build_judge(
            SavedJudge(model="openai/gpt-4o-mini", label_scoring="calibrated"),
            JudgeOptions(),
            rubric,
        )

    transcript = load_transcript(ROOT / "gold" / "transcripts" / "gold-001.json")
    call = prepare_call(transcript, rubric=rubric, config=calibrated, sample_index=0, policy=policy)
    free = call.kwargs["extra_body"][CONTENT_FREE_KEY]
    assert len(free) == 2 and all(m[0] == call.kwargs["messages"][0] for m in free)
    # the evidence and the conversation replaced by N/A, then by nothing
    assert [m[1]["content"].count("N/A") for m in free] == [2, 0]
    item = call.kwargs["messages"][1]["content"]
    assert all("\n--- " not in m[1]["content"] for m in free) and "\n--- " in item
    assert all(e not in m[1]["content"] for e in call.evidence_ids for m in free)
    assert "<<<BEGIN-UNTRUSTED" in item
    assert (
        "extra_body"
        not in prepare_call(
            transcript, rubric=rubric, config=joint, sample_index=0, policy=policy
        ).kwargs
    )
