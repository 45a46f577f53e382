"""Every shell block of README.md and docs/*.md runs as written.

Each page's ```bash / ```sh / ```console blocks run in order in one temporary folder holding a
fresh copy of the repository's data (gold, cases, rubrics, judges, examples), as a reader who
follows the page from the root of a clone would: what a block writes, the next one reads; a
variable a block sets (`TOKEN=$(...)`), the next one sees. `calibrant` is the shared
virtualenv's (its bin first on PATH, this tree's src on PYTHONPATH), as after
`source .venv/bin/activate`. A block runs under `set -euo pipefail`; the first command that fails
fails the test, naming the page, the block, its line and the command.

Speed: the pages run ~60 `calibrant` commands, a judging one paying ~4 s of CPU to import
litellm. Here `calibrant` on PATH is tests/support/forkserver.py's client: a server that
imported calibrant and litellm once forks a real child per command, on the block's descriptors,
folder and environment, its exit status the command's (see that module for what differs).

A block is skipped only when an HTML comment `<!-- not-run: reason -->` stands just above it
(installing calibrant itself, a second terminal, a remote server); a marker without a reason, or
a marker with no block under it, fails.

A page whose blocks install a pack (`pip install ./domains/travel`, docs/domains.md) runs them
for real, in an environment of the page's own (tests/support/page_venv.py): a virtualenv that
sees the shared one's packages behind its own, `python` and `pip` on PATH its own, `calibrant`
a fork server started by its Python, so after the block the next command finds the pack by its
entry point. That `pip install` runs as `pip install --no-build-isolation --no-deps --no-index`
(a `pip` shim on the page's PATH adds the flags): the build backend and calibrant come from the
shared virtualenv, nothing is downloaded. The folder holds a copy of the packs (`domains/`,
`examples/`), so a build writes its build/ and *.egg-info there; the test checks that the shared
virtualenv's site-packages and the repository's pack folders are as before.

The README has a test of its own, its tour from step 1 to step 6: step 5's `calibrant serve &`
serves until the test ends, and between step 6's `audit` and its
`agreement-over-time` two scripted experts label the audit queue through that server's API, as
the README's text has the experts do; the clone it leaves has nothing for git to commit.

Models: the pages name the saved judges `embedded` (judges/embedded.yaml) and `vllm-local`
(judges/vllm-local.yaml, a server at http://127.0.0.1:8000/v1), and an `llm:` agent at that same
address. Here a local fake OpenAI-compatible endpoint (tests/support/fake_openai.py) stands in
for all of them: the copied judges/embedded.yaml names a model at the fake instead of the
embedded llama.cpp model, and the address http://127.0.0.1:8000/v1 in the copied judge files and
in the blocks is the fake's. The embedded model is not run for real: a cold calibration of the
calibration split takes 24 min 54 s on two cores (docs/judge.md), and measured here while
writing this test, `calibrant judge` on 2 gold transcripts with a cold prompt cache took 130 s
(two cores shared with other test runs) — far over a test's budget. The README's first run
(`calibrant calibrate`, in an install block) is the same judge as its tour's `--judge embedded`
(same configuration hash), which runs here against the fake. A judging command that would fall
back to the embedded model (no --judge, --model, --planted or --verdicts) fails the test.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.doc_blocks import MARKER, Block, script_of
from tests.support.doc_blocks import shell_blocks as doc_blocks
from tests.support.domains import refunds_fallback
from tests.support.fake_openai import answer_from_schema, fake_openai
from tests.support.forkserver import ForkServer
from tests.support.page_venv import PageVenv, page_venv, shared_site_packages

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
COPIED = ("gold", "cases", "rubrics", "judges", "examples", "domains")
BUILT = ("build", "*.egg-info", "__pycache__", ".pytest_cache")  # not in a fresh clone
EXAMPLE_URL = "http://127.0.0.1:8000/v1"  # judges/vllm-local.yaml's, and the pages' llm: agent
BLOCK_TIMEOUT_S = 900

JUDGING = re.compile(r"\bcalibrant\s+(calibrate|judge|score|probe|stability)\b(.*)")


def _rel(page: Path) -> str:
    return str(page.relative_to(ROOT))


def shell_blocks(page: Path) -> list[Block]:
    return doc_blocks(page, ROOT)


def _fake_answer(body: dict[str, Any]) -> str:
    """A judge's answer built from the schema it was sent (labels vary with the item, so the
    reports have something to show), or an agent's plain reply."""
    if body.get("response_format"):
        seed = zlib.crc32(json.dumps(body.get("messages"), sort_keys=True).encode())
        pick = answer_from_schema(lambda crit, labels: labels[(seed + len(crit)) % len(labels)])
        return pick(body)
    return "Thank you, I am checking your order and will confirm the refund once it is done."


