"""Calibration reports built from planted judges over the shipped gold set (no model needed),
and the text a reader gets from each format."""

from __future__ import annotations

import copy
import io
from collections.abc import Callable
from html.parser import HTMLParser
from typing import Any

from rich.console import Console

from calibrant.calibration import Settings, calibration_report, simulated_judgments
from calibrant.contracts import Judgment
from calibrant.contracts.reports import CalibrationReport
from calibrant.files import load_rubric
from calibrant.gold import GoldSet, load_gold
from calibrant.reports.calibration import (
    calibration_json,
    calibration_markdown,
    render_calibration,
)
from calibrant.reports.html import calibration_html
from tests.conftest import ROOT
from tests.support.gold import gold_v3

RUBRIC = load_rubric(ROOT / "rubrics" / "refund_communication.yaml")
GOLD: GoldSet = gold_v3(load_gold(ROOT / "gold", split=None))

Edit = Callable[[dict[str, Judgment]], dict[str, Judgment]]


def build(
    behaviour: str,
    *,
    gold: GoldSet = GOLD,
    judge_model: str | None = None,
    edit: Edit | None = None,
    n_resamples: int = 500,
) -> dict[str, Any]:
    """The report a planted judge gets, as the JSON data calibrate writes (`build_report`)."""
    return build_report(
        behaviour, gold=gold, judge_model=judge_model, edit=edit, n_resamples=n_resamples
    ).json_data()


def build_report(
    behaviour: str,
    *,
    gold: GoldSet = GOLD,
    judge_model: str | None = None,
    edit: Edit | None = None,
    n_resamples: int = 500,
) -> CalibrationReport:
    """The report a planted judge gets, as its model; `judge_model` renames the judge (e.g. the
    embedded model's name), `edit` changes its judgments (e.g. failures) before it is built."""
    cfg, judgments = simulated_judgments(gold, RUBRIC, behaviour)
    if judge_model is not None:
        cfg = cfg.model_copy(update={"model": judge_model})
    if edit is not None:
        judgments = edit(judgments)
    return calibration_report(
        gold, RUBRIC, judgments, settings=Settings(n_resamples=n_resamples), judge=cfg, split=None
    )


def subset(keep: list[str]) -> GoldSet:
    """The shipped gold set restricted to some items."""
    g = copy.copy(GOLD)
    g.items = {i: GOLD.items[i] for i in keep}
    return g


class _Text(HTMLParser):
    """The text of a page as a reader sees it (no tags, no style sheet)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._skip += tag in ("style", "title")
        if tag not in _INLINE:  # a block or a cell starts: words do not run together
            self.parts.append(" ")

    def handle_endtag(self, tag: str) -> None:
        self._skip -= tag in ("style", "title")
        if tag not in _INLINE:
            self.parts.append(" ")

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


_INLINE = frozenset({"wbr", "code", "span", "strong", "b", "i", "em", "a"})


def page_text(page: str) -> str:
    p = _Text()
    p.feed(page)
    return " ".join("".join(p.parts).split())


def terminal_text(r: dict[str, Any]) -> str:
    console = Console(file=io.StringIO(), record=True, width=200, color_system=None)
    render_calibration(console, r)
    return console.export_text()


def every_format(r: dict[str, Any]) -> dict[str, str]:
    """What a reader gets from each output, with runs of white space (line wraps) as one
    space so that a sentence can be searched whatever the layout."""
    raw = {
        "terminal": terminal_text(r),
        "json": calibration_json(r),
        "markdown": calibration_markdown(r),
    }
    out = {k: " ".join(v.split()) for k, v in raw.items()}
    out["html"] = page_text(calibration_html(r))
    return out
