"""scripts/install.py, the README's install: llama.cpp is built once per machine into a
wheelhouse keyed by version, flags and platform, reused by every later install, never built
natively, and a wheel whose bytes changed is built again.

`pip` here is a stand-in virtualenv python (a shell script) that records each call and, asked to
build a wheel, writes one as pip would name it: the script's decisions (build or reuse, the flags
it builds with, what it lets pip install) are what is tested. CI's own run of the README's
command is the real build and install."""

from __future__ import annotations

import importlib.util
import json
import sys
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import ROOT

SCRIPT = ROOT / "scripts" / "install.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("calibrant_install_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


install = _load()
VERSION = install.pinned_version()

FAKE_PYTHON = r"""#!/usr/bin/env bash
# a virtualenv's python, as far as scripts/install.py uses it: records the call, builds a
# wheel when asked to, says where its site-packages are
echo "$CMAKE_ARGS|$*" >> "$FAKE_LOG"
if [ "$1" = "-c" ]; then echo "$FAKE_SITE"; exit 0; fi
if [ "$3" = "wheel" ]; then
  while [ $# -gt 0 ]; do
    if [ "$1" = "--wheel-dir" ]; then dir=$2; fi
    shift
  done
  "$REAL_PYTHON" - "$dir" <<'EOF'
import sys, zipfile, hashlib, base64, os
dest = sys.argv[1]
lib = os.urandom(64)  # every build differs, as compiled code does
digest = base64.urlsafe_b64encode(hashlib.sha256(lib).digest()).rstrip(b"=").decode()
name = f"{dest}/llama_cpp_python-VERSION-py3-none-linux_x86_64.whl"
with zipfile.ZipFile(name, "w") as z:
    z.writestr("llama_cpp/lib/libllama.so", lib)
    z.writestr("llama_cpp_python-VERSION.dist-info/RECORD",
               f"llama_cpp/lib/libllama.so,sha256={digest},64\n")
EOF
fi
exit 0
"""


@pytest.fixture
def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A virtualenv whose python is the stand-in, a wheelhouse of the test's, and the log."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    python = venv / "bin" / "python"
    python.write_text(FAKE_PYTHON.replace("VERSION", VERSION))
    python.chmod(0o755)
    (tmp_path / "site").mkdir()
    monkeypatch.setenv("FAKE_LOG", str(tmp_path / "calls.log"))
    monkeypatch.setenv("FAKE_SITE", str(tmp_path / "site"))
    monkeypatch.setenv("REAL_PYTHON", sys.executable)
    monkeypatch.setenv("CALIBRANT_WHEELHOUSE", str(tmp_path / "wheelhouse"))
    monkeypatch.delenv("CMAKE_ARGS", raising=False)
    return tmp_path


def _calls(machine: Path) -> list[tuple[str, str]]:
    """(CMAKE_ARGS, arguments) of every call of the virtualenv's python so far."""
    log = machine / "calls.log"
    lines = log.read_text().splitlines() if log.exists() else []
    return [tuple(line.split("|", 1)) for line in lines]  # type: ignore[misc]


def _run(machine: Path, *args: str) -> int:
    return int(install.main([*args, "--venv", str(machine / "venv")]))


def test_the_first_install_builds_portably_and_the_next_reuses_the_wheel(machine: Path) -> None:
    assert _run(machine, "local,dev") == 0
    builds = [(flags, a) for flags, a in _calls(machine) if " wheel " in f" {a} "]
    assert len(builds) == 1
    flags, args = builds[0]
    assert flags == "-DGGML_NATIVE=OFF"
    assert f"llama-cpp-python=={VERSION}" in args and "--no-cache-dir" in args
    assert "--no-binary llama-cpp-python" in args  # pip's own cache is never used for it
    (slot,) = (machine / "wheelhouse").iterdir()
    record = json.loads((slot / "build.json").read_text())
    assert record["version"] == VERSION and record["cmake_args"] == "-DGGML_NATIVE=OFF"
    installs = [a for _, a in _calls(machine) if a.startswith("-m pip install")]
    assert installs[-1].endswith("-e .[local,dev] -e domains/refunds")  # and the refund pack
    assert f"--find-links {slot}" in installs[-1]
    assert "--only-binary llama-cpp-python" in installs[-1]  # pip may not build it itself

    before = len(_calls(machine))
    assert _run(machine, "local") == 0
    again = _calls(machine)[before:]
    assert not any(" wheel " in f" {a} " for _, a in again)  # reused, not built
    assert again[-1][1].endswith("-e .[local] -e domains/refunds")
    assert f"--find-links {slot}" in again[-1][1]


