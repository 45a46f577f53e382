"""The service's calibrate and compare jobs take what the CLI takes: a labeled workbench queue as
the gold set (`calibrate --from-store`), and recorded verdicts of a judge that runs elsewhere
(`calibrate --verdicts`, `compare FILE ...`), uploaded with the request or named as a file on
the server. Through the real service on PostgreSQL with its worker, against the real CLI on the
same inputs: the job's report has the CLI's figures. A bad verdicts row is a 422 naming the
file, the line and the field, and no job is queued."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT, run_cli
from tests.support.fake_openai import FakeServer, answer_from_schema, fake_openai
from tests.support.gold import small_gold
from tests.support.labeling import NDJSON, RUBRIC, gold_jsonl, labeling_service
from tests.support.service import Service, wait_job

pytestmark = pytest.mark.postgres

CONSENSUS = ROOT / "gold" / "labels" / "consensus.jsonl"
QUEUE_ITEMS = [164, 169, 116, 134, 117, 122, 146, 166, 139, 101, 102, 103]
SAME = ("criteria", "gate", "experts", "judge_outcomes", "rubric", "n_items")


def _consensus() -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for line in CONSENSUS.read_text().splitlines():
        x = json.loads(line)
        out.setdefault(x["item"], {})[x["criterion"]] = x["label"]
    return out


def _flip(label: Any) -> Any:
    if isinstance(label, int):
        return label % 4 + 1
    return {"pass": "fail", "fail": "pass"}.get(label, label)


def _verdicts(gold: Path, version: str, every: int) -> list[dict[str, Any]]:
    """A judge's rows for every gold item: the consensus, flipped on every `every`-th item."""
    consensus = _consensus()
    rows = []
    for n, item in enumerate(sorted(yaml.safe_load((gold / "manifest.yaml").read_text()))):
        for criterion, label in sorted(consensus[item].items()):
            rows.append(
                {
                    "item": item,
                    "criterion": criterion,
                    "label": _flip(label) if n % every == 0 else label,
                    "judge_version": version,
                }
            )
    return rows


def _csv(rows: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


@dataclass
class Ctx:
    service: Service
    admin: str
    rubric: str
    judge: FakeServer
    work: Path
    gold: Path

    def cli(self, *args: str) -> Any:
        env = {"CALIBRANT_DATABASE_URL": self.service.database_url}
        r = run_cli(*args, "--json", cwd=self.work, env=env)
        assert r.code in (0, 1), r.err  # 1: a gate not passed is still a report
        return json.loads(r.out)

    def job(self, kind: str, params: dict[str, Any]) -> dict[str, Any]:
        with self.service.client(self.admin) as admin:
            posted = admin.post("/api/jobs", json={"kind": kind, "params": params})
            assert posted.status_code == 202, posted.text
            done = wait_job(admin, posted.json()["id"], "finished", "failed", timeout=120)
            assert done["status"] == "finished", done
            run = admin.get(f"/api/runs/{done['run_id']}").json()
        return {**run["report"], "_job": done}


@pytest.fixture(scope="module")
def ctx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ctx]:
    """The service with its worker on a fresh PostgreSQL schema; queue "pilot" labeled by two
    experts (the shipped consensus, but ann-b fails gold-164 on explains_next_step: left
    undecided); a stored judge `live` at a fake endpoint; a small gold folder on the server."""
    work = tmp_path_factory.mktemp("job-inputs")
    pick = answer_from_schema(lambda c, labels: labels[len(c) % len(labels)])
    with fake_openai(pick) as judge, labeling_service("postgres", work, "--worker") as s:
        admin = s.client(s.user("boss", "admin"))
        got = admin.post(
            "/api/transcripts?queue=pilot", content=gold_jsonl(*QUEUE_ITEMS), headers=NDJSON
        )
        assert got.is_success, got.text
        consensus = _consensus()
        alias = {r["transcript_id"]: r["alias"] for r in admin.get("/api/items?queue=pilot").json()}
        for name in ("ann-a", "ann-b"):
            ann = s.client(s.user(name, "annotator"))
            for n in QUEUE_ITEMS:
                item = f"gold-{n:03d}"
                values = dict(consensus[item])
                if name == "ann-b" and item == "gold-164":
                    values["explains_next_step"] = _flip(values["explains_next_step"])
                labels = [{"criterion": c, "label": v} for c, v in values.items()]
                saved = ann.post("/api/labels", json={"item": alias[item], "labels": labels})
                assert saved.is_success, saved.text
        (rubric,) = [r["hash"] for r in admin.get("/api/rubrics").json()]
        saved_judge = (  # the stored rubric, by its hash
            f"model: openai/judge\napi_base: {judge.url}\nrubric: {rubric}\nmax_attempts: 1\n"
        )
        made = admin.post("/api/judges", params={"name": "live"}, content=saved_judge)
        assert made.status_code == 201, made.text
        admin.close()
        yield Ctx(s, s.user("root", "admin"), rubric, judge, work, small_gold(work / "gold", 4))


