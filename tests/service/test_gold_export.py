"""Workbench labels are gold: a queue labeled by two experts through the API and adjudicated
through the API, exported as a gold folder (`calibrant gold export`, the workbench's zip,
`calibrate --from-store`), all from the one operation, on a real SQLite store served by the
real service. The folder is one `calibrate --gold` accepts; the consensus follows adjudication;
the split keeps whole cases and near-duplicates on one side."""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from calibrant.contracts import Transcript
from calibrant.gold import HELDOUT_SHARE, case_draw, load_gold, read_manifest, split_problems
from calibrant.judge.sheet import labeling_sheet
from tests.conftest import ROOT, Result
from tests.support.browser import login
from tests.support.fake_openai import answer_from_schema, fake_openai
from tests.support.labeling import ALL_CRITERIA, GOLD, NDJSON, aliases_of, labeling_service
from tests.support.service import Service

# hand-written replies (cases drawn for held-out: eligible_spanish_jordi 0.05,
# concurrent_change_tenant_b 0.06; drawn for calibration: revoked_midway_jordi 0.39,
# cross_tenant_jordi 0.48), and approval_tenant_b with a templated (scripted) transcript
ITEMS = [164, 169, 116, 134, 117, 122, 146, 166, 139]
PLANTED = "planted-146"  # gold-146's conversation under another case, drawn for held-out
PLANTED_CASE = "echo_case"


def _transcripts() -> bytes:
    docs = [json.loads((GOLD / f"gold-{n:03d}.json").read_text()) for n in ITEMS]
    copy = json.loads((GOLD / "gold-146.json").read_text())
    copy["transcript_id"], copy["case_id"] = PLANTED, PLANTED_CASE
    return "".join(json.dumps(d) + "\n" for d in [*docs, copy]).encode()


@pytest.fixture(scope="module")
def labeled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """Queue "pilot": two experts label every item but gold-139 (only ann-a); they disagree
    on gold-164 explains_next_step (adjudicated: fail) and gold-116 overall_clarity (left
    undecided). Queue "bare": one item, no label."""
    with labeling_service("sqlite", tmp_path_factory.mktemp("svc")) as s:
        admin = s.client(s.user("boss", "admin"))
        got = admin.post("/api/transcripts?queue=pilot", content=_transcripts(), headers=NDJSON)
        assert got.is_success, got.text
        bare = (GOLD / "gold-001.json").read_bytes()
        assert admin.post("/api/transcripts?queue=bare", content=bare).is_success
        ids = [f"gold-{n:03d}" for n in ITEMS] + [PLANTED]
        alias = aliases_of(s, *ids)  # how experts name the items
        for name, changes in (
            ("ann-a", {}),
            (
                "ann-b",
                {"gold-164": {"explains_next_step": "fail"}, "gold-116": {"overall_clarity": 2}},
            ),
        ):
            ann = s.client(s.user(name, "annotator"))
            for item in ids:
                if item == "gold-139" and name == "ann-b":
                    continue
                values = {**ALL_CRITERIA, **changes.get(item, {})}
                labels = [{"criterion": c, "label": v} for c, v in values.items()]
                body = {"item": alias[item], "labels": labels}
                saved = ann.post("/api/labels", json=body)
                assert saved.is_success, saved.text
        judge = s.client(s.user("adj", "adjudicator"))
        decision = {
            "item": alias["gold-164"],
            "criterion": "explains_next_step",
            "label": "fail",
            "reason": "no next step named",
        }
        assert judge.post("/api/adjudications", json=decision).is_success
        yield s


