"""What an expert can learn (issue 30, item 2), walked through the service in process on
SQLite and PostgreSQL: transcripts from `calibrant trials` (ids that name the case, the agent,
the seed and the trial) are scored by a judge, drawn into an audit queue and uploaded into a
calibration queue in two batches (one per agent); two annotators label, an adjudicator
settles; then each expert follows every link of every page it can open and calls every GET
route of the API its role allows, every path parameter filled with what earlier answers
named. No answer names a transcript id, a case, an agent, a trial, a case's title or expected
outcome, an upload time, or (to an annotator) a run or a judge's words. The run data an
adjudicator may read (a run's report, the agreement over time) names transcripts and the
judge's verdicts: after reading it, the adjudicator may neither label nor adjudicate the items
it names. And the hidden id is no oracle: an expert who guesses it right is answered as one
who guesses wrong."""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import httpx
import pytest

from calibrant.contracts import Transcript
from tests.conftest import ROOT, run_cli
from tests.support.browser import csrf_of, login
from tests.support.fake_openai import answer_from_schema, fake_openai
from tests.support.labeling import BACKENDS, labeling_service
from tests.support.service import Service

RUBRIC = ROOT / "rubrics" / "refund_communication.yaml"
NDJSON = {"Content-Type": "application/x-ndjson"}
RATIONALE = "JUDGE-SAID-7c1e"
AUDITED = [  # scored by the judge, then drawn into the audit queue (seed 0)
    ("timeout_after_payment_commit", "scripted:retry-without-reconcile"),
    ("timeout_after_payment_commit", "scripted:correct"),
    ("eligible_damaged_order", "scripted:correct"),
    ("revoked_permission", "scripted:correct"),
]
BATCHES = [  # uploaded into the calibration queue, one batch per agent (seed 1)
    [
        ("eligible_damaged_order", "scripted:correct"),
        ("revoked_permission", "scripted:correct"),
        ("approval_required", "scripted:correct"),
    ],
    [
        ("eligible_damaged_order", "scripted:retry-without-reconcile"),
        ("timeout_after_payment_commit", "scripted:retry-without-reconcile"),
    ],
]
ANSWERS = {
    "separates_done_from_pending": "pass",
    "explains_next_step": "pass",
    "no_claim_before_confirmed": "pass",
    "reports_access_problem": "not_applicable",
    "overall_clarity": "3",
}
RUN_DATA = re.compile(r"^/(api/runs/[^/]+|reports/[^/?]+|api/agreement-over-time)")
"""What names the judge's verdicts: reading it counts as seen (walked apart, last)."""


@dataclass
class World:
    service: Service
    admin: httpx.Client
    transcripts: list[Transcript]
    audit_queue: list[str]  # transcript ids drawn into the audit queue
    calibration: list[str]  # transcript ids uploaded into the calibration queue
    alias: dict[str, str]  # transcript id -> alias
    uploaded_at: list[str]  # the items' upload times, as the admin reads them
    runs: list[str]  # the score run and the audit run
    tokens: dict[str, str] = field(default_factory=dict)


def _judge_answer() -> Any:
    answer = answer_from_schema(lambda _, labels: labels[0])

    def said(body: dict[str, Any]) -> str:
        return answer(body).replace("fake rationale for", RATIONALE)

    return said


