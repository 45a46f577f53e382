"""The pack installed as pip would leave it: its entry point `travel = calibrant_travel:pack`
declared (`calibrant.pack.declared`), so calibrant's registry (and through it the case loader,
the safety checker and the runtime) finds the pack while a test module of this folder runs. Per
module, not per session: calibrant's own suite collects these tests too (pyproject.toml's
testpaths), and its tests that run in the same worker after them must see only the packs they
install themselves."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from calibrant.pack import declared


@pytest.fixture(scope="module", autouse=True)
def installed_pack() -> Iterator[None]:
    with declared(
        {"travel": "calibrant_travel:pack"}, distribution="calibrant-travel-test", version="0.1"
    ):
        yield
