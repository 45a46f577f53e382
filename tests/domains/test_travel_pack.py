"""The second domain pack, travel rebooking (domains/travel/), runs its own suite here so CI
covers it: its declaration through a real entry point, its service's mechanisms, and every
scripted agent on every case. CI installs calibrant only; the pack's src goes on PYTHONPATH,
as an editable install would put it."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import ROOT

PACK = ROOT / "domains" / "travel"


def test_the_travel_packs_own_suite_passes() -> None:
    env = dict(os.environ)
    paths = [str(ROOT / "src"), str(PACK / "src")]
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", "tests"],
        cwd=PACK,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    last = done.stdout.strip().splitlines()[-1]
    assert " passed" in last and "failed" not in last and "error" not in last, last
