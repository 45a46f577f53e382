"""The anchors record (an ``anchors`` run's summary, `AnchorRecord`): both schema versions a store
may hold keep loading and are written back as they were, and a record that cannot be read is
left out in one line naming its run, never a traceback."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from pydantic import ValidationError

from calibrant.contracts import JudgeConfig
from calibrant.contracts.reports.monitor_parts import AnchorRecord
from calibrant.ops import monitor as monitor_ops
from calibrant.ops.monitor import MonitorOptions, monitor_report
from calibrant.ops.monitor_anchors import anchor_runs
from calibrant.store import make_engine
from calibrant.store.runs import Runs

CFG = JudgeConfig(model="openai/m", prompt_template_version="v", rubric_hash="sha256:r")
OTHER = JudgeConfig(model="openai/other", prompt_template_version="v", rubric_hash="sha256:r")


def _v2(start: str = "2026-11-30T00:00:00+00:00") -> dict[str, Any]:
    """A record as `record_anchors` writes it now (schema_version 2)."""
    return {
        "schema_version": 2,
        "judge_version": CFG.hash,
        "window": "week",
        "start": start,
        "end": "2026-12-07T00:00:00+00:00",
        "sample_index": 1_009_830,
        "seed": 0,
        "per_window": 2,
        "drawn": ["case-b", "case-a"],
        "model_calls": 3,
        "gold": {"root": "/g", "split": "calibration", "hashes": {"labels": "sha256:1"}},
        "baseline_anchor_kappa": {"tone": 0.8125, "empty": None},
        "release_scorings": 3,
        "anchor_cases": {"tone": 16, "empty": 0},
        "baseline_anchor_reference": {"tone": [30.5, 17.5, 48.0], "empty": None},
        "cases": {
            "tone": [
                {"case": "0000:case-b", "judge": ["pass", "fail"], "expert": ["pass", "pass"]},
                {"case": "0001:case-a", "judge": ["fail"], "expert": ["fail"]},
            ],
            "empty": [],
        },
    }


def _v1(start: str = "2026-11-23T00:00:00+00:00") -> dict[str, Any]:
    """A record written before issue 31: one release scoring, no set size, no reference."""
    old = _v2(start)
    del old["release_scorings"], old["anchor_cases"], old["baseline_anchor_reference"]
    return {**old, "schema_version": 1}


def _stored(data: dict[str, Any]) -> str:
    return json.dumps(data, sort_keys=True)  # what Runs.finish stores


@pytest.mark.parametrize("made", [_v2, _v1], ids=["version 2", "version 1"])
def test_a_stored_record_loads_and_is_written_back_byte_for_byte(made: Any) -> None:
    data = made()
    record = AnchorRecord.model_validate(copy.deepcopy(data))
    assert _stored(record.json_data()) == _stored(data)


def test_what_a_version_1_record_did_not_hold_is_unset_not_guessed() -> None:
    record = AnchorRecord.model_validate(_v1())
    assert record.schema_version == 1
    assert record.release_scorings is None and record.anchor_cases is None
    assert record.baseline_anchor_reference is None
    assert record.cases["tone"][0].judge == ["pass", "fail"]
    # no schema_version at all reads as version 1
    unversioned = {k: v for k, v in _v1().items() if k != "schema_version"}
    assert AnchorRecord.model_validate(unversioned).schema_version == 1
    # version 2's first records (before rule 3's second test) hold no label shares
    early = {k: v for k, v in _v2().items() if k != "baseline_anchor_reference"}
    assert _stored(AnchorRecord.model_validate(early).json_data()) == _stored(early)


def test_a_version_2_record_without_its_release_scorings_is_refused() -> None:
    data = _v2()
    del data["release_scorings"]
    with pytest.raises(
        ValidationError, match="a schema_version 2 record holds release_scorings, this one has none"
    ):
        AnchorRecord.model_validate(data)


def _store(tmp_path: Path, records: list[tuple[JudgeConfig, dict[str, Any], str]]) -> Runs:
    runs = Runs(make_engine(f"sqlite:///{tmp_path / 'store.db'}"))
    for config, data, status in records:
        run_id = runs.start("anchors", judge=config, arguments={"window": data.get("window")})
        runs.finish(run_id, data, status=status)
    return runs


def _newer() -> dict[str, Any]:
    return {**_v2("2026-12-07T00:00:00+00:00"), "schema_version": 3}


def _broken() -> dict[str, Any]:
    data = _v2("2026-12-14T00:00:00+00:00")
    data["cases"]["tone"][0]["judge"] = "pass"  # a list no more
    return data


def test_the_store_gives_each_windows_record_and_one_line_per_unreadable_run(
    tmp_path: Path,
) -> None:
    runs = _store(
        tmp_path,
        [
            (CFG, _v1(), "finished"),
            (CFG, _v2(), "finished"),
            (CFG, _newer(), "finished"),
            (CFG, _broken(), "finished"),
            (CFG, {**_v2("2026-12-21T00:00:00+00:00"), "window": "day"}, "finished"),
            (OTHER, _v2("2026-12-28T00:00:00+00:00"), "finished"),
            (CFG, {"error": "the anchors' judging stopped"}, "failed"),
        ],
    )
    found, unreadable = anchor_runs(runs, CFG.hash, "week")
    assert sorted(found) == ["2026-11-23T00:00:00+00:00", "2026-11-30T00:00:00+00:00"]
    v1, v2 = found["2026-11-23T00:00:00+00:00"], found["2026-11-30T00:00:00+00:00"]
    assert v1.record.release_scorings is None and v2.record.release_scorings == 3
    detail = runs.detail(v2.run_id)
    assert detail is not None and detail.report == _v2()
    ids = {
        r.id: json.loads(json.dumps(d.report)) for r in runs.recent(kind="anchors")
        if (d := runs.detail(r.id)) is not None
    }  # fmt: skip
    newer = next(i for i, rep in ids.items() if rep.get("schema_version") == 3)
    broken = next(i for i, rep in ids.items() if rep.get("start", "").startswith("2026-12-14"))
    assert len(unreadable) == 2 and all("\n" not in line for line in unreadable)
    assert unreadable[0].startswith(
        f"anchors run {newer} of window 2026-12-07 left out, its record cannot"
    )
    assert "written by a newer calibrant (this one reads up to 2)" in unreadable[0]
    assert unreadable[1].startswith(
        f"anchors run {broken} of window 2026-12-14 left out, its record cannot"
    )
    assert unreadable[1].endswith(
        "cannot be read: cases.tone.0.judge: Input should be a valid list"
    )


def test_the_monitor_warns_of_an_unreadable_record_and_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the user sees: the report's warnings (printed as `warning: ...` lines) name the run;
    the readable windows' anchors are used, and nothing raises."""
    runs = _store(tmp_path, [(CFG, _v2(), "finished"), (CFG, _newer(), "finished")])
    version = SimpleNamespace(judge_hash=CFG.hash, calibration={"criteria": []})
    seen: dict[str, Any] = {}

    def replay(v: Any, baseline: Any, inputs: Any, options: Any, **kw: Any) -> str:
        seen.update(kw)
        return "report"

    monkeypatch.setattr(monitor_ops, "monitor_version", lambda *a: version)
    monkeypatch.setattr(
        monitor_ops, "agreement_over_time", lambda *a, **k: SimpleNamespace(windows=[])
    )
    monkeypatch.setattr(monitor_ops, "audit_windows", lambda *a, **k: [])
    monkeypatch.setattr(monitor_ops, "replay", replay)
    assert monitor_report(runs.engine, MonitorOptions(judge=None)) == "report"  # type: ignore[comparison-overlap]
    assert seen["frozen"] is not None and seen["frozen"].root == "/g"
    [line] = seen["warnings"]
    assert line.startswith("anchors run ") and "of window 2026-12-07 left out" in line
