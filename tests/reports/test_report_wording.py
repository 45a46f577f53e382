"""What every report format (terminal, JSON, Markdown, HTML) tells its reader: the weak embedded
judge, a constant judge, undefined values with whose labels made them so, readable names."""

from __future__ import annotations

import re

import pytest

from calibrant.contracts import Judgment
from calibrant.gold import CONSENSUS
from calibrant.judge.embedded_request import EMBEDDED_MODEL
from calibrant.reports.calibration import calibration_markdown
from calibrant.reports.html import calibration_html

from .support import GOLD, RUBRIC, build, every_format, page_text, subset

FORMATS = ("terminal", "json", "markdown", "html")


def test_the_embedded_judge_is_called_weak_in_every_format() -> None:
    # README and docs/judge.md: "The embedded judge is weak, and the report says so."
    texts = every_format(build("flip:explains_next_step:0.3", judge_model=EMBEDDED_MODEL))
    for fmt in FORMATS:
        assert "The embedded judge is weak" in texts[fmt], fmt
        assert EMBEDDED_MODEL in texts[fmt], fmt
    # and only for the embedded judge: the warning is not boilerplate
    texts = every_format(build("flip:explains_next_step:0.3", judge_model="openai/gpt-4o"))
    for fmt in FORMATS:
        assert "judge is weak" not in texts[fmt], fmt


def test_a_constant_judge_is_explained_in_plain_words_in_every_format() -> None:
    # always-pass answers the scale's top level on every item: 'pass' on the binary criteria
    r = build("always-pass")
    texts = every_format(r)
    n = len(GOLD.items)
    for fmt in FORMATS:
        t = texts[fmt]
        assert f"The judge answered 'pass' on all {n} items" in t, fmt
        assert "agreement beyond chance is 0 by construction" in t, fmt
        assert "κ cannot credit a constant rater" in t, fmt
        assert f"The judge answered '4' on all {n} items" in t, fmt  # the ordinal criterion
    for c in r["criteria"]:
        assert any("cannot credit a constant rater" in note for note in c["notes"]), c["criterion"]
    # a judge whose labels vary gets no such note
    texts = every_format(build("flip:explains_next_step:0.3"))
    for fmt in FORMATS:
        assert "constant rater" not in texts[fmt], fmt


def test_undefined_agreement_names_whose_labels_are_constant_in_every_format() -> None:
    # 20 items whose consensus is 'pass' on one criterion; the judge copies the consensus
    crit = "no_claim_before_confirmed"
    cons = GOLD.labels_by(CONSENSUS, crit)
    gold = subset([i for i in GOLD.item_ids if cons[i] == "pass"][:20])
    r = build("consensus", gold=gold)
    [c] = [c for c in r["criteria"] if c["criterion"] == crit]
    assert c["judge_vs_consensus"]["estimate"] is None
    texts = every_format(r)
    for fmt in FORMATS:
        assert (
            "undefined: the consensus and the judge both labelled every item 'pass'" in texts[fmt]
        ), fmt


def test_undefined_agreement_with_one_expert_names_that_expert() -> None:
    # items where expert rater_b said 'pass' on a criterion, and a judge that copies rater_b:
    # judge vs rater_b is undefined because both are constant, and the report says who
    crit = "separates_done_from_pending"
    b = GOLD.labels_by("rater_b", crit)
    gold = subset([i for i in GOLD.item_ids if b[i] == "pass"][:25])
    r = build("copy:rater_b", gold=gold)
    texts = every_format(r)
    for fmt in FORMATS:
        assert (
            "undefined: expert rater_b and the judge both labelled every item 'pass'" in texts[fmt]
        ), fmt


def _all_failed(judgments: dict[str, Judgment]) -> dict[str, Judgment]:
    return {
        i: j.model_copy(update={"outcome": "provider_error", "criteria": [], "error": "HTTP 503"})
        for i, j in judgments.items()
    }


def test_a_judge_with_no_usable_label_is_named_as_the_missing_side() -> None:
    r = build("consensus", edit=_all_failed)
    n = len(GOLD.items)
    texts = every_format(r)
    for fmt in FORMATS:
        assert (
            f"undefined: the judge gave no usable label on any of the {n} items "
            f"({n} provider_error)" in texts[fmt]
        ), fmt


def test_an_expert_without_labels_on_a_criterion_is_named() -> None:
    crit = "explains_next_step"
    gold = subset(GOLD.item_ids)
    gold.experts = {
        r: [x for x in labels if not (r == "rater_b" and x.criterion == crit)]
        for r, labels in GOLD.experts.items()
    }
    r = build("consensus", gold=gold)
    [c] = [c for c in r["criteria"] if c["criterion"] == crit]
    assert c["expert_ceiling"]["estimate"] is None
    texts = every_format(r)
    n = len(GOLD.items)
    for fmt in FORMATS:
        assert (
            f"undefined: expert rater_b gave no usable label on any of the {n} items "
            f"({n} unlabelled)" in texts[fmt]
        ), fmt


RAW_KEYS = ("cohen_kappa", "weighted_kappa_linear", "weighted_kappa_quadratic", "gwet_ac1")


def test_statistics_have_readable_names_in_markdown_html_and_terminal() -> None:
    r = build("flip:overall_clarity:0.3")
    texts = every_format(r)
    for fmt in ("terminal", "markdown", "html"):
        for key in RAW_KEYS:
            assert key not in texts[fmt], (fmt, key)
    for fmt in ("markdown", "html"):
        for name in ("Cohen's κ", "linear-weighted κ", "quadratic-weighted κ", "Gwet's AC1"):
            assert name in texts[fmt], (fmt, name)


@pytest.fixture(scope="module")
def flipped() -> dict:  # type: ignore[type-arg]
    return build("flip:no_claim_before_confirmed:0.3")


def test_safety_comes_before_the_long_lists_in_markdown_and_html(flipped: dict) -> None:  # type: ignore[type-arg]
    md = calibration_markdown(flipped)
    first_list = md.index("| item | case | consensus |")
    assert md.index("## Safety invariants") < first_list
    assert md.index("Judge release gate") < md.index("## Safety invariants")
    page = page_text(calibration_html(flipped))
    assert page.index("Judge release gate") < page.index("Safety invariants")
    assert page.index("Safety invariants") < page.index("judge's rationale")


def test_calibration_pairs_are_a_table_with_one_column_per_criterion(flipped: dict) -> None:  # type: ignore[type-arg]
    crits = [c.id for c in RUBRIC.criteria]
    page = calibration_html(flipped)
    found = re.search(r'<table id="calibration-pairs">(.*?)</table>', page, re.S)
    assert found, "no calibration pairs table"
    table = found.group(1)
    head = re.findall(r"<th>(.*?)</th>", table.split("</thead>")[0], re.S)
    assert [page_text(h) for h in head][-len(crits) :] == crits
    rows = re.findall(r'<tr class="side">(.*?)</tr>', table, re.S)
    sides = [s for p in flipped["calibration_pairs"] for s in p["sides"]]
    assert len(rows) == len(sides) == 12
    differ = 0
    for row, side in zip(rows, sides, strict=True):
        cells = re.findall(r"<td([^>]*)>(.*?)</td>", row, re.S)[-len(crits) :]
        for crit, (attrs, cell) in zip(crits, cells, strict=True):
            cons, judge = side["consensus"][crit], side["judge"][crit]
            assert page_text(cell) == f"{cons} / {judge}", (side["item"], crit)
            assert ("differ" in attrs) == (str(cons) != str(judge)), (side["item"], crit)
            differ += str(cons) != str(judge)
    assert differ > 0  # the flipped criterion makes some sides disagree
