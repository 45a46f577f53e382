"""Keystrokes and seconds per item for an expert labeling from the keyboard alone, in headless
Chromium: the labeling page before issue 35 (no keys of its own: Tab to each criterion, Space
or arrow keys to pick, Tab to the save button, Enter) and after it (a number per criterion,
Enter), in one run, on the same items with the same answers.

Run: ``python benchmarks/bench_labeling_keyboard.py [--items 30] [--runs 2]``. Writes
``benchmarks/results/labeling_keyboard.md``. "Before" is the code of the commit this branch
started from (``git merge-base HEAD main``, or ``--before REV``), exported with ``git
archive`` and served by its own ``calibrant serve``; "after" is the working tree. Each run
and variant: a fresh SQLite store with the shipped rubric and gold items 1..N in one queue,
one annotator who logs in and labels the whole queue; the labels stored are checked against
the ones the keys chose. The scripted expert is the same code as the slow test's
(tests/support/keyboard_expert.py).

Seconds: from the first key of an item to the next item's page loaded, as the script drives
it (no reading or thinking time: what the page and the keys cost, not what a person spends).
The mean over items with a 95% percentile-bootstrap interval (2,000 resamples of the items,
seed 0); per-run means beside it. Keystrokes are exact counts.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from io import BytesIO
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

from tests.support.keyboard_expert import CHROMIUM, LAUNCH_ARGS, Answered, label_item  # noqa: E402
from tests.support.labeling import gold_jsonl, put_rubric  # noqa: E402
from tests.support.service import running_service  # noqa: E402

OUT = HERE / "results" / "labeling_keyboard.md"
KLM_K = 0.28  # s per keystroke, an average typist (Card, Moran & Newell's keystroke-level model)


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.strip()


@contextmanager
def code_of(rev: str | None) -> Iterator[dict[str, str]]:
    """The PYTHONPATH that runs `rev`'s calibrant (None: the working tree)."""
    if rev is None:
        yield {"PYTHONPATH": _paths(ROOT)}
        return
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(
            ["git", "archive", rev, "src", "domains"], cwd=ROOT, check=True, capture_output=True
        ).stdout
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(tmp, filter="data")
        yield {"PYTHONPATH": _paths(Path(tmp))}


def _paths(tree: Path) -> str:
    """The core's and every domain pack's source folders in `tree`."""
    return os.pathsep.join(str(p) for p in [tree / "src", *sorted(tree.glob("domains/*/src"))])


def one_queue(env: dict[str, str], items: int, with_keys: bool) -> list[Answered]:
    from playwright.sync_api import expect, sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'store.db'}"
        put_rubric(url)
        with running_service(url, Path(tmp), env=env) as service:
            admin = service.client(service.user("bench-admin", "admin"))
            upload = admin.post(
                "/api/transcripts?queue=kb", content=gold_jsonl(*range(1, items + 1))
            )
            assert upload.is_success, upload.text
            alias = {x["transcript_id"]: x["alias"] for x in admin.get("/api/items").json()}
            token = service.user("bench-expert", "annotator")
            done: list[Answered] = []
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
                try:
                    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
                    page.goto(f"{service.url}/login")
                    page.fill("#token", token)
                    page.keyboard.press("Enter")
                    expect(page.locator("h1")).to_have_text("My queues")
                    page.goto(f"{service.url}/label/{min(alias.values())}")
                    has_keys = page.locator("script[src='/workbench.js']").count() == 1
                    assert has_keys == with_keys, "the page is not the version asked for"
                    for n in range(1, items + 1):
                        done.append(label_item(page, n, with_keys=with_keys))
                    expect(page.locator("h1")).to_have_text("My queues")
                finally:
                    browser.close()
            stored: dict[str, dict[str, str]] = {}
            by_alias = {a: i for i, a in alias.items()}
            for x in admin.get("/api/labels").json():
                stored.setdefault(x["item"], {})[x["criterion"]] = str(x["label"])
            typed = {by_alias[d.alias]: d.labels for d in done}
            assert stored == typed, "a stored label is not the one its keys chose"
    return done


