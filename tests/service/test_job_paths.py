"""Issue 30 item 4: the files a job names on the server stay inside the data root
(CALIBRANT_DATA_ROOT): a path outside it, one that leaves it through '..' or a link, and a
folder holding a link that leads out are a 422 naming the parameter, and nothing is queued; an
error about a verdicts file on the server names the file, the line and the field, never what
the file holds. The application in this process on PostgreSQL (jobs need its queue)."""

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

from tests.conftest import ROOT
from tests.support.counting_endpoint import make_items
from tests.support.gold import small_gold
from tests.support.labeling import labeling_service
from tests.support.service import Service

pytestmark = pytest.mark.postgres

SRC = ROOT / "examples" / "transcripts" / "good-eligible.json"
SECRET = "s3cr3t-Value-9f2c"


@dataclass
class Ctx:
    service: Service
    admin: str
    rubric: str
    root: Path
    outside: Path

    def post(self, kind: str, params: dict[str, Any]) -> dict[str, Any]:
        """POST the job; it must be refused with a 422, and no job queued."""
        with self.service.client(self.admin) as admin:
            got = admin.post("/api/jobs", json={"kind": kind, "params": params})
            assert got.status_code == 422, (kind, params, got.status_code, got.text[:400])
            assert admin.get("/api/jobs").json() == []
            said: dict[str, Any] = got.json()
            return said


@pytest.fixture(scope="module")
def ctx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ctx]:
    """A data root holding a gold folder, transcripts, a link to a folder outside it, and a
    folder of transcripts with such a link inside; a stored judge `j` (never called)."""
    work = tmp_path_factory.mktemp("job-paths")
    root, outside = work / "data", work / "outside"
    make_items(SRC, outside, 2)
    make_items(SRC, root / "items", 2)
    small_gold(root / "gold", 4)
    (root / "link-out").symlink_to(outside, target_is_directory=True)
    make_items(SRC, root / "mixed", 1)
    (root / "mixed" / "more").symlink_to(outside, target_is_directory=True)
    with pytest.MonkeyPatch.context() as env, labeling_service("postgres", work) as s:
        env.setenv("CALIBRANT_DATA_ROOT", str(root))
        admin = s.user("paths-admin", "admin")
        with s.client(admin) as client:
            (rubric,) = [r["hash"] for r in client.get("/api/rubrics").json()]
            judge = f"model: openai/j\napi_base: http://127.0.0.1:9/v1\nrubric: {rubric}\n"
            made = client.post("/api/judges", params={"name": "j"}, content=judge)
            assert made.status_code == 201, made.text
        yield Ctx(s, admin, rubric, root, outside)


@pytest.mark.parametrize(
    ("kind", "params", "field"),
    [
        ("judge", {"judge": "j", "paths": ["/etc"]}, "paths"),
        ("judge", {"judge": "j", "paths": ["../outside"]}, "paths"),
        ("judge", {"judge": "j", "paths": ["items", "link-out"]}, "paths"),
        ("score", {"judge": "j", "paths": ["/etc/passwd"]}, "paths"),
        ("calibrate", {"judge": "j", "gold": "/etc"}, "gold"),
        ("compare", {"a": "j", "b": "j", "gold": "gold/../../outside"}, "gold"),
    ],
)
def test_a_path_outside_the_data_root_is_422_and_nothing_is_queued(
    ctx: Ctx, kind: str, params: dict[str, Any], field: str
) -> None:
    said = ctx.post(kind, params)
    assert said["field"] == field, said
    assert "outside the service's data root (CALIBRANT_DATA_ROOT)" in said["detail"], said


def test_a_folder_with_a_link_leading_out_of_the_data_root_is_422(ctx: Ctx) -> None:
    said = ctx.post("judge", {"judge": "j", "paths": ["mixed"]})
    assert said["field"] == "paths"
    assert "reached through a link that leads out of the service's data root" in said["detail"]
    assert str(ctx.root / "mixed" / "more") in said["detail"]


def test_a_verdicts_file_outside_the_data_root_is_422(ctx: Ctx) -> None:
    params = {"verdicts": {"file": "/etc/passwd"}, "rubric": ctx.rubric, "gold": "gold"}
    said = ctx.post("calibrate", params)
    assert said["field"] == "verdicts.file"
    assert said["detail"].startswith("params: field 'verdicts.file': /etc/passwd: outside")


def _rows(gold: Path) -> list[dict[str, Any]]:
    items = sorted(yaml.safe_load((gold / "manifest.yaml").read_text()))
    return [
        {"item": i, "criterion": "overall_clarity", "label": 3, "judge_version": "ext"}
        for i in items
    ]


def _csv(rows: list[dict[str, Any]], columns: list[str]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


@pytest.mark.parametrize("where", ["a value", "a column", "a JSONL key"])
def test_an_error_about_a_verdicts_file_on_the_server_never_quotes_it(ctx: Ctx, where: str) -> None:
    rows = _rows(ctx.root / "gold")
    columns = ["item", "criterion", "label", "judge_version"]
    if where == "a value":
        rows[1]["label"] = SECRET  # line 3: not on the scale
        name, text, field = "v-value.csv", _csv(rows, columns), "label"
    elif where == "a column":
        name, text, field = "v-column.csv", _csv(rows, [*columns, SECRET]), None
    else:
        rows[1] = {**rows[1], SECRET: 1}
        name, text, field = "v-key.jsonl", "".join(json.dumps(r) + "\n" for r in rows), None
    (ctx.root / name).write_text(text)
    on_server = str(ctx.root / name)  # absolute, and inside the data root
    params = {"verdicts": {"file": on_server}, "rubric": ctx.rubric, "gold": str(ctx.root / "gold")}
    said = ctx.post("calibrate", params)
    assert SECRET not in json.dumps(said), said
    assert said["line"] == {"a value": 3, "a column": 1, "a JSONL key": 2}[where], said
    assert said.get("field") == field, said
    assert said["detail"].startswith(f"{ctx.root / name}:{said['line']}: "), said
    assert "calibrant calibrate --verdicts" in said["detail"]
