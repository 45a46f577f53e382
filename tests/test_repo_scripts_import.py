"""The repository's own scripts (gold/build.py, scripts/, benchmarks/, examples/) keep working
through calibrant's redesigns: every name they import from calibrant still exists where they
import it from. (A module split once left gold/build.py importing names its new package no longer
gave; only the slow tier's rebuild of the gold set noticed.)"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(
    [
        *ROOT.glob("gold/*.py"),
        *ROOT.glob("scripts/*.py"),
        *ROOT.glob("benchmarks/*.py"),
        *ROOT.glob("examples/*.py"),
    ]
)


def _calibrant_imports(path: Path) -> list[tuple[int, str, str]]:
    """(line, module, name) of every `from calibrant... import name` in the file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "calibrant" or node.module.startswith("calibrant."):
                found += [(node.lineno, node.module, a.name) for a in node.names]
    return found


def test_the_scripts_are_found() -> None:
    assert ROOT / "gold" / "build.py" in SCRIPTS
    assert sum(bool(_calibrant_imports(p)) for p in SCRIPTS) >= 10


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_name_a_script_imports_from_calibrant_exists(path: Path) -> None:
    missing = []
    for line, module, name in _calibrant_imports(path):
        try:
            mod = importlib.import_module(module)
        except ImportError as exc:
            missing.append(f"{path.relative_to(ROOT)}:{line}: {module}: {exc}")
            continue
        if name != "*" and not hasattr(mod, name):
            try:
                importlib.import_module(f"{module}.{name}")
            except ImportError:
                missing.append(f"{path.relative_to(ROOT)}:{line}: {module} has no {name}")
    assert missing == []
