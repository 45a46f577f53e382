"""`calibrant monitor --verdicts FILE`: the drift monitor for a judge that runs elsewhere.

The judge is known only by files: its release verdicts on a gold cut (`calibrate --verdicts`),
then two weeks of production verdicts, each row with the time it was given. Experts label the
week's transcripts in the workbench of a real SQLite store (two raters agreeing: consensus);
the anchors (the gold cut) are re-judged elsewhere each week and come back in the same file.
Week 1 the judge agrees with the experts; week 2 the provider changed the model: every label
flipped, and the monitor raises the alarm and names the rules. Bad rows are one line naming
the file, the line and the field, exit 2."""

from __future__ import annotations

import json
import shutil
from collections import defaultdict
from pathlib import Path
from typing import Any

import yaml

from calibrant.contracts import Transcript
from calibrant.files import load_rubric
from calibrant.ops.catalog import add_rubric
from calibrant.store import labeling as lab
from calibrant.store import make_engine
from tests.conftest import ROOT, Result, run_cli

RUBRIC = ROOT / "rubrics" / "refund_communication.yaml"
GOLD = ROOT / "gold"
CRIT = "separates_done_from_pending"
WEEK1, WEEK2 = "2026-11-23T10:00:00Z", "2026-11-30T09:30:00+01:00"  # two ISO weeks
HEADER = "item,criterion,label,judge_version,judged_at\n"


def _flip(label: Any) -> Any:
    if isinstance(label, int):
        return label % 4 + 1
    return {"pass": "fail", "fail": "pass"}.get(label, label)


class World:
    """A gold cut (two items of each of 16 cases), the week's transcripts (one item of each
    other case per week) in the workbench queue `prod`, labeled by two agreeing experts."""

    def __init__(self, work: Path) -> None:
        self.work = work
        manifest = yaml.safe_load((GOLD / "manifest.yaml").read_text())
        self.consensus: dict[str, dict[str, Any]] = defaultdict(dict)
        for line in (GOLD / "labels" / "consensus.jsonl").read_text().splitlines():
            x = json.loads(line)
            self.consensus[x["item"]][x["criterion"]] = x["label"]
        by_case: dict[str, list[str]] = defaultdict(list)
        for item in sorted(manifest):
            if item in self.consensus:
                by_case[manifest[item]["case"]].append(item)
        cases = sorted(c for c, items in by_case.items() if len(items) >= 2)
        self.anchors = [i for c in cases[:16] for i in by_case[c][:2]]
        self.weeks = {n: [by_case[c][n] for c in cases[16:]] for n in (0, 1)}
        gold = work / "gold"
        (gold / "transcripts").mkdir(parents=True)
        (gold / "labels").mkdir()
        (gold / "manifest.yaml").write_text(
            yaml.safe_dump({k: {**manifest[k], "split": "calibration"} for k in self.anchors})
        )
        for k in self.anchors:
            shutil.copy(GOLD / "transcripts" / f"{k}.json", gold / "transcripts")
        for f in (GOLD / "labels").glob("*.jsonl"):
            rows = [
                ln for ln in f.read_text().splitlines() if json.loads(ln)["item"] in self.anchors
            ]
            (gold / "labels" / f.name).write_text("\n".join(rows) + "\n")
        self.env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{work / 'store.db'}"}

    def cli(self, *args: str) -> Result:
        return run_cli(*args, cwd=self.work, env=self.env)

    def rows(self, items: list[str], when: str | None, flip: bool = False) -> str:
        out = []
        for item in items:
            for crit, label in sorted(self.consensus[item].items()):
                judged = _flip(label) if flip else label
                out.append(f"{item},{crit},{judged},ext-judge-v1" + (f",{when}" if when else ""))
        return "".join(line + "\n" for line in out)

    def label_in_workbench(self) -> None:
        engine = make_engine(self.env["CALIBRANT_DATABASE_URL"])
        try:
            add_rubric(engine, RUBRIC.read_text(), "admin")
            items = self.weeks[0] + self.weeks[1]
            parsed = [
                (
                    n,
                    Transcript.model_validate_json(
                        (GOLD / "transcripts" / f"{i}.json").read_text()
                    ),
                )
                for n, i in enumerate(items, start=1)
            ]
            rubric_hash = load_rubric(RUBRIC).content_hash
            lab.upload_transcripts(engine, parsed, queue="prod", rubric_hash=rubric_hash, by="t")
            for item in items:
                answers = [(c, label, None) for c, label in self.consensus[item].items()]
                for rater in ("maria", "jonas"):
                    lab.save_labels(engine, rater, item, answers, by_id=True)
        finally:
            engine.dispose()


