"""Faces that only face (issue 34): a module is one idea, so no module of src/calibrant is over
400 lines. The cut is not finished: the table below is every module still over 400 lines, with
its length (its lines, docstring and comments included). It only shrinks: a module not in it
going over 400, or one in it growing, fails (split it where its ideas part: its loading from
its prompting, one rule a module, and re-export what others import); one that got shorter fails
too, until its length here is lowered (or it leaves the table at 400 lines or fewer), so the
table stays the true size of what is left."""

from __future__ import annotations

from pathlib import Path

CORE = Path(__file__).resolve().parents[1] / "src" / "calibrant"
MOST = 400

STILL_LONG: dict[str, int] = {}


def _lengths() -> dict[str, int]:
    out: dict[str, int] = {}
    for path in sorted(CORE.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        n = len(path.read_text(encoding="utf-8").splitlines())
        if n > MOST:
            out[path.relative_to(CORE).as_posix()] = n
    return out


def test_no_module_grows_past_400_lines() -> None:
    grown = {
        name: (STILL_LONG.get(name, MOST), n)
        for name, n in _lengths().items()
        if n > STILL_LONG.get(name, MOST)
    }
    assert grown == {}, (
        "these modules are longer than before (was at most, now): a module is one idea; split "
        "it along its seams and keep its import path working"
    )


def test_the_table_of_long_modules_is_true() -> None:
    now = _lengths()
    shrunk = {
        name: (was, now.get(name, 0)) for name, was in STILL_LONG.items() if now.get(name, 0) < was
    }
    assert shrunk == {}, "shorter than the table says (was, now; 0: 400 lines or fewer): lower it"