def test_a_calibrate_job_on_a_queue_has_the_figures_of_calibrate_from_store(ctx: Ctx) -> None:
    live = ("--model", "openai/judge", "--api-base", ctx.judge.url, "--max-attempts", "1")
    cli = ctx.cli(
        "calibrate", "--from-store", "pilot", *live, "--split", "all", "--resamples", "200",
        "--out", str(ctx.work / "r-queue"),
    )  # fmt: skip
    job = ctx.job(
        "calibrate", {"judge": "live", "queue": "pilot", "split": "all", "resamples": 200}
    )
    assert cli["n_items"] == job["n_items"] == len(QUEUE_ITEMS)
    for key in SAME:
        assert job[key] == cli[key], key
    for report in (cli, job):
        assert report["gold"]["source"].startswith("workbench queue pilot, exported at ")
        assert "from the store at postgresql" in report["gold"]["source"]
    assert job["_job"]["params"]["queue"] == "pilot"


def test_calibrate_and_compare_jobs_with_recorded_verdicts_have_the_cli_figures(
    ctx: Ctx,
) -> None:
    a_rows, b_rows = _verdicts(ctx.gold, "ext-v1", 3), _verdicts(ctx.gold, "ext-v2", 2)
    a_text = _csv(a_rows)
    on_server = ctx.work / "ext-v2.jsonl"
    on_server.write_text("".join(json.dumps(r) + "\n" for r in b_rows))
    (ctx.work / "ext-v1.csv").write_text(a_text)
    upload = {"name": "ext-v1.csv", "content": a_text}
    common = ("--gold", str(ctx.gold), "--split", "all", "--resamples", "200")

    cli = ctx.cli(
        "calibrate", "--verdicts", str(ctx.work / "ext-v1.csv"), "--rubric", str(RUBRIC),
        *common, "--out", str(ctx.work / "r-verdicts"),
    )  # fmt: skip
    params = {"gold": str(ctx.gold), "split": "all", "resamples": 200, "rubric": ctx.rubric}
    job = ctx.job("calibrate", {**params, "verdicts": upload})
    for key in SAME:
        assert job[key] == cli[key], key
    recorded, by_cli = job["judge"]["recorded"], cli["judge"]["recorded"]
    assert recorded["judge_version"] == "ext-v1" and recorded["file"] == "ext-v1.csv"
    assert recorded["sha256"] == by_cli["sha256"]
    # the job's parameters show the upload by name, size and hash, not its text
    shown = job["_job"]["params"]["verdicts"]
    assert "content" not in shown and shown["sha256"] == by_cli["sha256"]
    assert shown["bytes"] == len(a_text.encode())

    # compare: A uploaded, B a file on the server; and a stored judge against a file
    cli = ctx.cli(
        "compare", str(ctx.work / "ext-v1.csv"), str(on_server), "--rubric", str(RUBRIC), *common
    )
    job = ctx.job(
        "compare",
        {**params, "verdicts_a": upload, "verdicts_b": {"file": str(on_server)}},
    )
    assert job["judges"]["a"]["name"] == "ext-v1" and job["judges"]["b"]["name"] == "ext-v2"
    for key in ("criteria", "overall", "judges", "gold"):
        assert job[key] == cli[key], key
    assert cli["overall"]  # a decision was taken and shown
    mixed = ctx.job(
        "compare",
        {"a": "live", "verdicts_b": {"file": str(on_server)}, **params, "rubric": None},
    )
    assert mixed["judges"]["a"]["name"] == "live" and mixed["judges"]["b"]["name"] == "ext-v2"