def mean_ci(xs: list[float]) -> tuple[float, float, float]:
    x = np.asarray(xs)
    rng = np.random.default_rng(0)
    means = x[rng.integers(0, len(x), size=(2000, len(x)))].mean(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    return float(x.mean()), float(lo), float(hi)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=30)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument(
        "--before", default=None, help="the revision before (default: merge-base with main)"
    )
    args = parser.parse_args()
    before = args.before or _git("merge-base", "HEAD", "main")
    loads = [os.getloadavg()[0]]
    results: dict[str, list[list[Answered]]] = {"before": [], "after": []}
    for run in range(args.runs):
        for variant, rev in (("before", before), ("after", None)):
            with code_of(rev) as env:
                got = one_queue(env, args.items, with_keys=variant == "after")
            results[variant].append(got)
            loads.append(os.getloadavg()[0])
            keys = sum(d.keys for d in got) / len(got)
            print(f"run {run + 1} {variant}: {keys:.1f} keys/item", file=sys.stderr)
    lines = [
        "# Labeling from the keyboard: before and after issue 35",
        "",
        f"Generated by `python benchmarks/bench_labeling_keyboard.py --items {args.items} "
        f"--runs {args.runs}` on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC. Before: the labeling "
        f"page at `{before[:12]}` (no script); after: this tree. Machine: "
        f"nproc={os.cpu_count()}, Python {platform.python_version()}, Debian Chromium headless; "
        f"shared with other sessions (load average {min(loads):.1f} to {max(loads):.1f}).",
        "",
        f"A scripted expert labels a {args.items}-item queue (the shipped rubric's five "
        "criteria: three with 3 choices, one with 4, one with 5) from the keyboard alone, the "
        "same answers both times, each choice of each criterion used. Before, a keyboard-only "
        "person has Tab (to the criterion's radio buttons, past the header, the links and the "
        "examples), Space or ↓ to pick, Tab to the save button and Enter; after, a number per "
        "criterion (the focus moves on by itself) and Enter. Every label stored was the one "
        "its keys chose (checked each run).",
        "",
        "| page | items (n) | keys per item | of which Tab | seconds per item, mean "
        "(95% CI) | per-run means (s) | keying time at 0.28 s/key |",
        "| --- | ---: | ---: | ---: | --- | --- | ---: |",
    ]
    summary: dict[str, float] = {}
    for variant, runs in results.items():
        pooled = [d for r in runs for d in r]
        keys = [d.keys for d in pooled]
        mean, lo, hi = mean_ci([d.seconds for d in pooled])
        per_run = ", ".join(f"{np.mean([d.seconds for d in r]):.2f}" for r in runs)
        tabs = f"{np.mean([d.tabs for d in pooled]):.1f}"
        summary[variant] = float(np.mean(keys))
        lines.append(
            f"| {variant} | {len(pooled)} | {np.mean(keys):.1f} (min {min(keys)}, max "
            f"{max(keys)}) | {tabs} | {mean:.2f} ({lo:.2f} to {hi:.2f}) | {per_run} | "
            f"{np.mean(keys) * KLM_K:.1f} s |"
        )
    lines += [
        "",
        f"Keys per item: {summary['before']:.1f} → {summary['after']:.1f} "
        f"({summary['before'] / summary['after']:.1f}× fewer). Seconds are the scripted "
        "expert's, from an item's first key to the next page loaded (the browser, the server "
        "and the script's own key round trips; no reading): the interval (a bootstrap over "
        "the items) does not include the run-to-run spread that the per-run means show. "
        "The keying time is the "
        "keystroke-level model's estimate for an average typist (K = 0.28 s; Card, Moran and "
        "Newell, *The Psychology of Human-Computer Interaction*, 1983): reading the records and "
        "the conversation, the expert's real work, is the same on both pages and not in it.",
        "",
        "## What the anchors document",
        "",
        "- **Argilla** (the annotation guide's shortcuts table, "
        "[docs.argilla.io › how-to guides › annotate]"
        "(https://docs.argilla.io/latest/how_to_guides/annotate/), "
        "source `argilla/docs/how_to_guides/annotate.md`): Tab activates the form, ↓/↑ move "
        "between questions, number keys select a label or a rating, Enter submits, Backspace "
        "discards, ←/→ move between records; progress is a panel of the page. By that table a "
        "record with five single-choice questions is Tab, five numbers, four ↓ and Enter — 11 "
        "keys, unless a pick moves to the next question by itself (the table does not say).",
        "- **Label Studio** ([hotkeys guide](https://labelstud.io/guide/hotkeys), "
        "[Choice tag](https://labelstud.io/tags/choice), default keymap "
        "`web/libs/editor/src/core/settings/keymap.json`): a hotkey is set per choice in the "
        "labeling config (`hotkey` on `<Choice>`; `<Label>`s get one generated), submit is "
        "Ctrl+Enter, skip Ctrl+Space, next and previous task Ctrl+→ and Ctrl+←. With a distinct "
        "hotkey for each of the rubric's 18 choices, an item is five hotkeys and Ctrl+Enter — "
        "6 key presses (one a chord), but 18 keys to learn rather than one row of numbers.",
        f"- **calibrant after**: {summary['after']:.0f} keys per item (five numbers and Enter), "
        'numbers that mean the same place in every criterion, the keys\' help and "n of N" on '
        "the page, skip (S) and back (B); without script the same page works by Tab and Space.",
        "",
    ]
    OUT.write_text("\n".join(lines))
    print(OUT.read_text())


if __name__ == "__main__":
    main()