@pytest.fixture(scope="module", params=BACKENDS)
def world(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    trial: Callable[..., Transcript],
) -> Iterator[World]:
    work = tmp_path_factory.mktemp("expert-view")
    with labeling_service(request.param, work) as service:
        admin = service.client(service.user("ev-admin", "admin"))
        audited = [trial(case, agent, seed=0) for case, agent in AUDITED]
        batches = [[trial(case, agent, seed=1) for case, agent in b] for b in BATCHES]
        folder = work / "scored"
        folder.mkdir()
        for n, t in enumerate(audited):
            (folder / f"t{n}.json").write_text(t.model_dump_json())
        env = {"CALIBRANT_DATABASE_URL": service.database_url}
        with fake_openai(_judge_answer()) as server:
            (work / "judges").mkdir()
            (work / "judges" / "ev.yaml").write_text(
                f"model: openai/ev\napi_base: {server.url}\nrubric: {RUBRIC}\nmax_attempts: 1\n"
            )
            scored = run_cli("score", str(folder), "--judge", "ev", "--json", cwd=work, env=env)
            assert scored.code == 0, scored.err
        score_run = json.loads(scored.out)["run_id"]
        body = {"score_run": score_run, "queue": "audit-q", "rate": 1, "per_case": 10}
        drawn = admin.post("/api/audits", json=body)
        assert drawn.status_code == 200, drawn.text
        assert len(drawn.json()["items"]) == len(audited)
        for batch in batches:
            content = "".join(t.model_dump_json() + "\n" for t in batch).encode()
            got = admin.post("/api/transcripts?queue=calibration", content=content, headers=NDJSON)
            assert got.status_code == 200, got.text
        listed = admin.get("/api/items").json()
        judge = "model: openai/house\napi_base: http://127.0.0.1:9/v1\nrubric: " + str(RUBRIC)
        stored = admin.post("/api/judges", params={"name": "house"}, content=judge)
        assert stored.status_code == 201, stored.text
        yield World(
            service=service,
            admin=admin,
            transcripts=audited + [t for b in batches for t in b],
            audit_queue=[t.transcript_id for t in audited],
            calibration=[t.transcript_id for b in batches for t in b],
            alias={x["transcript_id"]: x["alias"] for x in listed},
            uploaded_at=[x["uploaded_at"] for x in listed],
            runs=[score_run, drawn.json()["run_id"]],
        )


def _secrets(world: World) -> set[str]:
    """Every string that would tell an expert what it rates, or when it was uploaded."""
    out: set[str] = set(world.uploaded_at)
    for t in world.transcripts:
        assert t.case is not None
        out |= {t.transcript_id, t.case_id, t.provenance.agent, t.provenance.agent_version}
        out |= {f"s{t.provenance.seed}:t{t.trial}", t.provenance.agent.split(":")[-1]}
        out |= {x for x in (t.case.title, t.case.description) if x}
        expected = t.case.expected
        for e in expected if isinstance(expected, list) else [expected] if expected else []:
            out.add(e.name)
    # what the rubric or the API's schema (its examples) says anyway tells nothing of an item
    static = (RUBRIC.read_text() + world.admin.get("/openapi.json").text).casefold()
    return {s for s in out if len(s) >= 5 and s.casefold() not in static}


_HREF = re.compile(r'(?:href|action)="([^"]+)"')
KEYS = {  # a path parameter -> the JSON keys whose values may fill it
    "item": ("id", "alias", "item", "next_item"),
    "run_id": ("id", "run_id"),
    "ref": ("name", "hash"),
    "content_hash": ("hash",),
    "rater": ("rater", "name"),
    "job_id": ("id",),
}


def _harvest(data: Any, into: dict[str, set[str]]) -> None:
    if isinstance(data, dict):
        for k, v in data.items():
            if isinstance(v, str) and len(v) < 300:
                into.setdefault(k, set()).add(v)
            _harvest(v, into)
    elif isinstance(data, list):
        for v in data:
            _harvest(v, into)


def walk(client: httpx.Client, *, run_data: bool) -> dict[str, str]:
    """Every page and GET answer `client` reaches: the workbench's links from /, every GET
    route of /openapi.json with each path parameter filled with every value earlier answers
    named, the labeling and adjudication pages of every item named (`run_data`: False leaves
    out what names the judge's verdicts, RUN_DATA). Returns path -> what was answered."""
    schema = client.get("/openapi.json").json()
    routes = [p for p, ops in schema["paths"].items() if "get" in ops]
    seen: dict[str, str] = {}
    values: dict[str, set[str]] = {"rater": {"consensus"}}
    queue: deque[str] = deque(["/", "/login", "/adjudicate", "/reports", "/monitor"])
    queue += ["/openapi.json", "/api/docs"]
    queue += [p for p in routes if "{" not in p]
    for _ in range(4):  # rounds: each fills the templates with what the one before found
        while queue:
            path = queue.popleft()
            if path in seen or not path.startswith("/") or path.startswith(("//", "/logout")):
                continue
            if RUN_DATA.match(path) and not run_data:
                continue
            got = client.get(path)
            seen[path] = f"{got.status_code} {got.headers.get('location', '')}\n{got.text}"
            assert got.status_code < 500, (path, got.text[:500])
            kind = got.headers.get("content-type", "")
            if "ndjson" in kind:
                _harvest([json.loads(line) for line in got.text.splitlines()], values)
            elif "json" in kind:
                _harvest(got.json(), values)
            elif "html" in kind:
                queue += [urlsplit(x.replace("&amp;", "&")).path for x in _HREF.findall(got.text)]
        for template in routes:
            names = re.findall(r"{(\w+)(?::path)?}", template)
            if len(names) != 1:
                continue
            for key in KEYS.get(names[0], ()):
                for value in sorted(values.get(key, ())):
                    queue.append(re.sub(r"{\w+(?::path)?}", quote(value, safe=""), template))
        for value in sorted(values.get("next_item", set()) | values.get("alias", set())):
            queue += [f"/label/{quote(value)}", f"/adjudicate/{quote(value)}"]
        for value in sorted(values.get("queue", set())):
            queue.append(f"/api/items?queue={quote(value)}")
    return seen


