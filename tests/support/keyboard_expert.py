"""A scripted expert at the workbench's labeling page, from the keyboard alone (Playwright in
Chromium): the keys a person would press to label one item, counted, and the labels they
stand for, read from the page's own radio buttons (so the test checks what was stored against
what the keys meant on the page).

Two ways to label, for the same answers:

- `label_with_keys`: the labeling page's keys — a number per criterion (focus moves on to the
  next criterion by itself), then Enter (save and next);
- `label_with_tabs`: what a keyboard-only person does on a page without keys — Tab until the
  focus reaches the criterion's radio buttons, Space (the first choice) or arrow keys (the
  others) to pick, Tab to the save button, Enter.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

__all__ = ["CHROMIUM", "LAUNCH_ARGS", "Answered", "criteria_on", "answers_for", "label_item"]

CHROMIUM = "/usr/bin/chromium"
LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu"]
MAX_TABS = 400  # a page that needs more Tab presses to reach a control is a failure


@dataclass(frozen=True)
class Answered:
    """One item labeled: the keys pressed, the seconds from the first key to the next page
    loaded, and the labels the keys chose (criterion -> form value)."""

    alias: str
    keys: int
    tabs: int  # of the keys, Tab presses
    seconds: float
    labels: dict[str, str]


def criteria_on(page: Any) -> dict[str, list[str]]:
    """The page's criteria, in order, each with its choices' form values in order."""
    values: list[list[str]] = page.eval_on_selector_all(
        "input[type=radio]", "els => els.map(e => [e.name, e.value])"
    )
    out: dict[str, list[str]] = {}
    for name, value in values:
        out.setdefault(name.removeprefix("label."), []).append(value)
    return out


def answers_for(n: int, criteria: dict[str, list[str]]) -> dict[str, int]:
    """A varied, reproducible choice (1-based, as the number keys count) per criterion for the
    n-th item: every choice of every criterion is used across a queue."""
    return {c: 1 + (n + 2 * k) % len(choices) for k, (c, choices) in enumerate(criteria.items())}


def _focused(page: Any) -> tuple[str, str, str]:
    got: list[str] = page.evaluate(
        "() => { const e = document.activeElement;"
        " return [e.tagName, e.getAttribute('name') || '', e.getAttribute('type') || '']; }"
    )
    return got[0], got[1], got[2]


def _tab_until(page: Any, wanted: Any) -> int:
    for presses in range(1, MAX_TABS + 1):
        page.keyboard.press("Tab")
        if wanted(*_focused(page)):
            return presses
    raise AssertionError(f"{MAX_TABS} Tab presses did not reach the control")


def label_item(page: Any, n: int, *, with_keys: bool) -> Answered:
    """Label the item the page shows with the n-th answers, save and wait for the next page."""
    alias = page.locator("h1").inner_text().removeprefix("Label ").strip()
    criteria = criteria_on(page)
    answers = answers_for(n, criteria)
    keys = tabs = 0
    t0 = time.perf_counter()
    for criterion, choice in answers.items():
        if with_keys:
            page.keyboard.press(str(choice))
            keys += 1
            continue
        wanted = f"label.{criterion}"
        pressed = _tab_until(page, lambda tag, name, kind, wanted=wanted: name == wanted)
        keys, tabs = keys + pressed, tabs + pressed
        if choice == 1:
            page.keyboard.press("Space")  # the first radio has the focus, not yet checked
            keys += 1
        for _ in range(choice - 1):
            page.keyboard.press("ArrowDown")  # moves to the next radio and checks it
            keys += 1
    if not with_keys:
        pressed = _tab_until(page, lambda tag, name, kind: tag == "BUTTON" and kind == "submit")
        keys, tabs = keys + pressed, tabs + pressed
    with page.expect_navigation():
        page.keyboard.press("Enter")
        keys += 1
    page.wait_for_load_state("load")
    seconds = time.perf_counter() - t0
    labels = {c: criteria[c][choice - 1] for c, choice in answers.items()}
    return Answered(alias, keys, tabs, seconds, labels)
