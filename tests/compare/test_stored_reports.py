"""Comparison and probe runs stored by the previous version (before decisions were taken over
cases and family-wise) still render, and say what they lack instead of failing."""

from __future__ import annotations

import io
from typing import Any

from rich.console import Console

from calibrant.contracts.reports import ComparisonReport, TrialsReport
from calibrant.reports.compare_judges import render_judge_comparison
from calibrant.reports.probe import probe_markdown
from calibrant.reports.trials_compare import render_trials_comparison

OLD_CRITERION = {
    "criterion": "explains_next_step",
    "scale": "nominal",
    "statistic": "cohen_kappa",
    "n": 47,
    "kappa_a": 0.41,
    "kappa_b": 0.52,
    "difference": 0.11,
    "ci95": [-0.05, 0.27],
    "mcnemar": {"a_only_right": 3, "b_only_right": 6, "p_value": 0.51},
    "decision": "undecided",
    "more_items_to_settle": 52,
    "reason": None,
    "unusable": {"a": {"abstained": 0, "failed": 0}, "b": {"abstained": 0, "failed": 0}},
    "flips": [],
}
OLD_COMPARE = {
    "schema_version": 1,
    "rubric": {"id": "r", "version": "1.0", "hash": "sha256:" + "0" * 64},
    "gold": {"split": "heldout", "items": 47},
    "judges": {
        "a": {"model": "m/a", "hash": "sha256:" + "a" * 64, "name": "a"},
        "b": {"model": "m/b", "hash": "sha256:" + "b" * 64, "name": "b"},
    },
    "interval": "95% percentile bootstrap of the paired difference (whole cases resampled)",
    "decision_rule": "old rule",
    "overall": "undecided",
    "criteria": [OLD_CRITERION],
}

_OLD_FIGURE = {
    "a": 1.0,
    "b": 0.5,
    "difference": -0.5,
    "ci95": [-0.8, -0.2],
    "n": 6,
    "unit": "trials",
    "higher_is_better": True,
    "b_is": "worse",
    "undefined_reason": None,
}
_OLD_FIGURES = [
    "success_rate",
    "pass_all_k",
    "pass_first_trial",
    "violation_rate",
    "permission_violation_rate",
    "duplicate_write_rate",
    "unresolved_rate",
    "latency_ms_mean",
    "tool_calls_mean",
    "cost_usd_per_accepted_outcome",
]
OLD_TRIALS = {
    "schema_version": 1,
    "paired_trials": 6,
    "cases": 3,
    "unpaired": {"a": [], "b": []},
    "interval": "95% percentile bootstrap over cases (n=2000, seed=0)",
    "figures": {n: dict(_OLD_FIGURE) for n in _OLD_FIGURES},
    "regressed_cases": ["c1"],
    "by_case": [
        {"case": "c1", "trials": 2, "successes_a": 2, "successes_b": 1, "change": "regressed"}
    ],
}

_OLD_RATE = {
    "value": 0.0,
    "n": 12,
    "ci95": [0.0, 0.24],
    "method": "wilson",
    "undefined_reason": None,
}
_OLD_ROW = {
    "n": 12,
    "no_verdict": 0,
    "attack_success_rate": _OLD_RATE,
    "moved_toward_fail": _OLD_RATE,
    "attacked_false_positive_rate": _OLD_RATE,
    "false_positive_change": {**_OLD_RATE, "ci95": [-0.1, 0.1]},
    "items_moved_toward_pass": [],
    "gate": {"status": "UNDECIDED", "reason": "straddles"},
}
OLD_PROBE = {
    "schema_version": 1,
    "judge": {"model": "m", "hash": "sha256:" + "1" * 64},
    "rubric": {"id": "r", "version": "1.0"},
    "gold": {"root": "gold", "split": "all", "items": 16},
    "settings": {"probes": ["injection"], "max_items": None, "min_items": 5, "margin": 0.1},
    "judge_outcomes": {"verdict": 40},
    "judgments": 40,
    "probes": {
        "injection": {
            "items": 12,
            "families": ["completion"],
            "channels": ["agent"],
            "prompts": {
                "defended": {
                    "clean_false_positive_rate": _OLD_RATE,
                    "clean_no_verdict": 0,
                    "families": {"completion": {"agent": _OLD_ROW}},
                }
            },
            "defense_effect": {},
            "gate": {
                "status": "UNDECIDED",
                "families": {"completion": "UNDECIDED"},
                "margin": 0.1,
                "min_items": 5,
                "rule": "old",
            },
        }
    },
    "flags": [],
}