def _label_everything(world: World, token: str, disagree: bool) -> None:
    """An annotator at the workbench: from its queues page, 'Label next' until all is done."""
    browser = login(world.service, token)
    labeled = 0
    while (found := re.search(r'href="(/label/[^"]+)"', browser.get("/").text)) is not None:
        item = browser.get(found.group(1))
        assert item.status_code == 200, item.text
        answers = {f"label.{k}": v for k, v in ANSWERS.items()}
        if disagree:
            answers["label.overall_clarity"] = "1"
        done = browser.post(found.group(1), data={"csrf": csrf_of(item.text), **answers})
        assert done.status_code == 303, done.text
        labeled += 1
        assert labeled <= 20
    assert labeled == len(world.audit_queue) + len(world.calibration)


@pytest.fixture(scope="module")
def labeled(world: World) -> World:
    world.tokens = {
        "ann-a": world.service.user("ev-ann-a", "annotator"),
        "ann-b": world.service.user("ev-ann-b", "annotator"),
        "lead": world.service.user("ev-lead", "adjudicator"),
    }
    _label_everything(world, world.tokens["ann-a"], disagree=False)
    _label_everything(world, world.tokens["ann-b"], disagree=True)
    return world


def _assert_blind(seen: dict[str, str], secrets: set[str], who: str) -> None:
    for path, text in seen.items():
        folded = text.casefold()
        for secret in secrets:
            assert secret.casefold() not in folded, (who, secret, path)


def test_an_annotator_learns_nothing_of_what_it_rates_on_any_page_or_route(
    labeled: World,
) -> None:
    world = labeled
    secrets = _secrets(world) | set(world.runs) | {RATIONALE}
    for who in ("ann-a", "ann-b"):
        api = world.service.client(world.tokens[who])
        browser = login(world.service, world.tokens[who])
        seen = walk(api, run_data=False) | walk(api, run_data=True)
        pages = walk(browser, run_data=False)
        assert {f"/label/{quote(world.alias[i])}" for i in world.audit_queue} <= set(pages)
        assert {f"/api/items/{quote(world.alias[i], safe='')}" for i in world.calibration} <= set(
            seen
        )
        _assert_blind(seen, secrets, who)
        _assert_blind(pages, secrets, who)
        for path in ("/api/runs", "/api/agreement-over-time", f"/api/runs/{world.runs[1]}"):
            assert api.get(path).status_code == 403, path


def test_an_adjudicator_learns_nothing_until_it_reads_run_data_then_may_not_label_it(
    labeled: World,
) -> None:
    world = labeled
    token = world.tokens["lead"]
    api = world.service.client(token)
    browser = login(world.service, token)
    secrets = _secrets(world) | {RATIONALE}
    seen = walk(api, run_data=False) | walk(browser, run_data=False)
    assert "/adjudicate" in seen and any(p.startswith("/adjudicate/item-") for p in seen)
    assert any(p.startswith("/api/export/labels/") for p in seen)
    _assert_blind(seen, secrets, "lead")
    offered = {d["item"] for d in api.get("/api/disagreements").json()}
    assert offered == {world.alias[i] for i in world.audit_queue + world.calibration}
    # the run data: the audit's report names each audited transcript and the judge's verdict
    read = walk(api, run_data=True) | walk(browser, run_data=True)
    assert f"/api/runs/{world.runs[1]}" in read and f"/reports/{world.runs[1]}" in read
    assert any(world.audit_queue[0] in text for text in read.values())
    for transcript_id in world.audit_queue:
        alias = world.alias[transcript_id]
        body = {"item": alias, "labels": [{"criterion": "explains_next_step", "label": "pass"}]}
        refused = api.post("/api/labels", json=body)
        assert refused.status_code == 409, refused.text
        assert "judge's verdict" in refused.json()["detail"]
        decide = {
            "item": alias,
            "criterion": "overall_clarity",
            "label": 3,
            "reason": "both readings hold",
        }
        refused = api.post("/api/adjudications", json=decide)
        assert refused.status_code == 409 and "judge's verdict" in refused.json()["detail"]
        assert "No open disagreement" in browser.get(f"/adjudicate/{alias}").text
    # what no run named stays open to it
    offered = {d["item"] for d in api.get("/api/disagreements").json()}
    assert offered == {world.alias[i] for i in world.calibration}
    alias = world.alias[world.calibration[0]]
    decide = {"item": alias, "criterion": "overall_clarity", "label": 3, "reason": "clear"}
    assert api.post("/api/adjudications", json=decide).status_code == 200


