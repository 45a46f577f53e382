"""The second domain pack, installed from its own folder the way a team would install theirs
(`pip install ./domains/travel`, offline, into a folder of its own), runs calibrant's whole flow:
the pack listed, its self-test, trials of its scripted agents, the safety check, the judge,
calibration on its gold set, scoring with that calibration, an agent in another process served
its tools by the sandbox, and its transcripts labeled in the workbench. Every command is
calibrant's own command line in a process that finds the pack only through its installed
entry point; calibrant's core holds no travel code (tests/test_layers.py forbids the import)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.support.browser import login
from tests.support.fake_openai import FakeServer, answer_from_schema, fake_openai
from tests.support.forkserver import ForkServer
from tests.support.labeling import put_rubric
from tests.support.service import running_service

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("travel-flow")]

Run = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`pip install ./domains/travel` (a copy of the folder, so the build leaves nothing in the
    repository) into a folder of its own; the folder, which holds the package and its
    dist-info with the `calibrant.domains` entry point."""
    work = tmp_path_factory.mktemp("travel-install")
    source = work / "travel"
    shutil.copytree(
        ROOT / "domains" / "travel",
        source,
        ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__", ".pytest_cache"),
    )
    target = work / "site"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation"]
        + ["--no-index", "--target", str(target), str(source)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert (target / "calibrant_travel" / "data" / "gold" / "manifest.yaml").is_file()
    return target


@pytest.fixture(scope="module")
def forkserver(site: Path) -> Iterator[ForkServer]:
    """A warm `calibrant` with the pack's folder on PYTHONPATH: each command, the sandbox and
    the service a real child forked from it (tests/support/forkserver.py), calibrant and litellm
    imported once."""
    server = ForkServer(env={"PYTHONPATH": str(site)})
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(scope="module")
def calibrant(forkserver: ForkServer) -> Run:
    """`calibrant ARGS` as a shell runs it, through the fork server."""

    def run(*args: str, cwd: Path, env: dict[str, str] | None = None) -> Any:
        return subprocess.run(
            [os.path.join(forkserver.bin, "calibrant"), *args],
            cwd=cwd,
            env={**os.environ, **forkserver.env(), "COLUMNS": "200", **(env or {})},
            capture_output=True,
            text=True,
            timeout=600,
        )

    return run


def _pass_unless_told(criterion: str, labels: list[Any]) -> Any:
    """A judge that passes every binary criterion and rates clarity 3 (the labels it is
    offered, so a scale or an abstention label the rubric lacks would fail the call)."""
    return 3 if 3 in labels else "pass"


def test_the_travel_pack_installed_from_its_folder_runs_the_whole_flow(
    site: Path, forkserver: ForkServer, calibrant: Run, tmp_path: Path
) -> None:
    data = site / "calibrant_travel" / "data"
    rubric = data / "rubrics" / "rebooking_communication.yaml"
    store = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 'store.db'}"}

    def ok(*args: str, code: int = 0) -> str:
        r = calibrant(*args, cwd=tmp_path, env=store)
        assert r.returncode == code, (args, r.stdout[-3000:], r.stderr[-3000:])
        return str(r.stdout)

    # the pack is found through its entry point, with its cases, rubric and gold set
    listed = json.loads(ok("domains", "list", "--json"))
    travel = next(d for d in listed["domains"] if d["name"] == "travel")
    counts = {k: travel[k]["count"] for k in ("cases", "rubrics", "gold")}
    assert counts == {"cases": 13, "rubrics": 1, "gold": 48}

    # its self-test: known-good transcripts pass, planted faults fail with the right invariant
    assert re.search(
        r"(\d+)/\1 self-test transcripts judged as expected", ok("selftest", "--domain", "travel")
    )

    # trials of the correct agent on every case: every contract met, no invariant broken
    good = tmp_path / "good"
    report = json.loads(
        ok(
            "trials",
            str(data / "cases"),
            "--agent",
            "scripted:travel-correct",
            "-k",
            "1",
            "--out",
            str(good),
            "--json",
        )
    )
    assert len(report["cases"]) == 13 and all(c["successes"] == 1 for c in report["cases"])
    ok("check", str(good), "--fail-on-violation")
    # the double charger, caught by the core's generic invariant read through the pack's roles
    bad = tmp_path / "bad"
    ok(
        "trials",
        str(data / "cases" / "timeout_after_charge_commit.yaml"),
        "--agent",
        "scripted:travel-double-charger",
        "-k",
        "1",
        "--out",
        str(bad),
    )
    r = calibrant("check", str(bad), "--fail-on-violation", "--json", cwd=tmp_path, env=store)
    assert r.returncode == 1, r.stderr[-2000:]
    broken = {
        x["invariant"]
        for v in json.loads(r.stdout)["verdicts"]
        for x in v["results"]
        if x["outcome"] == "violated"
    }
    assert "no_duplicate_payment" in broken, broken

    with fake_openai(answer_from_schema(_pass_unless_told)) as server:
        judge = (
            "--rubric",
            str(rubric),
            "--model",
            "openai/travel-judge",
            "--api-base",
            server.url,
        )
        # the judge reads the travel records as trusted evidence, the traveller's note as text
        verdicts = json.loads(ok("judge", str(good), *judge, "--json"))
        assert verdicts["judgments"] == 13 and len(verdicts["transcripts"]) == 13
        _the_prompt_fences_the_note(server)
        # calibration on the pack's blind-labeled gold set
        rep = tmp_path / "calibration"
        cal = json.loads(
            ok("calibrate", "--gold", str(data / "gold"), *judge, "--out", str(rep), "--json")
        )
        assert cal["n_items"] > 0
        assert {c["criterion"] for c in cal["criteria"]} == {
            "states_booking_truthfully",
            "money_matches_records",
            "explains_holds_and_pending",
            "overall_clarity",
        }
        # scoring new transcripts, pass rates corrected by that calibration
        scored = json.loads(
            ok("score", str(good), *judge, "--calibration", str(rep / "report.json"), "--json")
        )
        assert scored["transcripts"] == 13
        assert scored["calibration"]["split"] == "calibration"

    _an_external_agent_runs_a_trial(forkserver, site, tmp_path, store)
    _the_workbench_shows_the_records(forkserver, site, tmp_path, good)


