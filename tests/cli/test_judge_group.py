"""The judge option group is defined once (`cli/judge_group.py`): every judging command offers
it through `@judge_group`, its options in one order, and receives what was given as one
`JudgeOptions`."""

from __future__ import annotations

import re
from typing import Any

import typer
from typer.testing import CliRunner

from calibrant.cli.app import app
from calibrant.cli.judge_group import ALL, JUDGE_GROUP, judge_group
from calibrant.judge.config import JudgeOptions
from tests.conftest import ROOT

CLI = ROOT / "src" / "calibrant" / "cli"
FLAGS = {
    "model": "--model",
    "api_base": "--api-base",
    "rubric": "--rubric",
    "domain": "--domain",
    "judge_name": "--judge",
    "concurrency": "--concurrency",
    "timeout": "--timeout",
    "max_attempts": "--max-attempts",
}
COMMANDS = {
    ("score",): ALL,
    ("calibrate",): ALL,
    ("probe",): ALL,
    ("judge",): ALL,
    ("stability",): ("model", "api_base", "rubric", "domain", "judge_name", "concurrency"),
    ("batch", "submit"): ("model", "api_base", "rubric", "judge_name"),
    ("batch", "export"): ("model", "api_base", "rubric", "judge_name"),
    ("batch", "ingest"): ("model", "api_base", "rubric", "judge_name"),
}


def test_no_command_module_declares_the_group_options_itself() -> None:
    spelled = re.compile(r"^\s+(model: ModelOpt|api_base: ApiBaseOpt|max_attempts: AttemptsOpt)")
    found = [
        f"{path.name}:{n}"
        for path in sorted(CLI.glob("*.py"))
        if path.name not in ("app.py", "judge_group.py")
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if spelled.match(line)
    ]
    assert found == []


def test_each_judging_command_shows_the_group_in_its_order() -> None:
    root = typer.main.get_command(app)
    for path, names in COMMANDS.items():
        command: Any = root
        for part in path:
            command = command.commands[part]
        shown = [o for p in command.params for o in p.opts if o in FLAGS.values()]
        assert shown == [FLAGS[n] for n in names], path


def test_the_command_receives_what_was_given_as_one_judge_options() -> None:
    seen: list[JudgeOptions] = []
    demo = typer.Typer()

    @demo.command()
    @judge_group("model", "rubric", "concurrency")
    def run(
        first: str, judge: JudgeOptions = JUDGE_GROUP, last: int = typer.Option(0, "--last")
    ) -> None:
        seen.append(judge)
        typer.echo(f"{first} {last}")

    r = CliRunner().invoke(demo, ["x", "--model", "openai/m", "--concurrency", "3", "--last", "7"])
    assert r.exit_code == 0, r.output
    assert r.output == "x 7\n"
    assert seen == [JudgeOptions(model="openai/m", concurrency=3)]
    shown = CliRunner().invoke(demo, ["--help"], env={"COLUMNS": "120"}).output
    assert "--api-base" not in shown
    assert shown.index("--model") < shown.index("--rubric") < shown.index("--concurrency")
