"""A first run that guides: `calibrate` leaves a report folder and says what to run next, with
the gate, the warnings and the report's path on top; every table is readable at 80 columns
(wrapped, never cut); `check` ends with counts per invariant; every kind of run is listed and
shown in words; `--version`; flags shown as flags."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from calibrant import __version__
from calibrant.reports.folder import calibration_next_lines
from tests.conftest import ROOT, Result
from tests.support.fake_openai import answer_from_schema, fake_openai
from tests.support.gold import small_gold

COLS80 = {"COLUMNS": "80"}
EXAMPLES = ROOT / "examples" / "transcripts"
RUBRIC = ROOT / "rubrics" / "refund_communication.yaml"
CRITERIA = [c["id"] for c in yaml.safe_load(RUBRIC.read_text())["criteria"]]


def _width_ok(text: str, width: int = 80) -> None:
    """Nothing wider than the terminal, nothing cut with an ellipsis."""
    too_wide = [ln for ln in text.splitlines() if len(ln.rstrip()) > width]
    assert not too_wide, too_wide
    assert "…" not in text, text


def _calibrate(cli: Callable[..., Result], tmp_path: Path, *args: str) -> tuple[Result, int]:
    """calibrate on a small gold copy against a local endpoint, from `tmp_path` as the current
    folder, at 80 columns; returns the result and how many requests the endpoint got."""
    gold = small_gold(tmp_path / "gold", n=4)
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 'store.db'}", **COLS80}
    with fake_openai(answer_from_schema(lambda c, labels: labels[0])) as server:
        r = cli(
            "calibrate",
            "--gold",
            str(gold),
            "--split",
            "all",
            "--rubric",
            str(RUBRIC),
            "--model",
            "openai/judge",
            "--api-base",
            server.url,
            "--resamples",
            "200",
            *args,
            cwd=tmp_path,
            env=env,
        )
        return r, sum(server.requests.values())


# --- calibrate: the report folder, the top, the "Next:" lines ----------------------------------


@pytest.fixture(scope="module")
def first_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Result, Path]:
    """One `calibrate` from an empty folder, with no output option: (result, that folder)."""
    from tests.conftest import run_cli

    where = tmp_path_factory.mktemp("first-run")
    r, calls = _calibrate(run_cli, where)
    assert r.code == 0 and calls == 4, r.err
    return r, where


def test_calibrate_writes_its_report_folder_and_says_what_next(
    first_run: tuple[Result, Path],
) -> None:
    r, tmp_path = first_run
    [folder] = (tmp_path / "reports").iterdir()  # reports/<run-id>/ in the current folder
    assert sorted(p.name for p in folder.iterdir()) == ["report.html", "report.json", "report.md"]
    report = json.loads((folder / "report.json").read_text())
    assert report["run_id"] == folder.name
    assert (folder / "report.html").read_text().lstrip().lower().startswith("<!doctype html")
    assert (folder / "report.md").read_text().startswith("#")

    lines = r.out.splitlines()
    # the verdict first, then the figures and reasons, where the report is, the run, next
    assert lines[0].startswith(f"Judge release gate: {report['gate']['judge']}")
    text = " ".join(r.out.split())
    for c in report["criteria"]:  # each criterion's gate in the table
        row = next(ln for ln in lines if ln.startswith(c["criterion"] + " "))
        assert row.split()[-1] == c["gate"]["status"], row
    assert f"Report: reports/{folder.name}/report.html" in text
    assert text.index("Report:") < text.index(f"Run: {folder.name}") < text.index("Next:")
    # the detail is in the report, not here (--verbose prints it)
    assert "Calibration pairs" not in r.out and "Safety invariants" not in r.out
    # it ends with what to run next: open the report, score with this calibration, compare
    first = next(n for n, ln in enumerate(lines) if ln.startswith("Next:"))
    expected = calibration_next_lines(report, Path("reports") / folder.name)
    assert lines[first:] == expected  # nothing after them, each on one line
    last = " ".join(lines[first:])
    assert f"python -m webbrowser reports/{folder.name}/report.html" in last
    assert f"calibrant score TRANSCRIPTS --calibration {folder.name[:12]}" in last
    assert "calibrant compare JUDGE_A JUDGE_B" in last
    assert f"calibrant runs show {folder.name[:12]}" in last
    # 80 columns: every criterion name whole, nothing cut
    _width_ok(r.out)
    for name in CRITERIA:
        assert re.search(rf"(?<![\w]){name}(?![\w])", r.out), name


def test_calibrate_verbose_prints_the_detail(cli: Callable[..., Result], tmp_path: Path) -> None:
    r, _ = _calibrate(cli, tmp_path, "--verbose")
    assert r.code == 0, r.err
    [folder] = (tmp_path / "reports").iterdir()
    head = " ".join(" ".join(r.out.splitlines()[:8]).split())
    assert head.startswith("Judge release gate:")
    assert f"Report: reports/{folder.name}/report.html" in head
    assert head.index("Report:") < head.index("Calibration report")
    assert "Calibration pairs" in r.out or "Safety invariants" in r.out
    assert r.out.rstrip().splitlines()[-1].startswith("Next: calibrant runs show")
    _width_ok(r.out)


def test_the_weak_judge_warning_is_on_top(first_run: tuple[Result, Path]) -> None:
    """The embedded judge's warning (here added to a real report) comes before any detail."""
    from rich.console import Console

    from calibrant.calibration.explain import EMBEDDED_JUDGE_WARNING
    from calibrant.reports.calibration import render_calibration

    [folder] = (first_run[1] / "reports").iterdir()
    report = json.loads((folder / "report.json").read_text())
    report["warnings"] = [EMBEDDED_JUDGE_WARNING.format(model="calibrant-local/smollm2-135m")]
    console = Console(width=80, record=True, color_system=None)
    render_calibration(console, report, folder=str(folder))
    text = console.export_text()
    lines = text.splitlines()
    assert lines[0].startswith("Judge release gate:")
    top = " ".join(" ".join(lines[:16]).split())
    assert "Warning: The embedded judge is weak" in top
    assert top.index("Warning:") < top.index("Report:") < top.index("Calibration report")
    assert text.count("The embedded judge is weak") == 1  # said once, on top
    _width_ok(text)


