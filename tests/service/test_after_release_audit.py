"""After release (issue 22): `calibrant audit` draws a reproducible, stratified sample of a score
run into a blind workbench queue, and `calibrant agreement-over-time` measures the judge against
the experts' labels of the audited items per window. A real SQLite store and a fresh schema of
the PostgreSQL server on 127.0.0.1, score runs judged by a fake OpenAI-compatible server on
127.0.0.1, the real CLI, and the real service for blindness."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, select

from calibrant.store import labeling as lab
from calibrant.store import make_engine
from calibrant.store.adjudication import adjudicate
from calibrant.store.runs import RunRow
from calibrant.store.service_tables import ItemRow
from tests.conftest import ROOT, run_cli
from tests.support.fake_openai import fake_openai
from tests.support.labeling import BACKENDS
from tests.support.pg import fresh_schema
from tests.support.service import Service, app_service

RUBRIC = ROOT / "rubrics" / "refund_communication.yaml"
NONCE = re.compile(r"[0-9a-f]{16}")
CRIT = "separates_done_from_pending"
CRIT2 = "explains_next_step"
OTHER = {"pass": "fail", "fail": "pass"}


def _answer(body: dict[str, Any]) -> str:
    """Labels picked by a digest of the prompt (its random fence nonce left out): the same
    transcript always gets the same verdict, and transcripts get different ones."""
    fmt = body.get("response_format") or {}
    schema = (fmt.get("json_schema") or {}).get("schema") or fmt.get("schema") or {}
    prompt = NONCE.sub("", json.dumps(body.get("messages"), sort_keys=True))
    digest = int(hashlib.sha256(prompt.encode()).hexdigest(), 16)
    out = {}
    for n, (crit, spec) in enumerate(sorted(schema.get("properties", {}).items())):
        props = spec["properties"]
        labels = [x for x in props["label"]["enum"] if x != "insufficient_evidence"]
        out[crit] = {
            "rationale": f"SECRET-RATIONALE {crit}",
            "evidence": (props["evidence"]["items"].get("enum") or [])[:1],
            "label": labels[(digest >> (8 * n)) % len(labels)],
        }
    return json.dumps(out)


class Scored:
    def __init__(self, work: Path, env: dict[str, str], runs: list[str]) -> None:
        self.work, self.env, self.runs = work, env, runs

    def cli(self, *args: str) -> Any:
        return run_cli(*args, cwd=self.work, env=self.env)

    @property
    def url(self) -> str:
        return self.env["CALIBRANT_DATABASE_URL"]


@pytest.fixture(scope="module", params=BACKENDS)
def scored(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Scored]:
    """Two score runs: A over the first gold transcript of every case, B over the second; run A
    moved a week back (its window is the week before B's). On a SQLite file, and on a fresh
    schema of the PostgreSQL server."""
    work = tmp_path_factory.mktemp("audit")
    if request.param == "sqlite":
        yield from _scored(work, f"sqlite:///{work / 'store.db'}")
        return
    with fresh_schema() as url:
        yield from _scored(work, url)


def _scored(work: Path, url: str) -> Iterator[Scored]:
    by_case: dict[str, list[Path]] = defaultdict(list)
    for f in sorted((ROOT / "gold" / "transcripts").glob("gold-*.json")):
        by_case[json.loads(f.read_text())["case_id"]].append(f)
    for side, index in (("a", 0), ("b", 1)):
        (work / side).mkdir()
        for files in list(by_case.values())[:20]:
            if len(files) > index:
                shutil.copy(files[index], work / side)
    env = {"CALIBRANT_DATABASE_URL": url}
    with fake_openai(_answer) as server:
        (work / "judges").mkdir()
        (work / "judges" / "a.yaml").write_text(
            f"model: openai/audit\napi_base: {server.url}\nrubric: {RUBRIC}\nmax_attempts: 1\n"
        )
        runs = []
        for side in ("a", "b"):
            r = run_cli("score", str(work / side), "--judge", "a", "--json", cwd=work, env=env)
            assert r.code == 0, r.err
            runs.append(json.loads(r.out)["run_id"])
    engine = make_engine(env["CALIBRANT_DATABASE_URL"])
    with Session(engine) as s:
        row = s.get(RunRow, runs[0])
        assert row is not None
        row.started_at = row.started_at - timedelta(days=7)
        s.add(row)
        s.commit()
    engine.dispose()
    yield Scored(work, env, runs)


def _audit_json(scored: Scored, *args: str) -> dict[str, Any]:
    r = scored.cli("audit", *args, "--rubric", str(RUBRIC), "--json")
    assert r.code == 0, r.err
    out = json.loads(r.out)
    assert isinstance(out, dict)
    return out


def _state(url: str) -> tuple[int, int]:
    """(workbench items, audit runs) in the store."""
    engine = make_engine(url)
    try:
        with Session(engine) as s:
            items = len(s.exec(select(ItemRow.id)).all())
            audits = len(s.exec(select(RunRow.id).where(RunRow.kind == "audit")).all())
        return items, audits
    finally:
        engine.dispose()


def test_the_sample_is_stratified_by_verdict_capped_by_case_and_reproducible(
    scored: Scored,
) -> None:
    run = scored.runs[1]
    before = _state(scored.url)
    first = _audit_json(scored, run, "--queue", "dry", "--count", "9", "--seed", "7", "--dry-run")
    again = _audit_json(scored, run, "--queue", "dry", "--count", "9", "--seed", "7", "--dry-run")
    other = _audit_json(scored, run, "--queue", "dry", "--count", "9", "--seed", "8", "--dry-run")
    assert first["run_id"] is None and _state(scored.url) == before  # a dry run writes nothing
    ids = [i["item_id"] for i in first["items"]]
    assert ids == [i["item_id"] for i in again["items"]] and len(ids) == 9
    assert ids != [i["item_id"] for i in other["items"]]
    strata = {s["stratum"]: s for s in first["strata"]}
    assert sum(s["population"] for s in strata.values()) == first["population"]
    assert sum(s["drawn"] for s in strata.values()) == 9
    # every verdict stratum with items is represented while the count allows
    if len(strata) <= 9:
        assert all(s["drawn"] >= 1 for s in strata.values())
    for item in first["items"]:
        s = strata[item["stratum"]]
        # by stratum; or, below one item per stratum, each kept item at count / kept
        share = 9 / first["kept"] if first["systematic"] else s["drawn"] / s["kept"]
        assert item["stratum_probability"] == pytest.approx(share)
        assert item["inclusion_probability"] == pytest.approx(
            item["case_probability"] * item["stratum_probability"]
        )
        verdict = "|".join(f"{c}={item['judge_labels'][c]}" for c in first["stratified_by"])
        assert item["stratum"] in (verdict, "failed")
    assert "overall_clarity" not in first["stratified_by"]  # ordinal: not a stratum key
    # at most --per-case items of one case: with one per case, no case twice
    one = _audit_json(scored, run, "--queue", "dry", "--rate", "1", "--per-case", "1", "--dry-run")
    cases = [i["case_id"] for i in one["items"]]
    assert len(cases) == len(set(cases)) == one["cases"]


def test_latest_names_the_newest_finished_score_run(scored: Scored, tmp_path: Path) -> None:
    # the README's after-release loop audits `latest` right after `score`
    by_id = _audit_json(scored, scored.runs[1], "--queue", "l", "--count", "5", "--dry-run")
    latest = _audit_json(scored, "latest", "--queue", "l", "--count", "5", "--dry-run")
    assert latest["score_run"]["id"] == scored.runs[1] != scored.runs[0]
    assert [i["item_id"] for i in latest["items"]] == [i["item_id"] for i in by_id["items"]]
    # a store with no score run: one line, exit 2
    empty = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 'empty.db'}"}
    r = run_cli("audit", "latest", "--queue", "x", "--count", "2", cwd=tmp_path, env=empty)
    assert r.code == 2
    assert "no finished score run in the store to take as 'latest'" in r.err
    assert len(r.err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("nosuchrun", "--queue", "x", "--rate", "0.5"), "no score run 'nosuchrun'"),
        (("RUN", "--queue", "x", "--rate", "0"), "--rate 0.0 is not in (0, 1]"),
        (("RUN", "--queue", "x", "--rate", "1.5"), "--rate 1.5 is not in (0, 1]"),
        (("RUN", "--queue", "x", "--count", "0"), "--count 0 must be at least 1"),
        (("RUN", "--queue", "x"), "give --rate R or --count N"),
        (("RUN", "--queue", "held", "--count", "3"), "queue 'held' already holds items"),
        (("RUN", "--queue", "x", "--count", "3", "--seed", "2147483648"), "--seed 2147483648 is"),
        (("RUN", "--queue", "x", "--count", "3", "--seed", "-1"), "--seed -1 is not in 0.."),
        (("RUN", "--queue", "x", "--count", "100001"), "--count 100001 is over 100000"),
    ],
)
def test_bad_inputs_get_one_line_exit_2_and_write_nothing(
    scored: Scored, args: tuple[str, ...], says: str
) -> None:
    engine = make_engine(scored.url)
    try:
        if not lab.list_items(engine, queue="held"):
            setup = _audit_json(scored, scored.runs[1], "--queue", "held", "--count", "2")
            assert setup["run_id"]
    finally:
        engine.dispose()
    before = _state(scored.url)
    args = tuple(scored.runs[1] if a == "RUN" else a for a in args)
    r = scored.cli("audit", *args, "--rubric", str(RUBRIC))
    assert r.code == 2, r.err
    lines = r.err.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], r.err
    assert _state(scored.url) == before


def test_an_audit_queue_is_blind_to_the_judge(scored: Scored) -> None:
    audit = _audit_json(scored, scored.runs[0], "--queue", "blind-q", "--count", "4")
    assert len(audit["items"]) == 4 and all(i["new"] for i in audit["items"])
    with app_service(scored.url) as service:
        token = service.user("blind-expert", "annotator")
        ann = service.client(token)
        listed = ann.get("/api/items", params={"queue": "blind-q"})
        assert listed.status_code == 200 and len(listed.json()) == 4
        browser = service.client()
        assert browser.post("/login", data={"token": token}).status_code == 303
        pages = [listed.text]
        for entry in listed.json():
            alias = entry["alias"]
            detail = ann.get(f"/api/items/{alias}")
            assert detail.status_code == 200 and alias in detail.text
            page = browser.get(f"/label/{alias}")
            assert page.status_code == 200 and CRIT in page.text  # the labeling form itself
            pages += [detail.text, page.text]
        for text in pages:
            assert "SECRET-RATIONALE" not in text  # the judge's words
            assert audit["run_id"] not in text and scored.runs[0] not in text
            for word in ("inclusion_probability", "judge_labels", "stratum"):
                assert word not in text
        # the API face: an annotator can neither draw an audit nor read what the judge said
        body = {"score_run": scored.runs[0], "queue": "api-q", "count": 3, "dry_run": True}
        assert ann.post("/api/audits", json=body).status_code == 403
        assert ann.get("/api/agreement-over-time").status_code == 403
        admin = service.client(service.user("audit-admin", "admin"))
        drawn = admin.post("/api/audits", json=body)
        assert drawn.status_code == 200 and len(drawn.json()["items"]) == 3
        bad = admin.post("/api/audits", json={**body, "count": 0})
        assert bad.status_code == 422 and bad.json()["detail"][0]["loc"][-1] == "count"
        held = admin.post("/api/audits", json={**body, "queue": "blind-q", "dry_run": False})
        assert held.status_code == 409
        # two experts label the queue through the API, an adjudicator settles their one
        # disagreement, and the window of the audit holds the consensus beside the judge's label
        ann2 = service.client(service.user("blind-expert2", "annotator"))
        aliases = [e["alias"] for e in listed.json()]
        for n, alias in enumerate(aliases):
            for who, label in ((ann, "pass"), (ann2, "fail" if n == 0 else "pass")):
                got = who.post(
                    "/api/labels",
                    json={"item": alias, "labels": [{"criterion": CRIT2, "label": label}]},
                )
                assert got.status_code == 200, got.text
        adjudicator = service.client(service.user("blind-adj", "adjudicator"))
        decided = adjudicator.post(
            "/api/adjudications",
            json={"item": aliases[0], "criterion": CRIT2, "label": "fail", "reason": "rule 2"},
        )
        assert decided.status_code == 200, decided.text
        over = adjudicator.get("/api/agreement-over-time", params={"resamples": 200})
        assert over.status_code == 200, over.text
        # issue 30 item 8: a seed below 0 reached the bootstrap's generator (a 500); a 422 now
        negative = {"resamples": 200, "seed": -1}
        refused = adjudicator.get("/api/agreement-over-time", params=negative)
        assert refused.status_code == 422, (refused.status_code, refused.text[:300])
        assert [e["loc"] for e in refused.json()["detail"]] == [["query", "seed"]]
        (window,) = [w for w in over.json()["windows"] if audit["run_id"] in w["audits"]]
        c = next(x for x in window["criteria"] if x["criterion"] == CRIT2)
        assert c["n_items"] == 4 and c["n_single_expert"] == 0
        judged = {i["item_id"]: i["judge_labels"][CRIT2] for i in audit["items"]}
        first = next(e for e in listed.json() if e["alias"] == aliases[0])
        labeled = {i["item_id"]: i for i in c["items"] if i["expert_label"] is not None}
        assert len(labeled) == 4 and all(i["judge_label"] == judged[k] for k, i in labeled.items())
        assert sorted(i["expert_label"] for i in labeled.values()) == [
            "fail",
            "pass",
            "pass",
            "pass",
        ]
        assert first["alias"] not in over.text  # items by their ids, for adjudicators and admins


def _kappa(pairs: list[tuple[str, str]]) -> float:
    """Cohen's kappa of (expert, judge) pairs, by its definition."""
    n = len(pairs)
    labels = {x for p in pairs for x in p}
    po = sum(e == j for e, j in pairs) / n
    pe = sum(
        (sum(e == lab_ for e, _ in pairs) / n) * (sum(j == lab_ for _, j in pairs) / n)
        for lab_ in labels
    )
    return (po - pe) / (1 - pe)


def test_agreement_over_two_windows_gives_the_kappa_of_the_labels(scored: Scored) -> None:
    first = _audit_json(scored, scored.runs[0], "--queue", "w-a", "--rate", "1", "--seed", "1")
    second = _audit_json(scored, scored.runs[1], "--queue", "w-b", "--rate", "1", "--seed", "1")
    engine = make_engine(scored.url)
    expected = {}
    try:
        for name, audit, flip in (("a", first, None), ("b", second, 3)):
            pairs = []
            for n, item in enumerate(audit["items"]):
                judged = item["judge_labels"][CRIT]
                expert = judged if flip is None or n % flip else OTHER[judged]
                key = item["item_id"]
                if name == "b":  # one expert: that expert's label, flagged
                    lab.save_labels(engine, "maria", key, [(CRIT, expert, None)], by_id=True)
                elif n < 2:  # two experts disagree: adjudicated (item 0) or unresolved (item 1)
                    lab.save_labels(engine, "maria", key, [(CRIT, expert, None)], by_id=True)
                    lab.save_labels(engine, "jonas", key, [(CRIT, OTHER[expert], None)], by_id=True)
                    if n == 1:
                        continue
                    adjudicate(
                        engine,
                        item=key,
                        criterion=CRIT,
                        label=expert,
                        reason="rule 3",
                        by="ada",
                        by_id=True,
                    )
                else:  # two experts agree: the consensus
                    for rater in ("maria", "jonas"):
                        lab.save_labels(engine, rater, key, [(CRIT, expert, None)], by_id=True)
                pairs.append((expert, judged))
            expected[name] = (_kappa(pairs), len(pairs))
    finally:
        engine.dispose()
    r = scored.cli("agreement-over-time", "--window", "week", "--resamples", "200", "--json")
    assert r.code == 0, r.err
    report = json.loads(r.out)
    windows = [
        w for w in report["windows"] if set(w["audits"]) & {first["run_id"], second["run_id"]}
    ]
    assert [w["score_runs"] for w in windows] == [[scored.runs[0]], [scored.runs[1]]]
    assert windows[0]["end"] <= windows[1]["start"]
    for w, name in zip(windows, ("a", "b"), strict=True):
        c = next(x for x in w["criteria"] if x["criterion"] == CRIT)
        kappa, n = expected[name]
        assert c["n_items"] == n
        assert c["kappa"]["estimate"] == pytest.approx(kappa)
        assert c["kappa"]["ci"] is not None and c["kappa"]["n_clusters"] == c["n_cases"]
        assert c["n_single_expert"] == (0 if name == "a" else c["n_audited"])
        assert c["n_unresolved"] == (1 if name == "a" else 0)
        assert c["gate_status"] in ("PASS", "FAIL", "UNDECIDED")
        assert {x["label"] for x in c["per_label"]} == {"pass", "fail"}
        assert c["pass_rate_judged"]["n"] > 0
    assert report["latest"][windows[1]["judge_version"]] == windows[1]["start"]
    # the audit's provenance is a run of the store, as any run
    shown = scored.cli("runs", "show", first["run_id"], "--json")
    assert shown.code == 0, shown.err
    stored = json.loads(shown.out)
    assert stored["kind"] == "audit" and stored["report"]["items"] == first["items"]


def _fresh_score_run(scored: Scored, prefix: str) -> str:
    """A score run over run B's transcripts renamed `prefix-...`: none is a workbench item."""
    fresh = scored.work / prefix  # transcripts no audit has put in the workbench yet
    fresh.mkdir()
    for f in sorted((scored.work / "b").glob("*.json")):
        t = json.loads(f.read_text())
        t["transcript_id"] = f"{prefix}-{t['transcript_id']}"
        (fresh / f.name).write_text(json.dumps(t))
    with fake_openai(_answer) as server:
        (scored.work / "judges" / f"{prefix}.yaml").write_text(
            f"model: openai/audit\napi_base: {server.url}\nrubric: {RUBRIC}\nmax_attempts: 1\n"
        )
        r = scored.cli("score", str(fresh), "--judge", prefix, "--json")
        assert r.code == 0, r.err
        return str(json.loads(r.out)["run_id"])


def test_audits_sent_at_once_into_one_queue_draw_it_once(scored: Scored) -> None:
    """Four admins draw an audit into the same new queue at the same moment: one is drawn and
    recorded, the others get 409, and the queue holds the one sample."""
    from concurrent.futures import ThreadPoolExecutor

    run = _fresh_score_run(scored, "race")
    with app_service(scored.url) as service:
        token = service.user("race-admin", "admin")
        with service.client(token) as admin:  # the score run's rubric, as an admin uploads it
            rubric = {"Content-Type": "application/yaml"}
            assert admin.post(
                "/api/rubrics", content=RUBRIC.read_bytes(), headers=rubric
            ).is_success
        body = {"score_run": run, "queue": "race-q", "count": 6, "seed": 3}

        def post(_: int) -> int:
            with service.client(token) as admin:
                return admin.post("/api/audits", json=body).status_code

        with ThreadPoolExecutor(4) as pool:
            codes = sorted(pool.map(post, range(4)))
        assert codes == [200, 409, 409, 409], codes
        with service.client(token) as admin:
            listed = admin.get("/api/items", params={"queue": "race-q"}).json()
    engine = make_engine(scored.url)
    try:
        with Session(engine) as s:
            audits = s.exec(select(RunRow).where(RunRow.kind == "audit")).all()
            mine = [r for r in audits if '"race-q"' in (r.arguments or "")]
    finally:
        engine.dispose()
    assert len(mine) == 1 and len(listed) == 6


# ---- issue 30: an audit is all or nothing; reading what the judge said is not blind ----------


@contextmanager
def _admin(scored: Scored, name: str) -> Iterator[tuple[Service, Any]]:
    """The service on the store, an admin's client, and the score run's rubric stored."""
    with app_service(scored.url) as service, service.client(service.user(name, "admin")) as c:
        rubric = {"Content-Type": "application/yaml"}
        assert c.post("/api/rubrics", content=RUBRIC.read_bytes(), headers=rubric).is_success
        yield service, c


def test_audit_options_out_of_range_get_422_naming_them_and_write_nothing(
    scored: Scored,
) -> None:
    """A seed past a 32-bit integer answered 500 after the queue's items were committed (and
    recorded no audit run): every option is bounded before anything is written."""
    run = _fresh_score_run(scored, "bounds")
    with _admin(scored, "bounds-admin") as (_, admin):
        before = _state(scored.url)
        body = {"score_run": run, "queue": "bounds-q", "count": 3}
        for name, value in (
            ("seed", 2**31),
            ("seed", 2**63),
            ("seed", 2**64),
            ("seed", -1),
            ("count", 0),
            ("count", 10**6),
            ("rate", 0),
            ("rate", 1.5),
            ("per_case", 0),
            ("per_case", 10**9),
        ):
            shape = {**body, name: value}
            if name == "rate":
                shape["count"] = None
            got = admin.post("/api/audits", json=shape)
            assert got.status_code == 422, (name, value, got.text)
            assert got.json()["detail"][0]["loc"][-1] == name, got.text
            assert _state(scored.url) == before, (name, value)
        top = admin.post("/api/audits", json={**body, "seed": 2**31 - 1})
        assert top.status_code == 200, top.text
        assert top.json()["seed"] == 2**31 - 1
        items, audits = _state(scored.url)
        assert (items, audits) == (before[0] + 3, before[1] + 1)
        shown = admin.get(f"/api/runs/{top.json()['run_id']}").json()
        assert shown["seed"] == 2**31 - 1 and shown["kind"] == "audit"


def test_an_audit_that_would_add_no_item_is_refused(scored: Scored) -> None:
    """Drawn transcripts already in the workbench are reused, not added: an audit whose every
    transcript is one adds nothing to its queue, and is refused (it "succeeded" before, any
    number of times, with an empty queue)."""
    run = _fresh_score_run(scored, "once")
    with _admin(scored, "once-admin") as (_, admin):
        first = admin.post("/api/audits", json={"score_run": run, "queue": "once-a", "rate": 1})
        assert first.status_code == 200, first.text
        before = _state(scored.url)
        for queue in ("once-b", "once-b", "once-c"):
            again = {"score_run": run, "queue": queue, "rate": 1, "seed": 9}
            got = admin.post("/api/audits", json=again)
            assert got.status_code == 409, got.text
            assert "would add no item" in got.json()["detail"] and "once-a" in got.json()["detail"]
        assert _state(scored.url) == before
        assert admin.get("/api/items", params={"queue": "once-b"}).json() == []
        r = scored.cli("audit", run, "--queue", "once-d", "--count", "2", "--rubric", str(RUBRIC))
        assert r.code == 2 and "would add no item" in r.err and len(r.err.strip().splitlines()) == 1


def _refuse_audit_runs(url: str, refuse: bool) -> None:
    """A store that refuses to record an audit run (as a full disk or a broken connection
    would, at the last write): a trigger on the runs table."""
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            if conn.dialect.name == "sqlite":
                conn.execute(
                    text(
                        "CREATE TRIGGER refuse_audit BEFORE INSERT ON calibrant_runs "
                        "WHEN NEW.kind = 'audit' BEGIN SELECT RAISE(ABORT, 'refused'); END"
                    )
                    if refuse
                    else text("DROP TRIGGER refuse_audit")
                )
            elif refuse:
                conn.execute(
                    text(
                        "CREATE FUNCTION refuse_audit() RETURNS trigger AS $$ BEGIN "
                        "IF NEW.kind = 'audit' THEN RAISE EXCEPTION 'refused'; END IF; "
                        "RETURN NEW; END $$ LANGUAGE plpgsql"
                    )
                )
                conn.execute(
                    text(
                        "CREATE TRIGGER refuse_audit BEFORE INSERT ON calibrant_runs "
                        "FOR EACH ROW EXECUTE FUNCTION refuse_audit()"
                    )
                )
            else:
                conn.execute(text("DROP TRIGGER refuse_audit ON calibrant_runs"))
                conn.execute(text("DROP FUNCTION refuse_audit()"))
    finally:
        engine.dispose()


def test_an_audit_the_store_cannot_record_leaves_no_item(scored: Scored) -> None:
    """The audit run and its queue's items are one transaction: when the run cannot be
    recorded, no item is left in the queue (and the queue stays free for the audit)."""
    run = _fresh_score_run(scored, "atomic")
    with _admin(scored, "atomic-admin") as (_, admin):
        before = _state(scored.url)
        _refuse_audit_runs(scored.url, True)
        try:
            body = {"score_run": run, "queue": "atomic-q", "count": 4}
            got = admin.post("/api/audits", json=body)
            assert got.status_code == 500, got.text
            assert _state(scored.url) == before
            assert admin.get("/api/items", params={"queue": "atomic-q"}).json() == []
        finally:
            _refuse_audit_runs(scored.url, False)
        again = admin.post("/api/audits", json=body)
        assert again.status_code == 200, again.text  # the same queue, now drawn
        assert len(admin.get("/api/items", params={"queue": "atomic-q"}).json()) == 4


def test_who_reads_the_judges_verdicts_on_an_audit_may_no_longer_label_it(
    scored: Scored,
) -> None:
    """The audit run's report (the API's answer, its report page, the agreement over time)
    names each audited transcript and what the judge said of it: whoever reads it can no
    longer label those items, nor adjudicate them; whoever did not, can."""
    run = _fresh_score_run(scored, "verdicts")
    with _admin(scored, "verdicts-admin") as (service, admin):
        drawn = admin.post("/api/audits", json={"score_run": run, "queue": "v-q", "count": 3})
        assert drawn.status_code == 200, drawn.text
        audit = drawn.json()["run_id"]
        items = admin.get("/api/items", params={"queue": "v-q"}).json()
        aliases = [x["alias"] for x in items]
        reads = {
            "api": f"/api/runs/{audit}",
            "prefix": f"/api/runs/{audit[:8]}",
            "page": f"/reports/{audit}",
            "over-time": "/api/agreement-over-time?resamples=100",
        }
        readers = {}
        for who, path in reads.items():
            reader = readers[who] = service.client(service.user(f"v-{who}", "adjudicator"))
            assert reader.get(path).status_code == 200, (who, path)
            for alias in aliases:
                body = {"item": alias, "labels": [{"criterion": CRIT2, "label": "pass"}]}
                refused = reader.post("/api/labels", json=body)
                assert refused.status_code == 409, (who, refused.text)
                detail = refused.json()["detail"]
                assert "judge's verdict" in detail and alias in detail, detail
        # the admin who drew it read the verdicts in the answer
        body = {"item": aliases[0], "labels": [{"criterion": CRIT2, "label": "pass"}]}
        assert admin.post("/api/labels", json=body).status_code == 409
        # two annotators disagree; one adjudicator read the run, another did not
        for n, label in enumerate(("pass", "fail")):
            expert = service.client(service.user(f"v-ann{n}", "annotator"))
            for alias in aliases:
                body = {"item": alias, "labels": [{"criterion": CRIT2, "label": label}]}
                assert expert.post("/api/labels", json=body).status_code == 200
        swayed = readers["api"]
        assert not {d["item"] for d in swayed.get("/api/disagreements").json()} & set(aliases)
        decide = {"item": aliases[0], "criterion": CRIT2, "label": "fail", "reason": "r"}
        refused = swayed.post("/api/adjudications", json=decide)
        assert refused.status_code == 409 and "judge's verdict" in refused.json()["detail"]
        fresh = service.client(service.user("v-fresh", "adjudicator"))
        assert set(aliases) <= {d["item"] for d in fresh.get("/api/disagreements").json()}
        assert fresh.post("/api/adjudications", json=decide).status_code == 200
