"""The README's figures of the embedded judge are a run's: scripts/readme_figures.py wrote them
from the two reports it keeps (benchmarks/results/readme_figures/), and those reports are the
embedded judge's on the gold set and rubric that ship now."""

from __future__ import annotations

import copy
import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from calibrant.domains import default_gold, default_rubric
from calibrant.files import load_rubric
from calibrant.gold import load_gold

ROOT = Path(__file__).resolve().parents[1]
RERUN = "run `python scripts/readme_figures.py --run` (about an hour) and commit what it writes"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "readme_figures", ROOT / "scripts/readme_figures.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


rf = _script()


@pytest.fixture(scope="module")
def reports() -> dict[str, dict[str, Any]]:
    return rf.load()


def test_the_readme_says_what_the_kept_reports_say(reports: dict[str, dict[str, Any]]) -> None:
    said = rf.between((ROOT / "README.md").read_text())
    assert said == rf.render(reports), f"README.md's figures are not the reports': {RERUN}"


def test_the_kept_reports_are_the_embedded_judges_on_what_ships_now(
    reports: dict[str, dict[str, Any]],
) -> None:
    rubric = load_rubric(default_rubric())
    for split, report in reports.items():
        assert report["split"] == split
        assert report["judge"]["model"] == "calibrant-local/smollm2-135m", split
        assert report["rubric"]["hash"].removeprefix("sha256:") == rubric.content_hash.removeprefix(
            "sha256:"
        ), f"the {split} report was made on another rubric: {RERUN}"
        gold = load_gold(default_gold(), split=split)
        assert report["gold"]["hashes"] == gold.hashes, (
            f"the {split} report was made on another gold set: {RERUN}"
        )
        assert report["n_items"] == len(gold.items) - len(gold.unlabeled)


def test_the_figures_follow_the_reports(reports: dict[str, dict[str, Any]]) -> None:
    changed = copy.deepcopy(reports)
    first = changed["heldout"]["criteria"][0]
    first["judge_vs_consensus"]["estimate"] = -0.987
    changed["heldout"]["gate"]["judge"] = "PASS"
    text = " ".join(rf.render(changed).split())
    assert "−0.99 [" in text and "κ from −0.99" in text
    assert "**PASS** on the held-out split" in text
    assert text != " ".join(rf.render(reports).split())


def test_the_gates_are_counted_in_words() -> None:
    def report(*statuses: str) -> dict[str, Any]:
        return {"gate": {"criteria": {f"c{i}": s for i, s in enumerate(statuses)}}}

    assert rf._statuses(report("FAIL", "FAIL", "FAIL", "FAIL", "UNDECIDED")) == (
        "four criteria FAIL and one UNDECIDED"
    )
    assert rf._statuses(report("PASS", "FAIL", "UNDECIDED")) == (
        "one criterion PASS, one FAIL and one UNDECIDED"
    )
    assert rf._statuses(report("FAIL", "FAIL")) == "two criteria FAIL"


def test_check_fails_on_a_readme_whose_figures_differ(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    readme = tmp_path / "README.md"
    text = (ROOT / "README.md").read_text()
    readme.write_text(text.replace(rf.between(text), "κ from 0.90 to 0.99"))
    monkeypatch.setattr(rf, "README", readme)
    assert rf.main(["--check"]) == 1
    assert "README.md's figures differ from the reports" in capsys.readouterr().out
    assert rf.main([]) == 0  # rewritten from the reports
    assert readme.read_text() == text
    assert rf.main(["--check"]) == 0


def test_the_kept_reports_are_reports() -> None:
    for split in rf.SPLITS:
        doc = json.loads((rf.KEPT / f"{split}.json").read_text())
        assert {"schema_version", "criteria", "gate", "run_id"} <= doc.keys()