def _one_line(r: Result) -> str:
    assert r.code == 2, (r.code, r.out, r.err)
    lines = [ln for ln in r.err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in r.err, r.err
    return lines[0]


def test_a_recorded_judge_is_monitored_and_its_drop_raises_the_alarm(tmp_path: Path) -> None:
    w = World(tmp_path)
    rubric = ("--rubric", str(RUBRIC))
    release = tmp_path / "release.csv"
    release.write_text("item,criterion,label,judge_version\n" + w.rows(w.anchors, None))
    r = w.cli("calibrate", "--gold", "gold", "--verdicts", str(release), *rubric, "--json")
    assert r.code in (0, 1), r.err  # 1: the gate does not pass on so few items
    w.label_in_workbench()

    monitored = tmp_path / "monitored.csv"
    week1 = w.rows(w.weeks[0], WEEK1) + w.rows(w.anchors, WEEK1)
    monitored.write_text(HEADER + week1)
    args = ("monitor", "--verdicts", str(monitored), *rubric, "--anchors", "gold")
    args += ("--queue", "prod", "--resamples", "200", "--fail-on-drift")
    r = w.cli(*args, "--json")
    assert r.code == 0, r.err
    stable = json.loads(r.out)
    assert not stable["alarm"] and stable["status"][CRIT] == ["ok"]
    assert stable["judge_model"] == "recorded/ext-judge-v1"
    assert stable["verdicts"]["audited_items"] == len(w.weeks[0])
    assert stable["verdicts"]["anchor_rows"] == len(w.anchors) * 5
    assert stable["baseline"][CRIT]["anchor_kappa"] == 1.0
    (first,) = stable["windows"]
    assert first["name"] == "2026-11-23"
    c1 = next(c for c in first["criteria"] if c["criterion"] == CRIT)
    assert c1["kappa"] == 1.0 and c1["n_items"] == len(w.weeks[0])
    assert c1["anchor_kappa"] == 1.0 and c1["anchor_cases"] == 16

    # week 2: the model behind the judge changed elsewhere; every label flipped
    week2 = w.rows(w.weeks[1], WEEK2, flip=True) + w.rows(w.anchors, WEEK2, flip=True)
    monitored.write_text(HEADER + week1 + week2)
    html = tmp_path / "monitor.html"
    r = w.cli(*args, "--html", str(html))
    assert r.code == 1, (r.out, r.err)
    assert "recorded/ext-judge-v1" in html.read_text() and "<svg" in html.read_text()
    assert (
        f"recorded verdicts {monitored} ({monitored.read_text().count(chr(10)) - 1} rows" in r.out
    )
    assert "week 2026-11-30:" in r.out  # 09:30+01:00 on Monday is 08:30 UTC: that week
    assert f"DRIFT {CRIT}: below_gate (rule agreement, since 2026-11-30" in r.out, r.out
    assert f"DRIFT {CRIT}: judge_changed (rule anchors, since 2026-11-30" in r.out, r.out

    # another queue holds none of the file's items: nothing audited, and the report says so
    r = w.cli("monitor", "--verdicts", str(monitored), *rubric, "--queue", "elsewhere")
    assert r.code == 0, r.err
    assert "warning: no item of monitored.csv is a workbench item of queue(s) elsewhere" in r.out


def test_bad_verdicts_for_the_monitor_are_one_line_naming_file_line_and_field(
    tmp_path: Path,
) -> None:
    w = World(tmp_path)
    rubric = ("--rubric", str(RUBRIC))
    bad = tmp_path / "bad.csv"
    week = w.rows(w.weeks[0][:2], WEEK1).splitlines()

    def monitor(text: str, *extra: str) -> str:
        bad.write_text(text)
        return _one_line(w.cli("monitor", "--verdicts", str(bad), *rubric, *extra))

    no_time = week[1].rsplit(",", 1)[0] + ","
    said = monitor(HEADER + "\n".join([week[0], no_time, *week[2:]]) + "\n")
    assert f"{bad}:3" in said and "judged_at" in said and "required" in said
    wrong = week[1].rsplit(",", 1)[0] + ",last tuesday"
    said = monitor(HEADER + "\n".join([week[0], wrong]) + "\n")
    assert f"{bad}:3" in said and "judged_at" in said and "ISO 8601" in said
    twice = HEADER + "\n".join([week[0], week[0].replace("T10:00", "T11:00")]) + "\n"
    said = monitor(twice)
    assert f"{bad}:3" in said and "second verdict" in said and "2026-11-23" in said
    off_scale = week[0].replace(",pass,", ",maybe,").replace(",fail,", ",maybe,")
    said = monitor(HEADER + off_scale + "\n")
    assert f"{bad}:2" in said and "label" in said and "not on the scale" in said
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv", "gold"]  # no store opened
    # a good file whose judge was never calibrated: the baseline is missing, exit 2
    said = monitor(HEADER + "\n".join(week) + "\n")
    assert "ext-judge-v1" in said and "calibrate --verdicts" in said
    said = monitor(HEADER + "\n".join(week) + "\n", "--judge", "x")
    assert "leave out --judge" in said


def test_an_imported_inspect_log_feeds_the_monitor(tmp_path: Path) -> None:
    """`verdicts import` fills judged_at from the log's own times: the file it writes is
    calibrated, then monitored, each row in the week of its sample's completion."""
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 'store.db'}"}
    rubric = ("--rubric", str(RUBRIC), "--gold", str(GOLD))
    log = ROOT / "examples" / "verdicts" / "inspect_log.json"
    imported = tmp_path / "inspect.csv"
    cmd = ("verdicts", "import", str(log), "--from", "inspect", "--out", str(imported))
    r = run_cli(*cmd, *rubric, cwd=tmp_path, env=env)
    assert r.code == 0 and "judged_at" not in r.out, (r.out, r.err)  # every row has its time
    r = run_cli(
        "calibrate", "--verdicts", str(imported), *rubric, "--out", "rep", cwd=tmp_path, env=env
    )
    assert r.code in (0, 1), r.err
    args = ("--verdicts", str(imported), "--rubric", str(RUBRIC))
    r = run_cli("monitor", *args, "--json", cwd=tmp_path, env=env)
    assert r.code == 0, r.err
    report = json.loads(r.out)
    assert report["judge_model"] == "recorded/inspect/refund_comms_judge@3"
    assert [w["name"] for w in report["windows"]] == ["2026-11-30"]
    assert report["verdicts"]["rows"] == 20