def _one_line(r: Result) -> str:
    assert r.code == 2, (r.code, r.out, r.err)
    lines = [ln for ln in r.err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in r.err, r.err
    return lines[0]


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_export_is_a_gold_folder_calibrate_accepts(
    labeled: Service, tmp_path: Path, cli: Callable[..., Result]
) -> None:
    env = {"CALIBRANT_DATABASE_URL": labeled.database_url}
    out = tmp_path / "gold"
    done = cli("gold", "export", "--queue", "pilot", "--out", str(out), env=env)
    assert done.code == 0, done.err
    assert "workbench queue pilot" in done.out and f"wrote {out}" in done.out

    # consensus follows adjudication; agreement where they agreed; gold-139 left aside
    consensus = {(x["item"], x["criterion"]): x for x in _jsonl(out / "labels/consensus.jsonl")}
    decided = consensus[("gold-164", "explains_next_step")]
    assert decided["label"] == "fail" and "adj" in decided["note"]
    assert "no next step named" in decided["note"]
    assert consensus[("gold-169", "explains_next_step")]["label"] == "pass"
    assert ("gold-116", "overall_clarity") not in consensus  # undecided: no consensus
    assert consensus[("gold-116", "separates_done_from_pending")]["label"] == "pass"
    assert not any(item == "gold-139" for item, _ in consensus)
    assert (out / "labeling/new_items.txt").read_text() == "gold-139\n"
    assert "1 item(s) without a consensus label" in done.out
    assert "1 disagreement(s) awaiting adjudication" in done.out
    # one file per expert, in the shipped format
    assert sorted(p.name for p in (out / "labels").iterdir()) == [
        "ann-a.jsonl",
        "ann-b.jsonl",
        "consensus.jsonl",
    ]
    shipped = json.loads((ROOT / "gold/labels/rater_a.jsonl").read_text().splitlines()[0])
    rows = _jsonl(out / "labels/ann-b.jsonl")
    keys = [k for k in shipped if k != "note"]  # a note is optional (rubric 1.1's are empty)
    assert len(rows) == 9 * 5 and all(list(r) == keys for r in rows)
    assert {r["rater"] for r in rows} == {"ann-b"}

    # the split: whole cases, templated cases in calibration, near-duplicates on one side
    manifest = read_manifest(out / "manifest.yaml")
    assert set(manifest) == {f"gold-{n:03d}" for n in ITEMS} | {PLANTED}
    entry = manifest["gold-164"]
    assert (entry.case, entry.agent) == ("eligible_spanish_jordi", "handwritten:premature-claim")
    assert entry.provenance is not None and entry.provenance.startswith(
        "workbench queue pilot, exported at "
    )
    side = {m.case: m.split for m in manifest.values()}
    assert len({(m.case, m.split) for m in manifest.values()}) == len(side)  # no case split
    assert side["approval_tenant_b"] == "calibration"  # a scripted transcript in it
    assert side["eligible_spanish_jordi"] == side["concurrent_change_tenant_b"] == "heldout"
    assert case_draw(PLANTED_CASE) < HELDOUT_SHARE  # drawn for held-out, yet:
    assert side[PLANTED_CASE] == side["revoked_midway_jordi"] == "calibration"
    sheets = {
        i: labeling_sheet(Transcript.model_validate_json(p.read_text()), item=i)
        for i, p in ((p.stem, p) for p in (out / "transcripts").glob("*.json"))
    }
    assert split_problems(manifest, sheets) == []
    gold = load_gold(out, split=None)
    assert gold.unlabeled == ["gold-139"] and sorted(gold.experts) == ["ann-a", "ann-b"]

    # calibrate --gold accepts it; --from-store gives the same numbers and says where from
    with fake_openai(answer_from_schema(lambda c, labels: labels[-1])) as server:
        judge = ["--model", "openai/judge", "--api-base", server.url, "--resamples", "200"]
        on_folder = cli(
            "calibrate", "--gold", str(out), "--rubric", str(out / "rubric.yaml"), *judge,
            "--json", "--out", str(tmp_path / "r1"), env=env,
        )  # fmt: skip
        from_store = cli(
            "calibrate", "--from-store", "pilot", *judge,
            "--json", "--out", str(tmp_path / "r2"), env=env,
        )  # fmt: skip
    assert on_folder.code == 0 and from_store.code == 0, (on_folder.err, from_store.err)
    a, b = json.loads(on_folder.out), json.loads(from_store.out)
    assert a["n_items"] == b["n_items"] == 5  # calibration: 4 held out, gold-139 left aside
    for key in ("criteria", "gate", "experts", "judge_outcomes", "rubric"):
        assert a[key] == b[key], key
    assert "source" not in a["gold"]
    assert b["gold"]["source"].startswith("workbench queue pilot, exported at ")
    assert "from the store at sqlite:///" in b["gold"]["source"]
    said = (tmp_path / "r2" / "report.md").read_text()
    assert "- Gold from: workbench queue pilot, exported at " in said


def test_zip_download_holds_the_same_folder(
    labeled: Service, tmp_path: Path, cli: Callable[..., Result]
) -> None:
    env = {"CALIBRANT_DATABASE_URL": labeled.database_url}
    out = tmp_path / "gold"
    assert cli("gold", "export", "--queue", "pilot", "--out", str(out), env=env).code == 0
    admin = login(labeled, labeled.user("zip-admin", "admin"))  # at the workbench
    link = re.search(r'href="(/api/export/gold\?queue=pilot)"', admin.get("/").text)
    assert link, "no download on the admin's queue page"
    got = admin.get(link.group(1))  # the click
    assert got.status_code == 200, got.text
    assert 'filename="gold-pilot.zip"' in got.headers["content-disposition"]
    with zipfile.ZipFile(io.BytesIO(got.content)) as archive:
        files = {n.removeprefix("gold-pilot/"): archive.read(n) for n in archive.namelist()}
    on_disk = {str(p.relative_to(out)): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert sorted(files) == sorted(on_disk)

    def no_time(text: bytes) -> Any:
        m = yaml.safe_load(text)
        for entry in m.values():
            entry["provenance"] = entry["provenance"].split(", exported at ")[0]
        return m

    for name, data in files.items():
        if name == "manifest.yaml":
            assert no_time(data) == no_time(on_disk[name])
        else:
            assert data == on_disk[name], name
    # not for an expert: no button, and 403
    ann = labeled.client(labeled.user("zip-ann", "annotator"))
    assert "/api/export/gold" not in ann.get("/").text
    assert ann.get("/api/export/gold", params={"queue": "pilot"}).status_code == 403
    assert admin.get("/api/export/gold", params={"queue": "nope"}).status_code == 404
    assert admin.get("/api/export/gold", params={"queue": "bare"}).status_code == 409


def test_bad_inputs_are_one_line_and_write_nothing(
    labeled: Service, tmp_path: Path, cli: Callable[..., Result]
) -> None:
    env = {"CALIBRANT_DATABASE_URL": labeled.database_url}
    out = tmp_path / "gold"
    unknown = _one_line(cli("gold", "export", "--queue", "nope", "--out", str(out), env=env))
    assert "no queue 'nope'" in unknown and "bare, pilot" in unknown
    bare = _one_line(cli("gold", "export", "--queue", "bare", "--out", str(out), env=env))
    assert "queue 'bare' has 1 item(s) but no label yet" in bare
    assert not out.exists()
    out.mkdir()
    (out / "mine.txt").write_text("keep")
    taken = _one_line(cli("gold", "export", "--queue", "pilot", "--out", str(out), env=env))
    assert f"--out {out}: is not empty" in taken
    assert [p.name for p in out.iterdir()] == ["mine.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gold"]  # no temporary folder left
    both = _one_line(cli("calibrate", "--gold", "gold", "--from-store", "pilot", env=env))
    assert "--gold and --from-store" in both
    none = _one_line(cli("calibrate", "--from-store", "nope", env=env))
    assert "no queue 'nope'" in none


def test_propose_from_store_reads_the_queue_as_gold_export_writes_it(
    labeled: Service, tmp_path: Path, cli: Callable[..., Result]
) -> None:
    """`propose --from-store QUEUE`: the queue exported by the one operation; its item without
    a consensus label (gold-139, labeled by one expert only) is the pool, the same proposal as
    on the folder `gold export` writes."""
    env = {"CALIBRANT_DATABASE_URL": labeled.database_url}
    crit = "separates_done_from_pending"
    verdicts = tmp_path / "verdicts.csv"
    items = [f"gold-{n:03d}" for n in ITEMS] + [PLANTED]
    verdicts.write_text(
        "item,criterion,label,judge_version\n" + "".join(f"{i},{crit},pass,v1\n" for i in items)
    )
    args = ["--verdicts", str(verdicts), "--criterion", crit, "--split", "all", "--json"]
    from_store = cli("propose", "--from-store", "pilot", *args, env=env)
    assert from_store.code == 0, from_store.err
    got = json.loads(from_store.out)
    assert [p["item"] for p in got["proposals"]] == ["gold-139"]
    assert got["labeled"]["items"] == 9 and got["pool"]["items"] == 1
    out = tmp_path / "gold"
    assert cli("gold", "export", "--queue", "pilot", "--out", str(out), env=env).code == 0
    rubric = ["--rubric", str(out / "rubric.yaml")]
    on_folder = cli("propose", "--gold", str(out), *rubric, *args, env=env)
    assert on_folder.code == 0, on_folder.err
    assert json.loads(on_folder.out) == got
    # a verdicts row on an item the queue lacks: one line naming the file and line, exit 2
    bad = tmp_path / "bad.csv"
    bad.write_text(verdicts.read_text() + f"gold-001,{crit},pass,v1\n")
    line = _one_line(
        cli("propose", "--from-store", "pilot", "--verdicts", str(bad), *args[2:], env=env)
    )
    assert f"{bad}:12" in line and "item 'gold-001' is not in workbench queue pilot" in line
    both = _one_line(cli("propose", "--gold", str(out), "--from-store", "pilot", *args, env=env))
    assert "--gold and --from-store" in both
    none = _one_line(cli("propose", "--from-store", "nope", *args, env=env))
    assert "no queue 'nope'" in none


# --- issue 30 item 9: zip names are one file each on every system they are unpacked on ---------

WINDOWS_RESERVED = re.compile(r"(CON|PRN|AUX|NUL|COM[1-9]|LPT[1-9])(\..*)?", re.IGNORECASE)


def _old_account(database_url: str, name: str) -> str:
    """An annotator account as an earlier calibrant stored it (no check of its name); its token."""
    from datetime import UTC, datetime

    from sqlmodel import Session

    from calibrant.store import make_engine
    from calibrant.store.service_tables import UserRow
    from calibrant.store.users import hash_token

    token = f"cal_test-{name}-{'x' * 30}"
    engine = make_engine(database_url)
    try:
        with Session(engine) as session:
            session.add(
                UserRow(
                    name=name,
                    role="annotator",
                    token_hash=hash_token(token),
                    created_at=datetime.now(UTC),
                )
            )
            session.commit()
    finally:
        engine.dispose()
    return token


@pytest.mark.parametrize("account", ["Consensus", "ANN", "CON", "com1", "lpt9"])
def test_zips_never_hold_names_one_file_apart_or_reserved(tmp_path: Path, account: str) -> None:
    """An account named `Consensus` (beside the consensus file), `ANN` (beside `ann`) or `CON`
    (a device on Windows): the labels zip, whose files are named by rater, refuses in one
    sentence naming the account; the gold folder's zip names its files apart (their lines name
    the rater), so unpacked anywhere it holds every rater's labels. (`users add` now refuses such
    names, tests/service/test_auth.py; a store made before keeps them: written here directly.)"""
    with labeling_service("sqlite", tmp_path) as s:
        admin = s.client(s.user("zip-boss", "admin"))
        got = admin.post("/api/transcripts?queue=z", content=(GOLD / "gold-001.json").read_bytes())
        assert got.is_success, got.text
        [row] = admin.get("/api/items?queue=z").json()  # experts name it by its alias
        for name in ("ann", account):
            rater = s.client(_old_account(s.database_url, name))
            labels = [{"criterion": c, "label": v} for c, v in ALL_CRITERIA.items()]
            saved = rater.post("/api/labels", json={"item": row["alias"], "labels": labels})
            assert saved.is_success, saved.text
        got = admin.get("/api/export/labels")
        assert got.status_code == 409, (got.status_code, got.content[:200])
        said = got.json()["detail"]
        assert f"'{account}'" in said and "cannot" in said, said
        assert "of the labels zip" in said and "\n" not in said
        gold = admin.get("/api/export/gold", params={"queue": "z"})
        assert gold.status_code == 200, gold.text
    with zipfile.ZipFile(io.BytesIO(gold.content)) as archive:
        names = archive.namelist()
        raters = {
            json.loads(line)["rater"]: n
            for n in names
            if n.startswith("gold-z/labels/")
            for line in archive.read(n).decode().splitlines()
        }
    assert len({n.casefold() for n in names}) == len(names), names
    assert not [n for n in names if WINDOWS_RESERVED.fullmatch(n.rsplit("/", 1)[-1])], names
    assert set(raters) == {"ann", account, "consensus"}, raters
    assert raters["consensus"] == "gold-z/labels/consensus.jsonl"
