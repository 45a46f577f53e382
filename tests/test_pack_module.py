"""`calibrant.pack`, the one module a domain pack imports: every name it lists is the object of
the module that defines it (a re-export, never a copy), importing it loads nothing else of
calibrant, a name it does not have is an AttributeError naming it, and its docstring states
what is public and how that changes."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import calibrant.pack as pack
from tests.conftest import ROOT


def test_every_name_is_the_object_its_home_module_defines() -> None:
    assert set(pack._HOME) == set(pack.__all__)
    for name in pack.__all__:
        home = importlib.import_module(f"calibrant.{pack._HOME[name]}")
        assert getattr(pack, name) is getattr(home, name), name
    assert set(pack.__all__) <= set(dir(pack))


def test_a_pack_finds_what_it_needs_under_these_names() -> None:
    """The parts the issue's team had to dig out of calibrant's internals."""
    for name in (
        "DomainPack", "RecordSpec", "SnapshotSpec", "PackRuntime", "ImportOnlyRuntime",
        "pack_invariant", "Evidence", "violated", "SelftestEntry", "RecordedEntry",
        "parse_chat", "build_transcript", "read_domain_snapshot", "import_traces", "declared",
    ):  # fmt: skip
        assert name in pack.__all__, name


def test_importing_it_loads_nothing_else_of_calibrant() -> None:
    code = (
        "import sys\nimport calibrant.pack\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'calibrant'))\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert r.stdout.strip() == "['calibrant', 'calibrant.lazy', 'calibrant.pack']"


def test_a_name_it_does_not_have_is_an_attribute_error_naming_it() -> None:
    with pytest.raises(AttributeError, match="module 'calibrant.pack' has no attribute 'Ledger'"):
        pack.Ledger  # noqa: B018
    with pytest.raises(ImportError):
        exec("from calibrant.pack import Ledger", {})


def test_its_docstring_states_the_stability_promise() -> None:
    doc = " ".join((pack.__doc__ or "").split())
    assert "Every name in this module's `__all__`" in doc
    assert "deprecated for one minor version" in doc
    assert "`schema_version`" in doc
    assert "examples/import_only_pack" in doc