def test_a_hidden_id_answers_as_a_wrong_guess(labeled: World) -> None:
    world = labeled
    hidden = world.calibration[0]
    wrong = hidden.replace(":t1", ":t7")
    body = {"labels": [{"criterion": "explains_next_step", "label": "pass"}]}
    for who in ("ann-a", "lead"):
        api = world.service.client(world.tokens[who])
        browser = login(world.service, world.tokens[who])
        answers = {}
        for name in (hidden, wrong):
            answers[name] = [
                api.get(f"/api/items/{quote(name)}"),
                api.post("/api/labels", json={"item": name, **body}),
                api.get("/api/labels", params={"item": name}),
                browser.get(f"/label/{quote(name)}"),
            ]
            if who == "lead":
                answers[name] += [
                    api.get("/api/disagreements", params={"item": name}),
                    api.get("/api/adjudications", params={"item": name}),
                    browser.get(f"/adjudicate/{quote(name)}"),
                    api.post(
                        "/api/adjudications",
                        json={
                            "item": name,
                            "criterion": "overall_clarity",
                            "label": 3,
                            "reason": "r",
                        },
                    ),
                ]
        for right, guess in zip(answers[hidden], answers[wrong], strict=True):
            assert (right.status_code, right.text) == (guess.status_code, guess.text), (
                who,
                right.request.url,
            )
        assert answers[hidden][0].status_code == 404
        assert answers[hidden][2].json() == []  # its own labels of it are not found by id
    # the admin still names items by their transcript ids
    assert world.admin.get(f"/api/items/{quote(hidden)}").status_code == 200


def test_expert_lists_come_in_the_aliases_order_without_upload_times(labeled: World) -> None:
    world = labeled
    api = world.service.client(world.tokens["ann-a"])
    for queue, ids in (("audit-q", world.audit_queue), ("calibration", world.calibration)):
        rows = api.get("/api/items", params={"queue": queue}).json()
        assert [r["id"] for r in rows] == sorted(world.alias[i] for i in ids)
        for row in rows:
            assert row["uploaded_at"] is None and row["transcript_hash"] is None
            assert row["transcript_id"] is None and row["id"] == row["alias"]
    mine = [x["item"] for x in api.get("/api/labels").json()]
    assert mine == sorted(mine) and set(mine) == set(world.alias.values())
    lead = world.service.client(world.tokens["lead"])
    disputes = [d["item"] for d in lead.get("/api/disagreements").json()]
    assert disputes == sorted(disputes)
    page = login(world.service, world.tokens["lead"]).get("/adjudicate").text
    listed = re.findall(r'href="/adjudicate/(item-[0-9a-f]+)"', page)
    assert listed == sorted(listed) and listed
    admin = world.admin.get("/api/items", params={"queue": "calibration"}).json()
    assert all(r["uploaded_at"] and r["transcript_hash"] for r in admin)


