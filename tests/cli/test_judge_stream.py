"""`calibrant judge --jsonl`: one line per transcript as it is judged, then a summary line;
every file is checked before the first model call; a rerun asks nothing."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import ROOT, Result
from tests.support.fake_openai import answer_from_schema, fake_openai

EXAMPLES = ROOT / "examples" / "transcripts"


def _lines(r: Result) -> list[dict[str, Any]]:
    assert r.code == 0, r.err
    return [json.loads(x) for x in r.out.splitlines()]


def test_jsonl_streams_rows_then_a_summary_and_a_rerun_asks_nothing(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    for f in sorted(EXAMPLES.glob("*.json")):
        shutil.copy(f, folder / f.name)
    n = len(list(folder.glob("*.json")))
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 's.db'}", "OPENAI_API_KEY": "x"}
    with fake_openai(answer_from_schema(lambda c, allowed: allowed[0])) as server:
        args = ("judge", str(folder), "--model", "openai/j", "--api-base", server.url, "--jsonl")
        rows = _lines(cli(*args, env=env))
        assert server.requests["j"] == n
        assert len(rows) == n + 1 and set(rows[-1]) == {"summary"}
        summary = rows[-1]["summary"]
        assert summary["transcripts"] == n and summary["model_calls"] == n
        assert summary["outcomes"] == {"verdict": n}
        first = rows[0]
        assert set(first) == {"transcript_id", "source", "safety", "communication"}
        assert first["communication"][0]["outcome"] == "verdict"
        broken = next(r for r in rows[:-1] if "duplicate" in r["source"])
        assert "no_duplicate_payment" in broken["safety"]["violated"]

        again = _lines(cli(*args, env=env))
        assert server.requests["j"] == n  # all from the store
        assert again[-1]["summary"]["from_cache"] == n
        assert again[:-1] == rows[:-1]

        (folder / "zz-bad.json").write_text('{"transcript_id": "x"}')
        before = server.requests["j"]
        bad = cli(*args, env=env)
        assert bad.code == 2 and "zz-bad.json" in bad.err and bad.out == ""
        assert server.requests["j"] == before

        both = cli("judge", str(folder), "--json", "--jsonl", env=env)
        assert both.code == 2 and "--jsonl" in both.err