def _workdir(tmp: Path, fake_url: str) -> Path:
    work = tmp / "clone"
    work.mkdir()
    for name in COPIED:
        shutil.copytree(
            ROOT / name, work / name, symlinks=True, ignore=shutil.ignore_patterns(*BUILT)
        )
    # the embedded judge, standing in at the fake (see the module's docstring)
    # (its label prior is the embedded model's own: the stand-in picks labels another way)
    embedded = work / "judges" / "embedded.yaml"
    saved = yaml.safe_load(embedded.read_text())
    saved = {k: v for k, v in saved.items() if k not in ("label_scoring", "label_prior")}
    saved.update(model="openai/embedded-stand-in", api_base=fake_url)
    embedded.write_text(yaml.safe_dump(saved, sort_keys=False))
    for path in (work / "judges").glob("*.yaml"):
        path.write_text(path.read_text().replace(EXAMPLE_URL, fake_url))
    return work


def _environment(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CALIBRANT_")}
    env.pop("PYTEST_CURRENT_TEST", None)
    venv_bin = str(Path(sys.executable).parent)
    env["PATH"] = venv_bin + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT / "domains/refunds/src")])
    if (packs := refunds_fallback()) is not None:  # an install older than the refunds entry point
        env["PYTHONPATH"] += os.pathsep + str(packs)
    env["CALIBRANT_EMBEDDED_CACHE"] = "off"
    env["COLUMNS"] = "80"
    env["HOME"] = str(tmp / "home")
    (tmp / "home").mkdir()
    return env


def _uses_embedded_for_real(script: str) -> str | None:
    for ln in script.splitlines():
        m = JUDGING.search(ln.split("#", 1)[0])
        if m and not re.search(r"--(judge|model|planted|verdicts)\b|--wait\b", m.group(2)):
            return ln.strip()
    return None


HEADER = """set -euo pipefail
set -a
cd "$(cat "$DOCS_STATE/cwd")"
if [ -f "$DOCS_STATE/env" ]; then . "$DOCS_STATE/env"; fi
trap 'printf "%s\\n%s\\n%s\\n" "$?" "$((LINENO - 1))" "$BASH_COMMAND" > "$DOCS_STATE/failed"' ERR
keep() { export -p | grep -v -E '^declare -x (DOCS_STATE|OLDPWD|PWD|SHLVL|_)='; }
trap 'keep > "$DOCS_STATE/env"; pwd > "$DOCS_STATE/cwd"' EXIT
"""