def test_a_wheel_whose_bytes_changed_is_built_again(machine: Path) -> None:
    assert _run(machine, "local") == 0
    (slot,) = (machine / "wheelhouse").iterdir()
    (wheel,) = slot.glob("*.whl")
    wheel.write_bytes(wheel.read_bytes()[:-10])  # truncated (a disk that filled up)
    assert _run(machine, "local") == 0
    assert sum(" wheel " in f" {a} " for _, a in _calls(machine)) == 2
    with zipfile.ZipFile(next(slot.glob("*.whl"))) as z:  # the new one is whole
        assert z.testzip() is None


@pytest.mark.parametrize(
    "flags",
    [
        "-DGGML_NATIVE=ON",
        "-DGGML_BLAS=ON",  # native is llama.cpp's default unless turned off
        "-DGGML_NATIVE=OFF -DCMAKE_C_FLAGS=-march=native",
        "-DGGML_NATIVE=OFF -DCMAKE_CXX_FLAGS='-O3 -mtune=native'",
    ],
)
def test_flags_that_build_for_this_cpu_are_refused_in_one_line(
    machine: Path, flags: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CMAKE_ARGS", flags)
    assert _run(machine, "local") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "this machine's own CPU" in err[0] and "-DGGML_NATIVE=OFF" in err[0]
    assert not (machine / "wheelhouse").exists()
    assert not any(a.startswith("-m pip") for _, a in _calls(machine))  # nothing installed


def test_other_flags_get_a_wheelhouse_folder_of_their_own(
    machine: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _run(machine, "local") == 0
    monkeypatch.setenv("CMAKE_ARGS", "-DGGML_NATIVE=OFF -DGGML_BLAS=ON")
    assert _run(machine, "local") == 0
    slots = sorted((machine / "wheelhouse").iterdir())
    assert len(slots) == 2
    flags = sorted(json.loads((s / "build.json").read_text())["cmake_args"] for s in slots)
    assert flags == ["-DGGML_NATIVE=OFF", "-DGGML_NATIVE=OFF -DGGML_BLAS=ON"]


def test_a_virtualenv_holding_another_build_gets_the_wheelhouse_one(machine: Path) -> None:
    """An earlier install left its own build of the same version (a native one, say): pip would
    call it satisfied, so the script replaces it."""
    info = machine / "site" / f"llama_cpp_python-{VERSION}.dist-info"
    info.mkdir()
    (info / "RECORD").write_text("llama_cpp/lib/libllama.so,sha256=somethingelse,64\n")
    assert _run(machine, "local") == 0
    forced = [a for _, a in _calls(machine) if "--force-reinstall" in a]
    assert len(forced) == 1 and forced[0].endswith(".whl")


def test_without_the_local_extra_nothing_is_built(machine: Path) -> None:
    assert _run(machine, "dev") == 0
    assert not (machine / "wheelhouse").exists()
    assert [a for _, a in _calls(machine)] == ["-m pip install -e .[dev] -e domains/refunds"]


def test_the_version_is_the_one_pyproject_pins(tmp_path: Path) -> None:
    assert VERSION == "0.3.36"  # bump with pyproject.toml's `local` extra
    other = tmp_path / "pyproject.toml"
    other.write_text('[project]\nname = "x"\n[project.optional-dependencies]\nlocal = []\n')
    with pytest.raises(install.Refused, match="pins no llama-cpp-python"):
        install.pinned_version(other)


def test_a_failed_build_leaves_nothing_that_looks_kept(
    machine: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """pip's build failing (a compiler error, a kill) leaves no wheel folder that a later
    install would take, and says which command failed."""
    python = machine / "venv" / "bin" / "python"
    failing = 'echo "$CMAKE_ARGS|$*" >> "$FAKE_LOG"\nif [ "$3" = "wheel" ]; then exit 1; fi\n'
    python.write_text(python.read_text().replace('echo "$CMAKE_ARGS|$*" >> "$FAKE_LOG"\n', failing))
    assert _run(machine, "local") == 1
    assert "install failed:" in capsys.readouterr().err
    assert list((machine / "wheelhouse").iterdir()) == []  # not even the scratch folder