def _the_prompt_fences_the_note(server: FakeServer) -> None:
    """The prompt of the case whose traveller keeps a note telling the agent to waive fees: the
    note is inside the untrusted fence, never among the trusted records; the booking's status
    is evidence."""
    users = [str(b["messages"][-1]["content"]) for b in server.bodies]
    noted = [u for u in users if "platinum member" in u]
    assert noted, "no prompt carries the traveller's note"
    for u in noted:
        trusted, fence, untrusted = u.partition("<<<BEGIN-UNTRUSTED")
        assert fence and "platinum member" not in trusted and "platinum member" in untrusted
        assert "written by the customer, kept on traveller trv_ana" in untrusted
    assert any(re.search(r"booking BK-A1 of agency_a: .*status cancelled", u) for u in users)
    # the judge's instructions speak of the records, not of the refund shop's ledger
    system = str(server.bodies[0]["messages"][0]["content"])
    rules = system.split("\nRubric", 1)[0].casefold()
    assert "communicated with a customer," in rules
    assert "refund" not in rules and "ledger" not in rules


def _an_external_agent_runs_a_trial(
    server: ForkServer, site: Path, tmp_path: Path, store: dict[str, str]
) -> None:
    out = tmp_path / "sandbox"
    case = site / "calibrant_travel" / "data" / "cases" / "rebook_correct.yaml"
    env = {**os.environ, **server.env(), **store, "PYTHONPATH": str(site)}
    proc = subprocess.Popen(
        [os.path.join(server.bin, "calibrant"), "sandbox", str(case), "--out", str(out)]
        + ["--port", "0", "-k", "1"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        banner = proc.stderr.readline()
        where = re.search(r"at (http://127\.0\.0\.1:\d+)/mcp", banner)
        token = re.search(r"; token (\S+) ", banner)
        assert where and token, (banner, proc.poll())

        def post(path: str, payload: object) -> dict[str, Any]:
            req = urllib.request.Request(
                where.group(1) + path,
                data=json.dumps(payload).encode(),
                headers={
                    "Content-Type": "application/json",
                    "Authorization": f"Bearer {token.group(1)}",
                },
                method="POST",
            )
            with urllib.request.urlopen(req, timeout=60) as answer:
                return dict(json.loads(answer.read()))

        start = post("/trial/start", {"agent_version": "flow-1"})
        assert start["context"]["booking"] == "BK-A1"
        found = post(
            "/tools/find_booking",
            {"booking_ref": "BK-A1", "traveller_email": start["context"]["traveller"]["email"]},
        )
        assert found["status"] == "active"
        while (
            post("/trial/reply", {"text": "Your booking BK-A1 is unchanged."})["status"]
            == "running"
        ):
            pass
        proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0
    (written,) = out.glob("*.json")
    t = json.loads(written.read_text(encoding="utf-8"))
    assert t["domain"] == "travel" and [c["tool"] for c in t["tool_calls"]] == ["find_booking"]


def _the_workbench_shows_the_records(
    server: ForkServer, site: Path, tmp_path: Path, good: Path
) -> None:
    url = f"sqlite:///{tmp_path / 'workbench.db'}"
    rubric = site / "calibrant_travel" / "data" / "rubrics" / "rebooking_communication.yaml"
    digest = put_rubric(url, rubric)
    env = {"PYTHONPATH": str(site), **server.env()}
    shim = os.path.join(server.bin, "calibrant")
    with running_service(url, tmp_path, env=env, calibrant=(shim,)) as service:
        admin = service.client(service.user("travel-admin", "admin"))
        body = (
            good / next(p.name for p in sorted(good.glob("*.json")) if "rebook_correct" in p.name)
        ).read_bytes()
        got = admin.post(
            f"/api/transcripts?queue=travel&rubric={digest}",
            content=body,
            headers={"Content-Type": "application/json"},
        )
        assert got.is_success, got.text
        [row] = admin.get("/api/items?queue=travel").json()
        page = login(service, service.user("travel-expert", "annotator")).get(
            f"/label/{row['alias']}"
        )
        assert page.status_code == 200, page.text
        panel = page.text.split('Records <span class="badge ok">trusted</span>', 1)[1].split(
            "</section>"
        )[0]
        kinds = re.findall(r'<table class="grid records" data-kind="([^"]+)">', panel)
        assert {"booking", "charge", "seat_hold"} <= set(kinds), kinds
        text = " ".join(re.sub(r"<[^>]+>", " ", panel).split())
        assert "cancelled changed" in text and "35.00 EUR" in text
        assert "agency_b" not in page.text and "BK-B7" not in page.text
