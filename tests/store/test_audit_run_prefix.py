"""Outside audit of run ids by prefix (`runs show`, `score --calibration RUN_ID`): a prefix is
text, not a SQL pattern, and an empty prefix names no run."""

from __future__ import annotations

from pathlib import Path

import pytest

from calibrant.store import make_engine
from calibrant.store.runs import Runs


@pytest.mark.parametrize("prefix", ["%", "_", "________", ""])
def test_a_wildcard_or_empty_prefix_does_not_pick_the_only_run(tmp_path: Path, prefix: str) -> None:
    runs = Runs(make_engine(f"sqlite:///{tmp_path / 's.db'}"))
    run = runs.start("calibrate")
    runs.finish(run, {"n_items": 1})
    assert runs.detail(run[:6]) is not None  # a real prefix still works
    assert runs.detail(prefix) is None