@dataclass
class Reader:
    """One page's reader: a folder, a shell state carried from block to block, and the process
    groups its blocks started (a `calibrant serve &` outlives its block until the page ends)."""

    work: Path
    state: Path
    env: dict[str, str]
    fake_url: str
    groups: list[int]
    venv: PageVenv | None = None  # the page's own environment, for a page that installs

    def run(self, block: Block) -> None:
        script = script_of(block).replace(EXAMPLE_URL, self.fake_url)
        real = _uses_embedded_for_real(script)
        assert real is None, (
            f"{block.page}, block {block.number} (line {block.line}): `{real}` would run the "
            "embedded model for real (minutes per split): name a saved judge (--judge)"
        )
        failed = self.state / "failed"
        failed.unlink(missing_ok=True)
        path = self.state / f"block{block.number}.sh"
        path.write_text(f'. "$DOCS_STATE/header"\n{script}')
        out, err = self.state / "stdout", self.state / "stderr"
        with out.open("wb") as o, err.open("wb") as e:
            proc = subprocess.Popen(
                ["bash", str(path)],
                cwd=self.work,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=o,
                stderr=e,
                start_new_session=True,
            )
            self.groups.append(proc.pid)
            try:
                rc = proc.wait(timeout=BLOCK_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                rc = None
        if rc == 0:
            return
        if rc is None:
            why = f"did not finish in {BLOCK_TIMEOUT_S} s"
        elif failed.exists():
            code, line, command = failed.read_text().split("\n", 2)
            why = f"line {line} of the block: `{command.strip()}` exited {code}"
        else:
            why = f"the block exited {rc}"
        tail = "\n".join(err.read_text(errors="replace").splitlines()[-25:])
        stdout = "\n".join(out.read_text(errors="replace").splitlines()[-15:])
        pytest.fail(
            f"{block.page}, block {block.number} (line {block.line}) does not run as written: "
            f"{why}\n--- stdout (tail) ---\n{stdout}\n--- stderr (tail) ---\n{tail}",
            pytrace=False,
        )

    def close(self) -> None:
        for pgid in self.groups:
            try:
                os.killpg(pgid, signal.SIGTERM)
            except ProcessLookupError:
                pass


@pytest.fixture(scope="session")
def warm_calibrant() -> Iterator[ForkServer]:
    server = ForkServer()
    try:
        yield server
    finally:
        server.close()


PIP_INSTALL = re.compile(r"^\s*pip install\b", re.M)


def _installs_with_pip(page: Path) -> bool:
    """Whether a block of the page that runs installs a package (`pip install ...`)."""
    return any(b.skip is None and PIP_INSTALL.search(script_of(b)) for b in shell_blocks(page))


def _installed_state() -> tuple[list[str], list[str]]:
    """What a page's `pip install` must leave as it was: the shared virtualenv's site-packages
    and what a build leaves in the repository's pack folders."""
    site = sorted(p.name for p in shared_site_packages().iterdir())
    built = sorted(
        str(p.relative_to(ROOT))
        for folder in ("domains", "examples")
        for pattern in ("*/build", "*/*.egg-info", "*/src/*.egg-info")
        for p in (ROOT / folder).glob(pattern)
    )
    return site, built


@pytest.fixture
def reader(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Reader]:
    callspec = getattr(request.node, "callspec", None)
    page = callspec.params.get("page") if callspec is not None else None
    with contextlib.ExitStack() as stack:
        fake = stack.enter_context(fake_openai(_fake_answer))
        work = _workdir(tmp_path, fake.url)
        state = tmp_path / "state"
        state.mkdir()
        (state / "header").write_text(HEADER)
        (state / "cwd").write_text(str(work))
        env = _environment(tmp_path)
        venv = None
        if page is not None and _installs_with_pip(page):  # the page's own environment
            venv = page_venv(tmp_path / "venv")
            server = stack.enter_context(contextlib.closing(ForkServer(python=str(venv.python))))
            env["PATH"] = str(venv.bin) + os.pathsep + env["PATH"]
        else:
            server = request.getfixturevalue("warm_calibrant")
        env.update(server.env())
        env["PATH"] = server.bin + os.pathsep + env["PATH"]
        env["DOCS_STATE"] = str(state)
        r = Reader(work=work, state=state, env=env, fake_url=fake.url, groups=[], venv=venv)
        try:
            yield r
        finally:
            r.close()


def _runnable_pages() -> list[Path]:
    """The pages with a block to run, but the README: its tour has a test of its own (below)."""
    return [p for p in PAGES[1:] if any(b.skip is None for b in shell_blocks(p))]


@pytest.mark.slow  # ~60 real `calibrant` processes (forked), 11-46 s a page; pip installs
@pytest.mark.parametrize("page", _runnable_pages(), ids=_rel)
def test_every_shell_block_of_the_page_runs_as_written(page: Path, reader: Reader) -> None:
    before = _installed_state() if reader.venv is not None else None
    for block in shell_blocks(page):
        if block.skip is None:
            reader.run(block)
    if reader.venv is not None:
        # each `pip install` of the page installed a distribution into the page's own
        # environment, from the page's copy of the packs, and nothing anywhere else
        installs = sum(
            len(PIP_INSTALL.findall(script_of(b))) for b in shell_blocks(page) if b.skip is None
        )
        installed = list(reader.venv.site_packages().glob("*.dist-info"))
        assert len(installed) == installs, installed
        assert _installed_state() == before


EXPERTS = ROOT / "tests" / "support" / "tour_experts.py"


def _the_experts_label(block: Block) -> Block | None:
    """After the README's `calibrant audit ... --queue Q` block, what its text has the experts
    do before the next one: two annotators label queue Q in the workbench step 5 started (here
    through its HTTP API, tests/support/tour_experts.py). None after any other block."""
    audit = re.search(r"\bcalibrant audit\b.*--queue\s+(\S+)", block.text)
    if audit is None:
        return None
    port = re.search(r"calibrant serve\b.*--port\s+(\d+)", README.read_text())
    assert port, "README.md: the tour's `calibrant serve --port P` block is gone"
    script = (
        "EXPERT_1=$(calibrant users add tour-ann --role annotator)\n"
        "EXPERT_2=$(calibrant users add tour-ben --role annotator)\n"
        f"{sys.executable} {EXPERTS} http://127.0.0.1:{port.group(1)} {audit.group(1)} "
        "rubrics/refund_communication.yaml\n"
    )
    return Block("README.md (the experts label)", block.number, block.line, "bash", script, None)


README = ROOT / "README.md"


@pytest.mark.slow  # ~25 real `calibrant` processes (forked) and a served workbench: ~2 min
def test_the_readme_tour_runs_to_its_end(reader: Reader) -> None:
    """Every block of the README in order, from the first step to the sixth, as a reader runs
    them: step 5's `calibrant serve &` keeps serving (stopped when the test ends) while step 6
    audits the week's score run into a queue, two experts label it there, and agreement over
    time and the monitor read their labels. A block fails the test as soon as it exits non-zero."""
    blocks = shell_blocks(README)
    before = {p for p in reader.work.rglob("*") if p.is_file()}
    ran = 0
    for block in blocks:
        if block.skip is not None:
            continue
        reader.run(block)
        ran += 1
        experts = _the_experts_label(block)
        if experts is not None:
            reader.run(experts)
            labeled = (reader.state / "stdout").read_text()
            assert labeled.count("labeled") == 2, labeled
    last = (reader.state / "stdout").read_text()
    assert ran == sum(b.skip is None for b in blocks) >= 7  # six steps, the sixth in two
    assert "monitor" in blocks[-1].text and (reader.work / "monitor.html").is_file(), last
    # agreement over time and the monitor counted the experts' labels of the audited items
    assert re.search(r"kappa .*n=[1-9]", last), last
    # and a clone that followed the tour has nothing new for git to offer (.gitignore)
    shutil.copyfile(ROOT / ".gitignore", reader.work / ".gitignore")
    subprocess.run(["git", "init", "-q"], cwd=reader.work, check=True)
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=reader.work,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    new = [ln[3:] for ln in status if (reader.work / ln[3:]) not in before]
    assert new == [".gitignore"], f"the tour leaves files .gitignore does not name: {new}"


def test_a_skipped_block_says_why() -> None:
    problems = []
    for page in PAGES:
        text = page.read_text()
        for block in shell_blocks(page):
            if block.skip == "":
                problems.append(f"{block.page}, block {block.number} (line {block.line})")
        markers = len(MARKER.findall(text))
        marked = sum(b.skip is not None for b in shell_blocks(page))
        if markers != marked:
            problems.append(
                f"{_rel(page)}: {markers - marked} not-run marker(s) with no block under"
            )
    assert not problems, "skipped without a reason: " + "; ".join(problems)


def test_the_pages_have_shell_blocks_and_most_run() -> None:
    blocks = [b for p in PAGES for b in shell_blocks(p)]
    readme = [b for b in blocks if b.page == "README.md"]
    assert sum(b.skip is None for b in readme) >= 7  # the six-step tour, the sixth in two
    assert sum(b.skip is None for b in blocks) > sum(b.skip is not None for b in blocks)


def test_the_block_reader_sees_what_a_reader_sees() -> None:
    """The parser itself: markers, console prompts and fences as a reader reads them."""
    page = ROOT / "docs" / "install.md"
    first = shell_blocks(page)[0]
    assert first.skip and "pip" in first.skip and first.lang == "bash"
    console = Block(
        "x", 1, 1, "console", "$ calibrant runs list\nrun  kind\n$ ls \\\n> reports\n", None
    )
    assert script_of(console) == "calibrant runs list\nls \\\nreports\n"
    code = Block("x", 1, 1, "python", "import sys\nprint(sys.argv)\n", None)
    assert script_of(code) == (
        "python - <<'CALIBRANT_DOCS_PYTHON_BLOCK'\nimport sys\nprint(sys.argv)\n"
        "CALIBRANT_DOCS_PYTHON_BLOCK\n"
    )
    assert _uses_embedded_for_real("calibrant calibrate --split heldout") is not None
    assert _uses_embedded_for_real("calibrant calibrate --judge embedded  # no model") is None
    assert _uses_embedded_for_real("calibrant compare-trials runs/ok runs/retry") is None


LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_links_between_pages_point_at_files_that_exist() -> None:
    missing = []
    for page in PAGES:
        for target in LINK.findall(page.read_text()):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            path = target.split("#", 1)[0]
            if not (page.parent / path).exists():
                missing.append(f"{_rel(page)} -> {target}")
    assert not missing, missing


def _anchor(heading: str) -> str:
    """The anchor a Markdown renderer gives a heading: lower case, punctuation dropped,
    spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_links_to_a_section_point_at_a_heading_that_exists() -> None:
    """A link `page.md#section` (or `#section` on the same page) names a heading of that page:
    docs/domains.md once linked to a section on a pack's runtime that was never written."""
    missing = []
    for page in PAGES:
        for target in LINK.findall(page.read_text()):
            if re.match(r"[a-z]+:", target) or "#" not in target:
                continue
            path, section = target.split("#", 1)
            linked = page.parent / path if path else page
            if linked.suffix != ".md" or not linked.exists():
                continue
            headings = re.findall(r"^#+ (.+)$", linked.read_text(), re.M)
            if section not in {_anchor(h) for h in headings}:
                missing.append(f"{_rel(page)} -> {target}")
    assert not missing, missing
