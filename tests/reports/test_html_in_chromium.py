"""The HTML calibration report as a reader sees it in headless Chromium: summary and safety first,
disagreement lists collapsed to the top 10, a legend and readable contrast on every heatmap,
nothing fetched, no horizontal scrolling at 1280 px; a full-page screenshot is kept."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from calibrant.judge.embedded_request import EMBEDDED_MODEL
from calibrant.reports.html import calibration_html

from .support import build

pytestmark = pytest.mark.slow

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WIDTH = 1280


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium (.ci/run does it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


REPORTS = {
    # one criterion with many disagreements, the others with none
    "flipped": lambda: build("flip:no_claim_before_confirmed:0.3"),
    # the embedded judge's usual failure: one label everywhere, disagreements on every criterion
    "constant-embedded": lambda: build("always-pass", judge_model=EMBEDDED_MODEL),
}


@dataclass
class Shown:
    """A report open in Chromium, the folder it was written to, every URL the page asked for."""

    report: dict[str, Any]
    page: Any
    out: Path
    requested: list[str] = field(default_factory=list)


@pytest.fixture(scope="module", params=sorted(REPORTS))
def shown(
    request: pytest.FixtureRequest, browser: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Shown]:
    out = tmp_path_factory.mktemp(f"html-{request.param}")
    view = Shown(
        REPORTS[request.param](), browser.new_page(viewport={"width": WIDTH, "height": 900}), out
    )
    path = out / "calibration.html"
    path.write_text(calibration_html(view.report), encoding="utf-8")
    view.page.set_default_timeout(5000)
    view.page.on("request", lambda req: view.requested.append(req.url))
    view.page.goto(path.as_uri())
    view.page.wait_for_load_state("load")
    yield view
    view.page.close()


def test_gate_and_safety_come_before_the_long_lists(
    shown: Shown,
) -> None:
    report, page = shown.report, shown.page

    def top(selector: str) -> float:
        box = page.locator(selector).first.bounding_box()
        assert box is not None, selector
        return float(box["y"])

    gate = top("#summary .gate")
    assert report["gate"]["judge"] in page.locator("#summary .gate").inner_text()
    safety = top("h2#safety")
    first_list = top("table.disagreements")
    assert gate < safety < first_list
    headings = page.locator("h2").all_inner_texts()
    assert headings.index("Safety invariants") < next(
        i for i, h in enumerate(headings) if "disagreements" in h.lower()
    )


def test_only_the_top_10_disagreements_show_until_the_reader_opens_the_rest(
    shown: Shown,
) -> None:
    report, page = shown.report, shown.page
    many = 0
    for c in report["criteria"]:
        section = page.locator(f'section[data-criterion="{c["criterion"]}"]')
        rows = section.locator("table.disagreements tbody tr")
        n = len(c["disagreements"])
        visible = sum(rows.nth(i).is_visible() for i in range(rows.count()))
        assert rows.count() == n, c["criterion"]
        assert visible == min(10, n), (c["criterion"], visible, n)
        if n > 10:
            many += 1
            details = section.locator("details")
            assert details.get_attribute("open") is None
            assert f"{n - 10} more" in details.locator("summary").inner_text()
            details.locator("summary").click()
            assert sum(rows.nth(i).is_visible() for i in range(rows.count())) == n
            details.evaluate("d => { d.open = false }")  # as the reader found it
    assert many >= 1  # the check above ran on a long list


def _luminance(rgb: tuple[int, int, int]) -> float:
    def lin(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.04045 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _rgb(css: str) -> tuple[int, int, int]:
    # computed colours come back as "rgb(r, g, b)"
    assert css.startswith("rgb("), css
    r, g, b = (int(float(x)) for x in css[4:-1].split(","))
    return r, g, b


def test_every_heatmap_cell_is_readable_and_every_heatmap_has_a_visible_legend(
    shown: Shown,
) -> None:
    report, page = shown.report, shown.page
    maps = page.locator("figure.heatmap")
    assert maps.count() == len(report["criteria"])
    cells = page.evaluate(
        """() => [...document.querySelectorAll('figure.heatmap svg g.cell')].map(g => [
            getComputedStyle(g.querySelector('rect')).fill,
            getComputedStyle(g.querySelector('text')).fill,
            g.querySelector('text').textContent])"""
    )
    assert len(cells) >= 4 * len(report["criteria"])
    shades = set()
    for background, text, value in cells:
        ratio = _contrast(_rgb(background), _rgb(text))
        assert ratio >= 4.5, (background, text, value, round(ratio, 2))
        shades.add(background)
    assert len(shades) >= 4  # the cells are shaded, not all one colour
    for i in range(maps.count()):
        legend = maps.nth(i).locator(".legend")
        assert legend.is_visible()
        words = legend.inner_text().lower()
        assert "agreement" in words and "disagreement" in words


def test_the_weak_embedded_judge_warning_is_on_screen_at_the_top(
    shown: Shown,
) -> None:
    report, page = shown.report, shown.page
    warning = page.locator("#summary .warning")
    if report["judge"]["model"] != EMBEDDED_MODEL:
        assert warning.count() == 0
        return
    assert warning.is_visible() and "embedded judge is weak" in warning.inner_text()
    box = warning.bounding_box()
    assert box is not None and box["y"] < 900  # in the first screen, no scrolling needed


def test_the_page_is_self_contained_fits_1280_px_and_is_kept_as_a_screenshot(
    shown: Shown,
) -> None:
    # promises the page kept before this change too; checked on the new layout
    page = shown.page
    assert shown.requested == [page.url]  # nothing fetched: no font, image, style sheet
    assert page.locator("script").count() == 0
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= WIDTH, width
    sticking_out = page.evaluate(
        f"""() => [...document.querySelectorAll('body *')]
            .filter(e => e.getBoundingClientRect().right > {WIDTH} + 1)
            .map(e => e.tagName + '.' + e.className)"""
    )
    assert sticking_out == []
    shot = shown.out / "calibration-report.png"
    page.screenshot(path=str(shot), full_page=True, timeout=60_000)
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and int.from_bytes(png[16:20], "big") == WIDTH
    print(f"\nscreenshot: {shot}")
