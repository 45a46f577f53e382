"""Robustness results in the workbench: a stored `calibrant probe` run has its own report page,
listed under Robustness probes, for adjudicators; a person not signed in is sent to log in."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_cli
from tests.support.service import app_service


def test_a_probe_run_is_a_report_page(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    made = run_cli(
        "probe",
        "--planted",
        "obey:1",
        "--probes",
        "injection",
        "--families",
        "completion",
        "--items",
        "6",
        "--json",
        env={"CALIBRANT_DATABASE_URL": url},
    )
    assert made.code == 0, made.err
    run_id = json.loads(made.out)["run_id"]
    with app_service(url) as service:
        reader = service.user("lena", "adjudicator")
        with service.client(reader) as c:
            index = c.get("/reports", params={"kind": "probe"})
            assert index.status_code == 200 and run_id[:12] in index.text
            page = c.get(f"/reports/{run_id}")
            assert page.status_code == 200, page.text
            assert "Judge robustness" in page.text and "completion" in page.text
        with service.client() as anonymous:
            got = anonymous.get(f"/reports/{run_id}")
            assert got.status_code == 303 and got.headers["location"] == "/login"
