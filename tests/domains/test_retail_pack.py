"""The third domain pack, retail after tau2-bench (domains/retail/), has its own suite, and CI
covers it: collected with calibrant's own (its tests spread over the workers), its package on
the suite's path, and the core forbidden to import it."""

from __future__ import annotations

import tomllib

from tests.conftest import ROOT


def test_the_retail_packs_own_suite_is_part_of_calibrants() -> None:
    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    pytest_ini = options["pytest"]["ini_options"]
    assert "domains/retail/tests" in pytest_ini["testpaths"]
    assert "domains/retail/src" in pytest_ini["pythonpath"]  # CI installs calibrant only
    assert sorted((ROOT / "domains/retail/tests").glob("test_*.py"))
    core = next(
        c for c in options["importlinter"]["contracts"] if c["id"] == "core-imports-no-pack"
    )
    assert "calibrant_retail" in core["forbidden_modules"]