def test_calibrate_out_chooses_the_folder_and_json_stays_json(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    out = tmp_path / "ci" / "calibration"
    r, _ = _calibrate(cli, tmp_path, "--out", str(out), "--json")
    assert r.code == 0, r.err
    doc = json.loads(r.out)  # stdout is the report, nothing else
    assert json.loads((out / "report.json").read_text()) == doc
    assert (out / "report.html").exists() and (out / "report.md").exists()
    assert not (tmp_path / "reports").exists()
    err = " ".join(r.err.split())
    assert f"wrote {out}" in err
    # the next steps go to stderr under --json
    assert f"Next: python -m webbrowser {out}/report.html" in err


def test_calibrate_out_at_a_file_fails_before_any_model_call(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    taken = tmp_path / "taken"
    taken.write_text("mine")
    r, calls = _calibrate(cli, tmp_path, "--out", str(taken))
    assert r.code == 2 and calls == 0, r.err
    [line] = [ln for ln in r.err.splitlines() if ln.strip()]
    assert "--out" in line and str(taken) in line and "is a file" in line
    assert taken.read_text() == "mine"


# --- check: whole names at 80 columns, counts per invariant at the end ------------------------


def test_check_at_80_columns_ends_with_counts_per_invariant(cli: Callable[..., Result]) -> None:
    r = cli("check", str(EXAMPLES), env=COLS80)
    assert r.code == 0, r.err
    summary = json.loads(cli("check", str(EXAMPLES), "--json").out)["summary"]
    _width_ok(r.out)
    tail = r.out[r.out.index("Per invariant") :]
    for name, counts in summary.items():
        row = next(ln for ln in tail.splitlines() if re.search(rf"\b{name}\b", ln))
        figures = [int(x) for x in re.findall(r"\b\d+\b", row)]
        expected = [counts.get(k, 0) for k in ("pass", "violated", "harness_error")]
        assert figures == [*expected, counts.get("not_applicable", 0)], (name, row)
    lines = r.out.rstrip().splitlines()
    summary_at = next(n for n, ln in enumerate(lines) if ln.startswith("8 transcript(s)"))
    assert lines[summary_at + 1].startswith("Run: ")  # then the run and what next
    assert all(ln.startswith("Next: ") for ln in lines[summary_at + 2 :])


def test_long_invariant_names_stay_whole_at_80_columns() -> None:
    from rich.console import Console

    from calibrant.contracts import InvariantResult, SafetyVerdict
    from calibrant.reports.safety import render_safety

    long = [
        "refund_confirmation_matches_the_ledger_after_every_retry",
        "no_duplicate_accepted_notification_across_tenants",
    ]
    verdict = SafetyVerdict(
        transcript_id="t-1",
        case_id="a_case_with_a_rather_long_identifier_indeed",
        trial=1,
        checker_version="test",
        results=[
            InvariantResult(
                invariant=name,
                outcome="violated",
                message="insufficient_evidence_of_reconciliation for order_017 of tenant_b",
                evidence=["call_001_lookup_order_with_a_long_id", "ref_0006"],
            )
            for name in long
        ],
    )
    for width in (80, 60):
        console = Console(width=width, record=True, color_system=None)
        render_safety(console, [verdict], verbose=True)
        text = console.export_text()
        _width_ok(text, width)
        for word in [*long, "insufficient_evidence_of_reconciliation", "ref_0006"]:
            assert word in text, (width, word, text)


# --- every kind of run listed, and shown in words ---------------------------------------------


def test_check_and_trials_runs_are_listed_and_shown_in_words(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 'store.db'}", **COLS80}
    assert cli("check", str(EXAMPLES), env=env).code == 0
    case = ROOT / "cases" / "eligible_damaged_order.yaml"
    trials = cli(
        "trials", str(case), "--agent", "scripted:correct", "-k", "1", "--out",
        str(tmp_path / "t"), env=env,
    )  # fmt: skip
    assert trials.code == 0, trials.err
    _width_ok(trials.out)
    assert "eligible_damaged_order" in trials.out

    listed = cli("runs", "list", env=env)
    assert listed.code == 0, listed.err
    _width_ok(listed.out)
    runs = json.loads(cli("runs", "list", "--json", env=env).out)
    assert [x["kind"] for x in runs] == ["trials", "check"]
    for x in runs:
        assert x["id"][:12] in listed.out and re.search(rf"\b{x['kind']}\b", listed.out)

    check_run = runs[1]["id"]
    shown = cli("runs", "show", check_run[:10], env=env)
    assert shown.code == 0, shown.err
    assert not shown.out.lstrip().startswith("{") and '": ' not in shown.out  # not raw JSON
    text = " ".join(shown.out.split())
    assert f"run {check_run} (check, finished)" in text
    assert "transcripts: 8" in text and "violated_transcripts: 5" in text
    assert "no_duplicate_payment:" in text  # counts per invariant, in words
    assert f"calibrant runs show {check_run} --json" in text
    assert json.loads(cli("runs", "show", check_run, "--json", env=env).out)["kind"] == "check"

    trials_run = runs[0]["id"]
    shown = " ".join(cli("runs", "show", trials_run, env=env).out.split())
    assert "(trials, finished)" in shown and "agent: scripted:correct" in shown


def test_runs_list_shows_every_kind_whole_at_80_columns(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    from calibrant.store import make_engine
    from calibrant.store.runs import RUN_KINDS, Runs

    url = f"sqlite:///{tmp_path / 'store.db'}"
    runs = Runs(make_engine(url))
    for kind in RUN_KINDS:
        runs.finish(runs.start(kind, arguments={"who": "test"}, process=False), {"kind": kind})
    r = cli("runs", "list", env={"CALIBRANT_DATABASE_URL": url, **COLS80})
    assert r.code == 0, r.err
    _width_ok(r.out)
    for kind in RUN_KINDS:
        assert re.search(rf"(?<![\w-]){re.escape(kind)}(?![\w-])", r.out), kind
    helped = " ".join(cli("runs", "list", "--help", env=COLS80).out.split())
    assert all(kind in helped for kind in RUN_KINDS)


def test_judges_list_names_whole_at_80_columns(cli: Callable[..., Result]) -> None:
    r = cli("judges", "list", env=COLS80)
    assert r.code == 0, r.err
    _width_ok(r.out)
    for path in sorted((ROOT / "judges").glob("*.yaml")):
        assert re.search(rf"(?<![\w-]){re.escape(path.stem)}(?![\w-])", r.out), path.stem


def test_score_and_judge_tables_keep_names_whole_at_80_columns(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    """The score summary and the judge report print every criterion whole at 80 columns
    (before, their tables cut the criteria: `refund_conf…`)."""
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 'store.db'}", **COLS80}
    with fake_openai(answer_from_schema(lambda c, labels: labels[-1])) as server:
        judge = ("--rubric", str(RUBRIC), "--model", "openai/judge", "--api-base", server.url)
        for command in ("score", "judge"):
            r = cli(command, str(EXAMPLES), *judge, env=env)
            assert r.code == 0, (command, r.err)
            _width_ok(r.out)
            for criterion in CRITERIA:
                assert re.search(rf"(?<![\w-]){criterion}(?![\w-])", r.out), (command, criterion)


# --- --version, flags shown as flags ----------------------------------------------------------


def test_version(cli: Callable[..., Result]) -> None:
    r = cli("--version")
    assert r.code == 0 and r.out.strip() == f"calibrant {__version__}", (r.out, r.err)
    assert "--version" in cli("--help").out


def _commands() -> list[tuple[list[str], object]]:
    import typer

    from calibrant.cli import app

    def walk(cmd: object, path: list[str]) -> list[tuple[list[str], object]]:
        subs = getattr(cmd, "commands", {})
        return [(path, cmd)] + [x for n, s in sorted(subs.items()) for x in walk(s, [*path, n])]

    return walk(typer.main.get_command(app), [])


def test_every_boolean_option_is_a_flag_and_shown_as_one(cli: Callable[..., Result]) -> None:
    from typer.testing import CliRunner

    from calibrant.cli import app

    commands = _commands()
    assert len(commands) > 30
    for path, cmd in commands:
        for p in getattr(cmd, "params", []):
            kind = getattr(getattr(p, "type", None), "name", "")
            if kind in ("boolean", "bool") and getattr(p, "param_type_name", "") == "option":
                assert p.is_flag, (path, p.name)  # type: ignore[attr-defined]
        shown = CliRunner().invoke(app, [*path, "--help"], env=COLS80, prog_name="calibrant")
        assert shown.exit_code == 0, (path, shown.output)
        assert "<bool>" not in shown.output and "BOOLEAN" not in shown.output, path
    # the real command line too, as a user types it
    helped = cli("calibrate", "--help", env=COLS80).out
    assert re.search(r"--json\s+Print the report", helped), helped
    assert re.search(r"--out\s+<path>", helped) or re.search(r"--out\s+PATH", helped), helped
    assert "<bool>" not in helped


def test_help_names_the_report_folder(cli: Callable[..., Result]) -> None:
    assert "reports/RUN_ID/" in cli("calibrate", "--help", env=COLS80).out


def test_the_brief_with_the_weak_judge_warning_fits_40_lines(
    first_run: tuple[Result, Path],
) -> None:
    """The first run's own case (the embedded judge's warning, the robustness the gate may
    require): gate, warning, criteria, reasons, report, run and Next: in at most 40 lines."""
    from rich.console import Console

    from calibrant.calibration.explain import EMBEDDED_JUDGE_WARNING
    from calibrant.reports.calibration import render_calibration_brief

    [folder] = (first_run[1] / "reports").iterdir()
    report = json.loads((folder / "report.json").read_text())
    report["warnings"] = [EMBEDDED_JUDGE_WARNING.format(model="calibrant-local/smollm2-135m")]
    report["robustness"]["required"] = True
    console = Console(width=80, record=True, color_system=None)
    render_calibration_brief(console, report, folder=f"reports/{folder.name}")
    lines = console.export_text().splitlines()
    lines += ["Run: " + folder.name, *calibration_next_lines(report, Path("reports") / folder.name)]
    assert len(lines) <= 40, "\n".join(lines)
    _width_ok("\n".join(lines))
    assert lines[0].startswith("Judge release gate:") and lines[1].startswith("Warning: ")
    assert any(ln.startswith("Judge robustness:") for ln in lines)