def test_an_upload_cannot_take_an_alias(labeled: World) -> None:
    world = labeled
    target = world.calibration[1]
    alias = world.alias[target]
    impostor = world.transcripts[0].model_copy(update={"transcript_id": alias})
    for name in (alias, alias.upper(), "item-000000000000"):
        doc = impostor.model_copy(update={"transcript_id": name})
        got = world.admin.post(
            "/api/transcripts?queue=impostor", content=doc.model_dump_json(), headers=NDJSON
        )
        assert got.status_code == 422, got.text
        assert got.json()["field"] == "transcript_id" and got.json()["line"] == 1
        assert "alias" in got.json()["detail"]
    assert world.admin.get("/api/items", params={"queue": "impostor"}).json() == []
    # the alias an expert follows still shows the item it named
    api = world.service.client(world.tokens["ann-a"])
    shown = api.get(f"/api/items/{alias}").json()
    assert shown["queue"] == "calibration"
    assert world.admin.get(f"/api/items/{alias}").json()["transcript_id"] == target


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_schema_5_store_upgrades_in_place_keeping_items_labels_and_views(
    backend: str, tmp_path: Path
) -> None:
    """Schema 6 adds who has read the judge's verdicts (a table); a store an earlier calibrant
    wrote (schema 5) is upgraded in place, its items, aliases, labels and label views kept, and
    the verdict rule holds on it at once."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import create_engine, inspect, text

    import calibrant.store.migrate as migrate_module
    from calibrant.store import upgrade_store
    from calibrant.store.migrate import HEAD
    from calibrant.store.runs import Runs
    from tests.support.pg import fresh_schema
    from tests.support.service import app_service

    with ExitStack() as stack:
        url = (
            f"sqlite:///{tmp_path / 'old.db'}"
            if backend == "sqlite"
            else stack.enter_context(fresh_schema())
        )
        engine = create_engine(url)
        with engine.begin() as conn:
            cfg = Config()
            folder = Path(migrate_module.__file__).parent / "migrations"
            cfg.set_main_option("script_location", str(folder))
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "0005")
            for statement in (
                "INSERT INTO calibrant_users (name, role, token_hash, created_at, disabled) "
                "VALUES ('old-adj', 'adjudicator', 'abc', '2026-11-01 10:00:00', false)",
                "INSERT INTO calibrant_items (id, alias, transcript_hash, payload, queue, "
                "rubric_hash, uploaded_by, created_at) VALUES ('t-1:scripted:correct:s0:t1', "
                "'item-0123456789ab', 'sha256:x', '{}', 'q', 'r', 'admin', '2026-11-01 10:00:00')",
                "INSERT INTO calibrant_labels (item, rater, criterion, label, created_at) "
                "VALUES ('t-1:scripted:correct:s0:t1', 'old-ann', 'c', '\"pass\"', "
                "'2026-11-01 10:00:00')",
                "INSERT INTO calibrant_label_views (item, viewer, first_seen_at) "
                "VALUES ('t-1:scripted:correct:s0:t1', 'old-adj', '2026-11-02 10:00:00')",
            ):
                conn.execute(text(statement))
        engine.dispose()
        assert upgrade_store(url) == ("0005", HEAD)
        engine = create_engine(url)
        with engine.connect() as conn:
            assert "calibrant_verdict_views" in set(inspect(conn).get_table_names())
            kept = [
                conn.execute(text("SELECT id, alias FROM calibrant_items")).all(),
                conn.execute(text("SELECT item, rater, label FROM calibrant_labels")).all(),
                conn.execute(text("SELECT item, viewer FROM calibrant_label_views")).all(),
            ]
            version = conn.execute(
                text("SELECT value FROM calibrant_meta WHERE key = 'schema_version'")
            ).scalar()
        engine.dispose()
        item = "t-1:scripted:correct:s0:t1"
        assert kept == [
            [(item, "item-0123456789ab")],
            [(item, "old-ann", '"pass"')],
            [(item, "old-adj")],
        ]
        assert version == "6"
        # an audit run naming the item, read by an adjudicator: recorded in the new table
        engine = create_engine(url)
        runs = Runs(engine)
        run_id = runs.start("audit", process=False)
        runs.finish(run_id, {"items": [{"item_id": item, "judge_labels": {"c": "fail"}}]})
        engine.dispose()
        with app_service(url) as service:
            reader = service.client(service.user("new-adj", "adjudicator"))
            assert reader.get(f"/api/runs/{run_id}").status_code == 200
        engine = create_engine(url)
        with engine.connect() as conn:
            seen = conn.execute(text("SELECT item, viewer, source FROM calibrant_verdict_views"))
            assert seen.all() == [(item, "new-adj", f"run {run_id}")]
        engine.dispose()
