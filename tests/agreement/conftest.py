"""Make ``calibrant`` importable from the source tree when the package is not installed."""

from __future__ import annotations

import sys
from pathlib import Path

try:
    import calibrant.agreement  # noqa: F401
except ModuleNotFoundError:  # pragma: no cover - depends on how the venv was set up
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))
