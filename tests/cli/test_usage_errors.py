"""Usage errors (a typo'd option, a missing argument, an out-of-range number, an unknown
command) print exactly one line on stderr, no traceback, and exit 2 — like bad input."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.conftest import Result

EXAMPLES = "examples/transcripts"


def _one_line(r: Result) -> str:
    assert r.code == 2, (r.code, r.err)
    lines = [ln for ln in r.err.splitlines() if ln.strip()]
    assert len(lines) == 1, r.err
    assert "Traceback" not in r.err and "internal error" not in r.err
    assert r.out == ""
    return lines[0]


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        # a typo'd flag: named, with the likely intended spelling
        (
            ("check", EXAMPLES, "--fail-on-violatoin"),
            ("--fail-on-violatoin", "--fail-on-violation"),
        ),
        (("check",), ("Missing argument",)),
        (("schema",), ("Missing argument",)),
        (("frobnicate",), ("frobnicate",)),
        (
            ("trials", "cases", "--agent", "scripted:correct", "--out", "x", "-k", "0"),
            ("-k", "greater than or equal to 1"),
        ),
        (("trials", "cases", "--agent", "scripted:correct", "--out", "x", "-k", "two"), ("-k",)),
        (("agree", "gold/labels", "--resamples", "5"), ("--resamples", "100")),
        (("calibrate", "--resamples", "5"), ("--resamples",)),
        (("calibrate", "--concurrency", "0"), ("--concurrency",)),
        (("check", EXAMPLES, "--json", "extra-value", "--case"), ("--case",)),
        (("rubric", "guid", "rubrics/refund_communication.yaml"), ("guid",)),
    ],
)
def test_usage_error_is_one_line_exit_2(
    cli: Callable[..., Result], args: tuple[str, ...], needles: tuple[str, ...]
) -> None:
    line = _one_line(cli(*args))
    assert line.startswith("calibrant"), line
    for needle in needles:
        assert needle in line, line


def test_usage_error_points_at_help(cli: Callable[..., Result]) -> None:
    line = _one_line(cli("check", EXAMPLES, "--fail-on-violatoin"))
    assert "calibrant check --help" in line


def test_help_still_works_and_exits_0(cli: Callable[..., Result]) -> None:
    r = cli("check", "--help")
    assert r.code == 0 and "--fail-on-violation" in r.out
    r = cli("--help")
    assert r.code == 0 and "calibrate" in r.out


@pytest.mark.parametrize(("args", "needle"), [((), "calibrate"), (("rubric",), "guide")])
def test_no_arguments_prints_help_not_an_error(
    cli: Callable[..., Result], args: tuple[str, ...], needle: str
) -> None:
    r = cli(*args)
    assert (r.code, r.err) == (0, "")
    assert needle in r.out and "Usage: calibrant" in r.out
