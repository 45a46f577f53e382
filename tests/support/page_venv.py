"""An environment of a page's own, for a docs page whose blocks `pip install` a pack.

A reader who follows docs/domains.md runs `pip install ./domains/travel` in the environment
calibrant runs in, then `calibrant domains show travel` sees the pack by its entry point. The
test cannot install into the shared virtualenv (other tests, other checkouts use it), so the page
gets a virtualenv of its own (`python -m venv --without-pip`) that sees the shared one's packages
through a `.pth` file (`site.addsitedir`, so the shared one's own `.pth` files, editable installs
among them, are read too): its own site-packages comes first, so what the page installs is found
there, and only there.

Its `bin/pip` is a shim: `pip install ARGS` runs the shared virtualenv's pip, in this
environment, as `pip install --no-build-isolation --no-deps --no-index ARGS`. The page's command
reads as written; what the flags change is only where the build's tools and the pack's
dependencies come from — the shared virtualenv, which has the packs' build backend (setuptools
and wheel, pinned by the project's dev extra) and calibrant itself — so nothing is downloaded.
Any other `pip` command runs as given.

`calibrant` for such a page is a fork server started by this environment's Python
(`ForkServer(python=...)`): each command a child forked after the install, which discovers the
packs (importlib.metadata, read when the command runs) as a new process would.
"""

from __future__ import annotations

import os
import site
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["PageVenv", "page_venv", "shared_site_packages"]

PIP_FLAGS = ("--no-build-isolation", "--no-deps", "--no-index")

PIP_SHIM = """#!/bin/sh
# The page's pip (tests/support/page_venv.py): the shared virtualenv's pip run in this
# environment; an install takes its build backend and dependencies from the shared one, offline.
if [ "${1:-}" = install ]; then
  shift
  exec %(python)s -m pip install %(flags)s "$@"
fi
exec %(python)s -m pip "$@"
"""


def shared_site_packages() -> Path:
    """The site-packages of the Python running the tests (the shared virtualenv's)."""
    for path in site.getsitepackages():
        if path.startswith(sys.prefix) and Path(path).is_dir():
            return Path(path)
    raise RuntimeError(f"no site-packages under {sys.prefix}")


@dataclass
class PageVenv:
    root: Path

    @property
    def bin(self) -> Path:
        return self.root / "bin"

    @property
    def python(self) -> Path:
        return self.bin / "python"

    def site_packages(self) -> Path:
        found = sorted((self.root / "lib").glob("python3.*/site-packages"))
        assert len(found) == 1, found
        return found[0]


def page_venv(where: Path) -> PageVenv:
    """A virtualenv at `where` with the shared one's packages behind its own, and the pip shim."""
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(where)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    venv = PageVenv(where)
    shared = shared_site_packages()
    (venv.site_packages() / "_calibrant_shared_venv.pth").write_text(
        f"import site; site.addsitedir({str(shared)!r})\n"
    )
    pip = venv.bin / "pip"
    pip.write_text(PIP_SHIM % {"python": venv.python, "flags": " ".join(PIP_FLAGS)})
    pip.chmod(pip.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    probe = subprocess.run(
        [str(venv.python), "-c", "import setuptools, wheel, pip, sys; print(sys.prefix)"],
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
        timeout=60,
    )
    assert probe.returncode == 0, probe.stderr
    assert Path(probe.stdout.strip()).resolve() == where.resolve(), probe.stdout
    return venv
