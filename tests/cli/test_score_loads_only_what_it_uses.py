"""`calibrant score` of one transcript loads only what it uses: no service code, no other
domain pack than the transcript's, no trial runner, no statistics a run without a calibration
does not compute; and a rerun that asks the model nothing loads no litellm.

What a fresh process imports is the thing tested, so each run is a child process; an import
hook in it records, for every module, the code that first imported it, so a failure names the
import to move (benchmarks/bench_score_imports.py measures the same path from outside)."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

from tests.conftest import DEFAULT_STORE, ROOT
from tests.support.cli import cli_environment
from tests.support.fake_openai import answer_from_schema, fake_openai

TRANSCRIPT = ROOT / "gold" / "transcripts" / "gold-001.json"  # a refund shop transcript
DOMAIN = "refunds"

# The child: an import hook that records who imported each module (module:line in function),
# then the real command line; on any exit, the modules loaded and their importers, as JSON.
CHILD = r"""
import json, sys

out, argv = sys.argv[1], sys.argv[2:]
who = {}

def _caller():
    f = sys._getframe(2)
    while f is not None and (
        f.f_code.co_filename.startswith("<frozen importlib")
        or f.f_globals.get("__name__") in ("importlib", "calibrant.lazy")
    ):
        f = f.f_back
    if f is None:
        return None
    return f"{f.f_globals.get('__name__')}:{f.f_lineno} in {f.f_code.co_name}"

class Who:
    def find_spec(self, name, path=None, target=None):
        if name not in who:
            who[name] = _caller()
        return None

sys.meta_path.insert(0, Who())
sys.argv = ["calibrant", *argv]
try:
    from calibrant.cli import main
    main()
finally:
    with open(out, "w") as fh:
        json.dump({"modules": sorted(sys.modules), "who": who}, fh)
"""

# Loaded by no score run: the service and what serves it, the trial runner and its engine,
# workflows that are not scoring, the embedded model on a hosted judge, the job queue, and the
# statistics only a calibration's correction (numpy) or other reports (scipy, sklearn) use.
NEVER = (
    "calibrant.service",
    "calibrant.harness",
    "calibrant.engine",
    "calibrant.sandbox",
    "calibrant.monitor",
    "calibrant.probes",
    "calibrant.importers",
    "calibrant.compare",
    "calibrant.regression",
    "calibrant.selftest",
    "fastapi",
    "starlette",
    "uvicorn",
    "llama_cpp",
    "procrastinate",
    "psycopg",
    "numpy",
    "scipy",
    "sklearn",
)
# ... and by a rerun that asks the model nothing: the model client and what it brings.
NEVER_WITHOUT_A_CALL = ("litellm", "openai", "jinja2")


def _other_packs() -> set[str]:
    """The top-level modules of every installed domain pack but the transcript's."""
    return {
        ep.value.split(":")[0].split(".")[0]
        for ep in entry_points(group="calibrant.domains")
        if ep.name != DOMAIN
    }


def _score(tmp: Path, url: str, tag: str) -> tuple[dict[str, object], set[str], dict[str, str]]:
    """One `calibrant score` in a fresh process: its JSON summary, the modules it loaded and
    who imported each."""
    record = tmp / f"modules-{tag}.json"
    args = ("score", str(TRANSCRIPT), "--model", "openai/good", "--api-base", url, "--json")
    env = cli_environment(DEFAULT_STORE, {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp / 's.db'}"})
    r = subprocess.run(
        [sys.executable, "-c", CHILD, str(record), *args],
        cwd=tmp,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    loaded = json.loads(record.read_text())
    return json.loads(r.stdout), set(loaded["modules"]), loaded["who"]


def _unwanted(modules: set[str], who: dict[str, str], prefixes: set[str]) -> list[str]:
    """Each module under `prefixes` that was loaded, with the chain of module-level imports
    that brought it, up to the function that ran the first of them:
    `fastapi <- calibrant.service.app:3 in <module> <- calibrant.cli.x:10 in serve`."""
    found = []
    for top in sorted(prefixes):
        hits = sorted(m for m in modules if m == top or m.startswith(top + "."))
        if not hits:
            continue
        steps, name = [hits[0]], hits[0]
        while (by := who.get(name)) is not None and len(steps) < 10:
            steps.append(by)
            name = by.split(":")[0]
            if not by.endswith(" in <module>"):
                break
        found.append(" <- ".join(steps) + f" ({len(hits)} module(s) of {top})")
    return found


def test_score_of_one_transcript_loads_no_service_no_other_pack_and_no_unused_statistics(
    tmp_path: Path,
) -> None:
    never = set(NEVER) | _other_packs()
    with fake_openai(answer_from_schema(lambda c, labels: labels[0])) as server:
        first, modules, who = _score(tmp_path, server.url, "first")
        assert first["judge_outcomes"] == {"verdict": 1} and first["from_cache"] == 0
        assert server.requests["good"] == 1
        unwanted = _unwanted(modules, who, never)
        assert not unwanted, "loaded by `score`:\n" + "\n".join(unwanted)
        assert "litellm" in modules  # the judge was asked: the check above saw a real run
        assert any(m.startswith("calibrant_refunds") for m in modules)  # the run's own pack

        again, modules, who = _score(tmp_path, server.url, "again")
        assert again["from_cache"] == 1 and server.requests["good"] == 1  # no call this time
        unwanted = _unwanted(modules, who, never | set(NEVER_WITHOUT_A_CALL))
        assert not unwanted, "loaded by a `score` rerun with no call:\n" + "\n".join(unwanted)
