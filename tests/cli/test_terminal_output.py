"""What a person sees at an 80-column terminal: `calibrate`, `score` and `check` print at most 40
lines by default (the verdict first, warnings, where the report is, the run id, `Next:` lines
that fit), every line within 80 columns, and each `Next:` command one calibrant parses; a run
with every judge call failed prints no gate and writes no report, one line with the cause.

The progress lines a log gets (a terminal shows a bar that disappears instead) are not counted:
they are the `n/total ... ·` lines on stderr."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import ROOT, Result
from tests.support.fake_openai import answer_from_schema, fake_openai
from tests.support.gold import small_gold

COLS80 = {"COLUMNS": "80"}
EXAMPLES = ROOT / "examples" / "transcripts"
RUBRIC = ROOT / "rubrics" / "refund_communication.yaml"
PROGRESS = re.compile(r"^\d+/(\d+|\?) .* · \d+")


def seen(r: Result) -> list[str]:
    """The lines a person reads: stdout, then stderr without the progress lines."""
    err = [ln for ln in r.err.splitlines() if not PROGRESS.match(ln)]
    return [*r.out.splitlines(), *err]


def assert_respects_a_person(r: Result, *, most: int = 40) -> str:
    """At most `most` lines, none wider than 80 columns, no cell cut; the run id and `Next:`
    lines, each `Next:` a command that parses (or a path to open that exists); returns the run
    id."""
    lines = seen(r)
    assert len(lines) <= most, "\n".join(lines)
    wide = [ln for ln in lines if len(ln.rstrip()) > 80]
    assert not wide, wide
    assert "…" not in "\n".join(lines)
    [run] = [ln.split()[1] for ln in lines if ln.startswith("Run: ")]
    assert re.fullmatch(r"[0-9a-f]{32}", run), run
    nexts = [ln for ln in lines if ln.startswith("Next: ")]
    assert nexts, lines
    for line in nexts:
        parses_as_a_command(line)
    return run


def parses_as_a_command(line: str) -> None:
    """A `Next:` line's command: `calibrant ...` parsed by calibrant's own command line (every
    option known, every value of its type), or `python -m webbrowser PATH` of a file there."""
    import typer

    from calibrant.cli import app

    words = shlex.split(line.removeprefix("Next: "), comments=True)
    if words[:3] == ["python", "-m", "webbrowser"]:
        assert len(words) == 4, line
        return
    assert words[0] == "calibrant", line
    command, path, args = typer.main.get_command(app), ["calibrant"], list(words[1:])
    while hasattr(command, "commands"):  # the groups: `calibrant`, `runs`, `judges`...
        assert args and args[0] in command.commands, line  # a command of this group
        path.append(args[0])
        command, args = command.commands[args[0]], args[1:]
    command.make_context(" ".join(path), args)  # parsed as typed: options, types, arguments


def _judge(server_url: str, model: str = "openai/judge") -> tuple[str, ...]:
    return ("--rubric", str(RUBRIC), "--model", model, "--api-base", server_url)


def _env(tmp_path: Path) -> dict[str, str]:
    return {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 'store.db'}", **COLS80}


# --- the command lines themselves -------------------------------------------------------------


def test_a_next_line_that_names_no_command_or_a_bad_option_does_not_parse() -> None:
    parses_as_a_command("Next: calibrant runs show abc123  # this run, later")
    parses_as_a_command("Next: calibrant score T --calibration abc  # same judge")
    for bad in (
        "Next: calibrant runs shows abc",
        "Next: calibrant score T --calibrate abc",
        "Next: calibrant audit abc --rate x",
    ):
        with pytest.raises(Exception):  # noqa: B017 (click's usage errors, whichever kind)
            parses_as_a_command(bad)


# --- calibrate, score, check by default ---------------------------------------------------------


def test_score_prints_its_inputs_once_and_ends_with_its_run_and_next(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    with fake_openai(answer_from_schema(lambda c, labels: labels[0])) as server:
        r = cli("score", str(EXAMPLES), *_judge(server.url), env=_env(tmp_path))
    assert r.code == 0, r.err
    run = assert_respects_a_person(r)
    assert sum("input file" in ln for ln in seen(r)) == 1  # said once
    out = r.out.rstrip().splitlines()
    assert out[-3] == f"Run: {run}"
    assert out[-2].startswith(f"Next: calibrant audit {run[:12]} --queue NAME")
    assert out[-1].startswith(f"Next: calibrant runs show {run[:12]}")
    # the table: one line a criterion, nothing wrapped across lines
    rows = [ln for ln in out if re.match(r"^[a-z_]+ +(\d+%|by label|undefined)", ln)]
    assert len(rows) == 5, out


def test_check_lists_only_transcripts_with_a_finding(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    r = cli("check", str(EXAMPLES), env=_env(tmp_path))
    assert r.code == 0, r.err
    run = assert_respects_a_person(r)
    doc = json.loads(cli("check", str(EXAMPLES), "--json", env=_env(tmp_path)).out)
    for v in doc["verdicts"]:
        found = any(x["outcome"] in ("violated", "harness_error") for x in v["results"])
        listed = [ln for ln in r.out.splitlines() if ln.startswith(v["transcript_id"] + ":")]
        assert len(listed) == (1 if found else 0), (v["transcript_id"], listed)
    assert "8 transcript(s): 5 with violations, 1 with harness errors only, 2 clean" in r.out
    shown = cli("runs", "show", run, "--json", env=_env(tmp_path))
    assert json.loads(shown.out)["kind"] == "check"
    # --verbose: every transcript, the clean ones too, with the evidence
    verbose = cli("check", str(EXAMPLES), "--verbose", env=_env(tmp_path))
    assert "selftest:good-eligible" in verbose.out and "ref_" in verbose.out
    assert "selftest:good-eligible" not in r.out and "ref_" not in r.out


def test_calibrate_brief_on_the_shipped_rubric(cli: Callable[..., Result], tmp_path: Path) -> None:
    """The shipped rubric on a small copy of the shipped gold set (the whole set, and a rerun
    the store serves: the slow test below)."""
    gold = small_gold(tmp_path / "gold", n=4)
    with fake_openai(answer_from_schema(lambda c, labels: labels[0])) as server:
        r = cli(
            "calibrate", "--gold", str(gold), "--split", "all", "--resamples", "100",
            *_judge(server.url), cwd=tmp_path, env=_env(tmp_path),
        )  # fmt: skip
    assert r.code == 0, r.err
    run = assert_respects_a_person(r)
    assert (tmp_path / "reports" / run / "report.html").exists()
    assert seen(r)[0].startswith("Judge release gate: ")
    assert "0 answer(s) from the store (cached), 4 model call(s)" in " ".join(r.out.split())


# --- nothing measured is not a verdict ----------------------------------------------------------


def test_calibrate_with_every_call_failed_prints_no_gate_and_writes_no_report(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    gold = small_gold(tmp_path / "gold", n=2)
    with fake_openai(answer_from_schema(lambda c, labels: labels[0])) as server:
        r = cli(
            "calibrate", "--gold", str(gold), "--split", "all", "--resamples", "200",
            "--max-attempts", "1", *_judge(server.url, "openai/always-500"),
            cwd=tmp_path, env=_env(tmp_path),
        )  # fmt: skip
    assert r.code == 3, r.err
    assert r.out == ""
    assert [ln for ln in seen(r) if ln.strip()] == [
        "calibrant: no gold item got a verdict from the judge (2 items: provider_error 2); "
        "nothing was measured, so no gate and no report; first error: "
        + r.err.split("first error: ", 1)[1].rstrip("\n")
    ]
    assert "boom" in r.err  # the first call's error, the cause
    assert "Judge release gate" not in r.err
    assert not (tmp_path / "reports").exists()


def test_score_with_every_call_failed_prints_no_pass_rate(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    one = EXAMPLES / "good-eligible.json"
    with fake_openai(answer_from_schema(lambda c, labels: labels[0])) as server:
        r = cli(
            "score", str(one), "--max-attempts", "1", *_judge(server.url, "openai/always-500"),
            env=_env(tmp_path),
        )  # fmt: skip
    assert r.code == 3, r.err
    assert r.out == ""
    [line] = [ln for ln in seen(r) if ln.startswith("calibrant: ")]
    assert "no transcript got a verdict" in line and "boom" in line
    assert "pass rate" not in r.err and "Run: " not in r.err


# --- progress: a run the store serves never says it loads a model -----------------------------


def test_a_run_served_by_the_store_never_says_loading(capsys: pytest.CaptureFixture[str]) -> None:
    from calibrant.cli.progress import track

    with track("items", total=3, loading="loading the embedded model") as t:
        for _ in range(3):
            t.advance(cached=True)
    err = capsys.readouterr().err
    assert "loading" not in err and "3 cached" in err


def test_a_wait_for_the_first_answer_says_loading(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    from calibrant.cli import progress

    monkeypatch.setattr(progress, "STALL_S", 0.05)
    with progress.track("items", total=2, loading="loading the embedded model") as t:
        t.advance(cached=True)
        time.sleep(0.5)  # the model is loading: nothing finishes
        t.advance()
    assert capsys.readouterr().err.count("items: loading the embedded model") == 1


# --- the whole shipped gold set ---------------------------------------------------------------


@pytest.mark.slow
def test_calibrate_and_score_on_the_whole_shipped_gold_set(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    """The issue's walk: calibrate on the shipped gold set's calibration split (156 items),
    then score its 300 transcripts with that calibration, at 80 columns."""
    env = _env(tmp_path)
    with fake_openai(answer_from_schema(lambda c, labels: labels[0])) as server:
        judge = ("--model", "openai/judge", "--api-base", server.url)
        cal = cli("calibrate", *judge, "--resamples", "200", cwd=tmp_path, env=env)
        assert cal.code == 0, cal.err
        run = assert_respects_a_person(cal)
        assert (tmp_path / "reports" / run / "report.json").exists()
        scored = cli(
            "score", str(ROOT / "gold" / "transcripts"), *judge, "--calibration", "latest",
            cwd=tmp_path, env=env,
        )  # fmt: skip
        assert scored.code == 0, scored.err
        assert_respects_a_person(scored)
        assert sum("input file" in ln for ln in seen(scored)) == 1
        again = cli("calibrate", *judge, "--resamples", "200", cwd=tmp_path, env=env)
    assert again.code == 0, again.err
    assert_respects_a_person(again)  # served by the store, and it says so
    assert "every answer from the store (cached), no model call" in " ".join(again.out.split())
    assert "loading" not in again.err and "156 cached" in again.err


def test_check_of_the_whole_shipped_gold_set_lists_ten_and_counts_the_rest(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    r = cli("check", str(ROOT / "gold" / "transcripts"), env=_env(tmp_path))
    assert r.code == 0, r.err
    assert_respects_a_person(r)
    # gold v4: 492 transcripts, 120 with a violation (gold/safety/verdicts.json says which)
    stored = json.loads((ROOT / "gold" / "safety" / "verdicts.json").read_text())
    violated = sum(any(o == "violated" for o in v.values()) for v in stored.values())
    assert (len(stored), violated) == (492, 120)
    assert f"and {violated - 10} more with a finding (--verbose lists each)" in r.out
    assert f"{len(stored)} transcript(s): {violated} with violations" in r.out