def test_bad_verdicts_or_queue_get_one_clear_4xx_and_queue_nothing(ctx: Ctx) -> None:
    rows = _verdicts(ctx.gold, "ext-v1", 3)
    rows[1]["label"] = "maybe"  # line 3 of the CSV (the header is line 1)
    bad = {"name": "ext-v1.csv", "content": _csv(rows)}
    base = {"gold": str(ctx.gold), "split": "all", "rubric": ctx.rubric}
    with ctx.service.client(ctx.admin) as admin:
        before = len(admin.get("/api/jobs").json())
        r = admin.post("/api/jobs", json={"kind": "calibrate", "params": {**base, "verdicts": bad}})
        assert r.status_code == 422, r.text
        said = r.json()
        assert said["line"] == 3 and said["field"] == "label"
        assert said["detail"].startswith("ext-v1.csv:3: field 'label': label 'maybe' is not on")
        mixed = {**base, "rubric": None, "a": "live", "verdicts_b": bad}
        r = admin.post("/api/jobs", json={"kind": "compare", "params": mixed})
        assert r.status_code == 422 and r.json()["line"] == 3, r.text

        refused = {
            "judge and verdicts": (
                {"kind": "calibrate", "params": {**base, "judge": "live", "verdicts": bad}},
                "one of the two",
            ),
            "no rubric": (
                {"kind": "calibrate", "params": {"gold": str(ctx.gold), "verdicts": bad}},
                "checked on a rubric",
            ),
            "no file": (
                {"kind": "calibrate", "params": {**base, "verdicts": {"file": "no/such.csv"}}},
                "no/such.csv: no such file on the server",
            ),
            "a file outside the data root": (
                {"kind": "calibrate", "params": {**base, "verdicts": {"file": "/etc/passwd"}}},
                "/etc/passwd: outside the service's data root (CALIBRANT_DATA_ROOT)",
            ),
            "unknown queue": (
                {"kind": "calibrate", "params": {"judge": "live", "queue": "nope"}},
                "no queue 'nope'",
            ),
            "queue and gold": (
                {
                    "kind": "calibrate",
                    "params": {"judge": "live", "queue": "pilot", "gold": str(ctx.gold)},
                },
                "two sources of gold",
            ),
            "inspect upload": (
                {
                    "kind": "calibrate",
                    "params": {**base, "verdicts": {"name": "log.json", "content": "{}"}},
                },
                "an uploaded verdicts file is CSV or JSONL",
            ),
            "no side": ({"kind": "compare", "params": {**base, "a": "live"}}, "judge B"),
            "rubric beside a stored judge": (
                {"kind": "compare", "params": {**base, "a": "live", "verdicts_b": bad}},
                "rubric is for two verdicts files; a saved judge brings its own rubric",
            ),
        }
        for what, (body, message) in refused.items():
            r = admin.post("/api/jobs", json=body)
            assert r.status_code == 422, (what, r.text)
            assert message in r.json()["detail"], (what, r.text)
        assert len(admin.get("/api/jobs").json()) == before
    with ctx.service.client(ctx.service.user("ada", "adjudicator")) as adjudicator:
        body = {"kind": "calibrate", "params": {**base, "verdicts": bad}}
        assert adjudicator.post("/api/jobs", json=body).status_code == 403