def test_a_product_change_is_unexplained_until_the_anchors_rule_out_the_judge(
    tmp_path: Path,
) -> None:
    """Issue 31 through `calibrant monitor --verdicts`: 30 weeks of a recorded judge that never
    changes. Weeks 1-4 of traffic are the label-shift rule's reference (about 60% pass); from
    week 5 the product fails nearly everything. The shift is first said shift_unexplained (the
    anchors, re-judged each week with the release's answers, cannot yet exclude a judge change
    of 0.10 in kappa), then product_changed once they do, never judge_changed. With a minimum
    anchor set larger than the 16 cases, the rule is undecided and says so."""
    import datetime as dt
    import random

    w = World(tmp_path)
    rubric = ("--rubric", str(RUBRIC))
    release = tmp_path / "release.csv"
    release.write_text("item,criterion,label,judge_version\n" + w.rows(w.anchors, None))
    r = w.cli("calibrate", "--gold", "gold", "--verdicts", str(release), *rubric, "--json")
    assert r.code in (0, 1), r.err
    rng = random.Random(5)
    lines = []
    monday = dt.datetime(2026, 6, 1, 10, tzinfo=dt.UTC)
    for week in range(30):
        when = (monday + dt.timedelta(weeks=week)).isoformat().replace("+00:00", "Z")
        rate = 0.6 if week < 4 else 0.03
        for n in range(40):
            label = "pass" if rng.random() < rate else "fail"
            lines.append(f"t{week}-{n},{CRIT},{label},ext-judge-v1,{when}\n")
        lines.append(w.rows(w.anchors, when))
    monitored = tmp_path / "monitored.csv"
    monitored.write_text(HEADER + "".join(lines))
    args = ("monitor", "--verdicts", str(monitored), *rubric, "--anchors", "gold")
    args += ("--resamples", "200", "--fail-on-drift")
    r = w.cli(*args, "--json")
    assert r.code == 1, r.err
    report = json.loads(r.out)
    said = [
        tuple(next(c for c in x["criteria"] if c["criterion"] == CRIT)["verdicts"])
        for x in report["windows"]
    ]
    alarms = [v for v in said if v != ("ok",)]
    assert alarms and alarms[0] == ("shift_unexplained",), said
    assert said[-1] == ("product_changed",), said
    assert all("judge_changed" not in v for v in said)
    assert all(v == ("ok",) for v in said[:4]), said  # the reference weeks
    assert report["settings"]["reference_windows"] == 4
    assert report["baseline"][CRIT]["anchor_cases"] == 16
    assert report["baseline"][CRIT]["anchor_scorings"] == 1
    last = next(c for c in report["windows"][-1]["criteria"] if c["criterion"] == CRIT)
    assert last["shift_reference"]["cases"] == 160 and last["anchors_held"]["alarm"]

    # the text a pipeline logs, at the first week the shift fired: why it is not yet blamed
    first = said.index(("shift_unexplained",))
    cut = "".join(lines[: (first + 1) * 41])
    monitored.write_text(HEADER + cut)
    r = w.cli(*args)
    assert r.code == 1, r.err
    assert f"DRIFT {CRIT}: shift_unexplained (rule shift" in r.out, r.out
    assert f"why {CRIT}: label shift: the judged label shares moved" in r.out
    assert "the anchors cannot yet rule out a judge change of 0.10 in kappa" in r.out

    # an anchor set below the minimum: the judge-or-product rule is undecided, and says why
    monitored.write_text(HEADER + "".join(lines))
    r = w.cli(*args, "--min-anchor-cases", "20", "--json")
    assert r.code == 1, r.err
    report = json.loads(r.out)
    assert report["status"][CRIT] == ["shift_unexplained"]
    assert report["reasons"][CRIT][0] == (
        "anchors not used: the anchor set has 16 case(s), fewer than the minimum 20: the "
        "judge-or-product rule is undecided"
    )
    r = w.cli(*args, "--reference-windows", "0")
    assert _one_line(r) == "calibrant: error: monitor: --reference-windows 0 must be at least 1"
