"""Packages whose exports load on first use (calibrant.lazy) still export every name they list,
from the module that defines it, and refuse a name they do not have as any module would."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from tests.conftest import ROOT

LAZY = [
    "calibrant.agreement",
    "calibrant.calibration",
    "calibrant.harness",
    "calibrant.judge",
    "calibrant.sandbox",
    "calibrant.scoring",
]


@pytest.mark.parametrize("package", LAZY)
def test_every_listed_name_is_exported_from_where_it_is_defined(package: str) -> None:
    pkg = importlib.import_module(package)
    for name in pkg.__all__:
        value = getattr(pkg, name)
        home = importlib.import_module(f"{package}.{pkg._HOME[name]}")
        assert value is getattr(home, name), name
    assert set(pkg.__all__) <= set(dir(pkg))
    assert set(pkg._HOME) == set(pkg.__all__)  # nothing exported that is not listed, or lost


@pytest.mark.parametrize("package", LAZY)
def test_a_name_the_package_does_not_have_is_an_attribute_error(package: str) -> None:
    pkg = importlib.import_module(package)
    with pytest.raises(AttributeError, match="no_such_name"):
        pkg.no_such_name  # noqa: B018
    with pytest.raises(ImportError):
        exec(f"from {package} import no_such_name", {})


def test_star_import_and_from_import_work_in_a_fresh_process() -> None:
    code = (
        "from calibrant.agreement import *\n"
        "from calibrant.calibration import Settings, run_calibration\n"
        "import sys\n"
        "print(cohen_kappa.__module__, Settings.__module__)\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert r.stdout.split() == ["calibrant.agreement.pairwise", "calibrant.calibration.criterion"]
