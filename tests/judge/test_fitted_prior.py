"""A label prior fitted on the items themselves (`label_scoring: fitted`), on the fake
log-probability source of test_embedded_prior: a model that prefers `fail` whatever it reads.
Raw, it is a constant rater; rebalanced by its own mean label probabilities over a reference
set, its label follows the item, and on a binary criterion it cannot stay constant over the
reference set unless every item gets the same probabilities."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from calibrant.errors import ConfigError
from calibrant.files import load_rubric
from calibrant.judge.config import FittedLabelPrior, JudgeOptions, SavedJudge, build_judge
from calibrant.judge.embedded import EMBEDDED_MODEL
from calibrant.judge.embedded_choice import choice_plan
from calibrant.judge.embedded_prior import branch_prior, enumerate_prior, option_probabilities
from calibrant.judge.embedded_request import LABEL_PRIOR_KEY, Request

from .test_embedded_prior import SCHEMA, _model

ROOT = Path(__file__).resolve().parents[2]


def _request(signal: int, prior: dict[str, dict[str, float]] | None = None) -> Request:
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
        independent=prior is not None,
        label_prior=prior,
    )


def _fitted(probabilities: list[dict[str, dict[str, float]]]) -> dict[str, dict[str, float]]:
    """The mean label probabilities over items, the abstention left out (as fit_prior does)."""
    out: dict[str, dict[str, float]] = {}
    for name in ("first", "second"):
        shares: dict[str, float] = {}
        for item in probabilities:
            rest = item[name]["fail"] + item[name]["pass"]
            for label in ("fail", "pass"):
                shares[label] = shares.get(label, 0.0) + item[name][label] / rest
        out[name] = {k: math.log(v / len(probabilities)) for k, v in shares.items()}
    return out


def test_a_prior_fitted_on_the_items_turns_a_constant_rater_into_one_that_follows_them(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    model, _ = _model(monkeypatch, tmp_path)
    signals = [-3, -2, -1, 1, 2, 3]
    measured = [model.label_probabilities(_request(s)) for s in signals]
    for item in measured:  # every label of every criterion, probabilities summing to 1
        assert sorted(item["first"]) == ["fail", "insufficient_evidence", "pass"]
        assert sum(item["first"].values()) == pytest.approx(1.0)
    raw = [json.loads(model.generate(_request(s)).text) for s in signals]
    assert {a["first"] for a in raw} == {"fail"}  # the constant rater
    prior = _fitted(measured)
    rebalanced = [json.loads(model.generate(_request(s, prior)).text) for s in signals]
    # pass against fail moves by s/2 with the item: above the set's mean share, pass
    assert [a["first"] for a in rebalanced] == ["fail"] * 3 + ["pass"] * 3
    assert [a["second"] for a in rebalanced] == ["fail"] * 3 + ["pass"] * 3


def test_labels_sharing_tokens_get_their_shares_along_their_paths() -> None:
    plan = choice_plan(
        json.dumps(
            {
                "type": "object",
                "properties": {"c": {"enum": ["fail", "fair", "pass"]}},
                "required": ["c"],
                "additionalProperties": False,
            },
            sort_keys=True,
        )
    )
    assert plan is not None

    def tokenize(text: str) -> list[int]:
        return list(text.encode())

    # "fail" and "fair" share "fai": the labels branch at f/p, then at l/r
    logits = {ord("f"): 1.0, ord("p"): 0.0, ord("l"): 2.0, ord("r"): 0.0}

    def logits_after(key: tuple[int, ...]) -> list[float]:
        out = [-30.0] * 256
        for token, value in logits.items():
            out[token] = value
        return out

    measured = enumerate_prior(plan, tokenize, logits_after)
    shares = option_probabilities(plan, tokenize, measured)
    e = math.exp
    p_f = e(1) / (e(1) + e(0))
    assert shares == pytest.approx([p_f * e(2) / (e(2) + 1), p_f / (e(2) + 1), 1 - p_f])
    # the branch-point prior built back from the label shares gives the same shares
    prior = branch_prior(plan, tokenize, shares)
    [first] = [v for k, v in prior.by_position.items() if k[1] == ()]
    assert math.exp(first[ord("f")]) == pytest.approx(p_f)
    [inner] = [v for k, v in prior.by_position.items() if k[1] != ()]
    assert math.exp(inner[ord("l")]) == pytest.approx(e(2) / (e(2) + 1))
    # a label left out (None) has no prior at the point where it alone branches
    partial = branch_prior(plan, tokenize, [shares[0], None, shares[2]])
    [inner] = [v for k, v in partial.by_position.items() if k[1] != ()]
    assert set(inner) == {ord("l")} and inner[ord("l")] == pytest.approx(0.0)


RUBRIC = ROOT / "rubrics" / "refund_communication.yaml"


def _prior(**changes: object) -> FittedLabelPrior:
    rubric = load_rubric(RUBRIC)
    labels = {
        c.id: {str(x): math.log(1 / len(c.allowed_labels())) for x in c.allowed_labels()}
        for c in rubric.criteria
    }
    base = {"rubric_hash": rubric.content_hash, "items": 4, "cases": 2, "labels": labels}
    return FittedLabelPrior.model_validate({**base, **changes})


def test_fitted_judge_carries_its_prior_in_its_identity_and_old_judges_keep_theirs() -> None:
    rubric = load_rubric(RUBRIC)
    joint = build_judge(SavedJudge(model=EMBEDDED_MODEL), JudgeOptions(), rubric)[0]
    assert "label_prior" not in joint.model_dump()  # hashed as before the field existed
    fitted = build_judge(
        SavedJudge(model=EMBEDDED_MODEL, label_scoring="fitted", label_prior=_prior()),
        JudgeOptions(),
        rubric,
    )[0]
    other = _prior()
    other.labels["overall_clarity"]["1"] -= 0.5
    moved = build_judge(
        SavedJudge(model=EMBEDDED_MODEL, label_scoring="fitted", label_prior=other),
        JudgeOptions(),
        rubric,
    )[0]
    assert len({joint.hash, fitted.hash, moved.hash}) == 3  # another prior, another judge


@pytest.mark.parametrize(
    ("saved", "message"),
    [
        (
            {"label_scoring": "fitted"},
            "label_scoring fitted needs a label_prior",
        ),
        (
            {"label_scoring": "joint", "label_prior": _prior()},
            "label_prior is read only with label_scoring: fitted",
        ),
        (
            {"label_scoring": "fitted", "label_prior": _prior(rubric_hash="sha256:" + "0" * 64)},
            "label_prior.rubric_hash: fitted on rubric sha256:0000000000",
        ),
        (
            {"label_scoring": "fitted", "label_prior": _prior(labels={"tone": {"pass": -0.7}})},
            "label_prior.labels.tone: not a criterion",
        ),
        (
            {
                "label_scoring": "fitted",
                "label_prior": _prior(labels={"overall_clarity": {"pass": -0.7}}),
            },
            "label_prior.labels.overall_clarity.pass: not a label of overall_clarity",
        ),
        (
            {
                "label_scoring": "fitted",
                "label_prior": _prior(labels={"overall_clarity": {"2": 0.3}}),
            },
            "label_prior.labels.overall_clarity.2: 0.3 is not a log-probability",
        ),
    ],
)
def test_a_prior_that_does_not_fit_the_judge_is_one_line(
    saved: dict[str, object], message: str
) -> None:
    rubric = load_rubric(RUBRIC)
    with pytest.raises(ConfigError) as caught:
        build_judge(SavedJudge(model=EMBEDDED_MODEL, **saved), JudgeOptions(), rubric, "j.yaml")
    assert str(caught.value).startswith("j.yaml: ") and message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_the_prior_travels_to_the_model_in_the_call() -> None:
    from calibrant.files import load_transcript
    from calibrant.judge.client import prepare_call
    from calibrant.judge.reliability import RetryPolicy

    rubric = load_rubric(RUBRIC)
    saved = SavedJudge(model=EMBEDDED_MODEL, label_scoring="fitted", label_prior=_prior())
    config = build_judge(saved, JudgeOptions(), rubric)[0]
    transcript = load_transcript(next((ROOT / "gold" / "transcripts").glob("*.json")))
    call = prepare_call(
        transcript, rubric=rubric, config=config, sample_index=0, policy=RetryPolicy()
    )
    assert call.kwargs["extra_body"] == {LABEL_PRIOR_KEY: _prior().labels}


def test_the_default_judge_takes_the_prior_shipped_for_its_rubric_and_only_for_it(
    tmp_path: Path,
) -> None:
    from calibrant.judge.config import resolve_judge, shipped_prior

    shipped = load_rubric(RUBRIC)
    # the refund pack ships it (DomainPack.label_priors), named by the rubric's content hash
    prior_file = shipped_prior(shipped)
    assert prior_file is not None and shipped.content_hash.endswith(prior_file.stem)
    default = resolve_judge(JudgeOptions(rubric=RUBRIC))[0]
    assert default.label_scoring == "fitted"
    assert (
        default.label_prior == FittedLabelPrior.model_validate_json(prior_file.read_text()).labels
    )
    # a rubric of your own (one word changed) has no shipped prior: labels picked jointly
    edited = tmp_path / "mine.yaml"
    edited.write_text(RUBRIC.read_text().replace("Refund", "Refunds", 1))
    own = resolve_judge(JudgeOptions(rubric=edited))[0]
    assert own.label_scoring is None and own.label_prior is None
    # another model named on the command line is not the embedded one: no prior
    hosted = resolve_judge(JudgeOptions(rubric=RUBRIC, model="openai/gpt-4o-mini"))[0]
    assert hosted.label_scoring is None


def test_the_saved_embedded_judge_is_the_default_judge() -> None:
    """judges/embedded.yaml (the tour's judge) and the first run's default are one judge, so
    the tour reuses the first run's cached answers."""
    from calibrant.files import load_yaml_model
    from calibrant.judge.config import resolve_judge

    default = resolve_judge(JudgeOptions(rubric=RUBRIC))[0]
    saved = load_yaml_model(SavedJudge, ROOT / "judges" / "embedded.yaml", "saved judge")
    assert build_judge(saved, JudgeOptions(), load_rubric(RUBRIC))[0].hash == default.hash