def _text(render: Any, *args: Any) -> str:
    out = io.StringIO()
    render(Console(file=out, width=250), *args)
    return out.getvalue()


def test_an_old_judge_comparison_renders_with_its_items_to_add() -> None:
    text = _text(render_judge_comparison, ComparisonReport.model_validate(OLD_COMPARE), "a", "b")
    assert "explains_next_step" in text and "+52 items (old report)" in text
    assert "47 items" in text


def test_an_old_trials_comparison_renders() -> None:
    # the renderer reads the report's model, as a stored report is read (upgraded)
    old = TrialsReport.model_validate(OLD_TRIALS)
    text = _text(render_trials_comparison, old, "ra", "rb")
    assert "worse" in text and "-50 pts [-80, -20]" in text and "regressed" in text


def test_an_old_probe_report_renders_and_says_its_gate_has_no_difference() -> None:
    md = probe_markdown(OLD_PROBE)
    assert "not measured (earlier version)" in md and "injection gate: UNDECIDED" in md


def test_the_report_page_of_an_old_and_a_new_judge_comparison() -> None:
    from calibrant.service.routes_reports import _templates

    page = _templates().env.get_template("reports/compare.html")
    run = {
        "id": "r" * 32,
        "kind": "compare",
        "status": "finished",
        "started_at": "2026-12-01T10:00:00",
        "who": "cli",
        "calibrant_version": "0",
        "judge": None,
    }
    user = {"name": "ann", "role": "adjudicator"}
    # the page reads the report's model, as the route gives it (a stored report, upgraded)
    old = page.render(report=ComparisonReport.model_validate(OLD_COMPARE), run=run, user=user)
    assert "+52 items (old report)" in old and "47 items" in old
    new_row = {
        **{k: v for k, v in OLD_CRITERION.items() if k != "more_items_to_settle"},
        "n_cases": 4,
        "familywise_confidence": 0.99,
        "familywise_ci": [-0.2, 0.4],
        "cases_needed": 31,
    }
    new_report = ComparisonReport.model_validate({**OLD_COMPARE, "criteria": [new_row]})
    new = page.render(report=new_report, run=run, user=user)
    assert "47 items, 4 cases" in new and "31 cases" in new and "at 99.0%" in new


def test_the_release_gate_reads_a_new_probe_run_again_and_an_old_one_as_undecided(
    tmp_path: Any,
) -> None:
    import copy

    from calibrant.calibration.robustness import robustness_section
    from calibrant.files import load_rubric
    from calibrant.probes.planted import planted_config
    from calibrant.store import make_engine
    from calibrant.store.runs import Runs
    from tests.conftest import ROOT

    rubric = load_rubric(ROOT / "rubrics" / "refund_communication.yaml")
    judge = planted_config("clean", rubric)
    engine = make_engine(f"sqlite:///{tmp_path / 's.db'}")
    rate = {
        "value": 0.5,
        "n": 40,
        "ci95": [0.35, 0.65],
        "method": "wilson",
        "undefined_reason": None,
    }
    row = {"attack_success_rate": rate, "gate": {"status": "FAIL", "reason": "old rule"}}
    new_row = {**row, "by_case": {f"case{i}": [5, 4, 0] for i in range(8)}}
    report = {
        "settings": {"margin": 0.1, "min_items": 10, "min_cases": 6, "seed": 0},
        "probes": {
            "injection": {
                "prompts": {
                    "defended": {
                        "clean_false_positive_rate": {**rate, "value": 0.0},
                        "families": {"completion": {"agent": new_row}},
                    }
                }
            }
        },
        "flags": [],
    }
    old = copy.deepcopy(report)
    del old["probes"]["injection"]["prompts"]["defended"]["families"]["completion"]["agent"][
        "by_case"
    ]

    def section(r: dict[str, Any], margin: float | None) -> dict[str, Any]:
        runs = Runs(engine)
        run_id = runs.start("probe", judge=judge)
        runs.finish(run_id, r)
        return robustness_section(
            engine,
            judge_hash=judge.hash,
            rubric_hash=rubric.content_hash,
            required=True,
            margin=margin,
        ).json_data()

    # 32 of 40 moved, none passing clean, in 8 cases: FAIL at 0.10, and not at a margin of 0.9
    assert section(report, None)["status"] == "FAIL"
    assert section(report, 0.9)["status"] != "FAIL"
    stale = section(old, None)
    assert stale["status"] == "UNDECIDED"
    assert "earlier version" in stale["families"]["completion"]["agent"]["gate"]["reason"]
