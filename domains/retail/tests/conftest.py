"""The pack installed as pip would leave it: a dist-info on sys.path declaring its entry point
`retail = calibrant_retail:pack`, so calibrant's registry (and through it the case loader, the
safety checker and `calibrant.domains.runtime`) finds the pack while a test module of this folder
runs. Per module, not per session: calibrant's own suite collects these tests too
(pyproject.toml's testpaths), and its tests that run in the same worker after them must see only
the packs they install themselves."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from calibrant import domains

DIST = "calibrant_retail_test-0.1.dist-info"


@pytest.fixture(scope="module", autouse=True)
def installed_pack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    site = tmp_path_factory.mktemp("site")
    info = site / DIST
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: calibrant-retail-test\nVersion: 0.1\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        "[calibrant.domains]\nretail = calibrant_retail:pack\n", encoding="utf-8"
    )
    sys.path.append(str(site))
    domains.refresh()
    try:
        yield
    finally:
        sys.path.remove(str(site))
        domains.refresh()
