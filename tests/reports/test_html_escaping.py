"""The HTML report is a template with autoescape: what a judge or a rubric wrote (a rationale, a
criterion title, a warning) reaches the page as text, never as markup."""

from __future__ import annotations

import copy

from calibrant.contracts.reports import CalibrationReport
from calibrant.reports.html import calibration_html, calibration_sections
from tests.contracts.report_samples import calibration

ATTACK = '<script>alert("x")</script><img src=x onerror=alert(1)>'


def test_text_from_the_judge_and_the_rubric_is_escaped() -> None:
    report = copy.deepcopy(calibration())
    criterion = next(c for c in report["criteria"] if c["disagreements"])
    criterion["disagreements"][0]["rationale"] = ATTACK
    criterion["title"] = ATTACK
    report["warnings"] = [ATTACK]
    page = calibration_html(report)
    assert "<script>" not in page and "<img" not in page
    assert page.count("&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;") >= 3
    # the model and its JSON data give the same page
    assert calibration_html(CalibrationReport.model_validate(report)) == page


def test_the_page_holds_its_sections_and_its_plots() -> None:
    report = calibration()
    parts = calibration_sections(report)
    assert list(parts) == [
        "summary",
        "criteria",
        "experts",
        "safety",
        "pairs",
        "robustness",
        "details",
    ]
    assert "<svg" in parts["criteria"] and "<svg" in parts["details"]  # plots are markup
    gate = report["gate"]["judge"]
    assert f'Judge release gate: <span class="{gate}">{gate}</span>' in parts["summary"]
