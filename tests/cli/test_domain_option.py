"""`--domain NAME` on the commands that default a rubric or a gold set (`judge`, `calibrate`,
`score`, `judges fit-prior`): the installed pack of that domain gives the defaults, from any
folder; a domain no installed pack provides is one line, exit 2, before anything is read."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from calibrant import domains
from calibrant.judge.config import JudgeOptions, resolve_judge
from tests.conftest import ROOT
from tests.support.cli import Result

TRAVEL_SRC = ROOT / "domains" / "travel" / "src"
TRAVEL_GOLD = TRAVEL_SRC / "calibrant_travel" / "data" / "gold"


@pytest.fixture(scope="module")
def travel_installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The travel pack as pip leaves it: its code importable and a dist-info declaring its
    `calibrant.domains` entry point (removed afterwards, so later tests see only their packs)."""
    site = tmp_path_factory.mktemp("site")
    info = site / "calibrant_travel_cli-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: calibrant-travel-cli\nVersion: 0.1\n"
    )
    (info / "entry_points.txt").write_text("[calibrant.domains]\ntravel = calibrant_travel:pack\n")
    added = [str(p) for p in (site, TRAVEL_SRC) if str(p) not in sys.path]
    sys.path.extend(added)
    domains.refresh()
    try:
        yield site
    finally:
        for p in added:
            sys.path.remove(p)
        domains.refresh()


@pytest.mark.parametrize(
    "command",
    [
        ("judge", "t.json"),
        ("calibrate",),
        ("score", "t.json"),
        ("judges", "fit-prior", "--out", "x"),
    ],
)
def test_an_unknown_domain_is_one_line_and_exit_2(
    cli: Callable[..., Result], tmp_path: Path, command: tuple[str, ...]
) -> None:
    r = cli(*command, "--domain", "nosuch", cwd=tmp_path)
    assert r.code == 2, r.err
    assert r.out == ""
    [line] = r.err.splitlines()
    assert line.startswith("calibrant: error: --domain nosuch: no domain pack named 'nosuch'")
    assert "installed: refunds" in line


def test_the_domain_picks_the_default_rubric_of_its_pack(travel_installed: Path) -> None:
    _, travel, _, _ = resolve_judge(JudgeOptions(domain="travel"))
    _, refunds, _, _ = resolve_judge(JudgeOptions())
    assert (travel.domain, travel.rubric_id) == ("travel", "rebooking_communication")
    assert refunds.domain == "refunds"
    given = resolve_judge(JudgeOptions(domain="travel", rubric=domains.default_rubric()))[1]
    assert given.rubric_id == refunds.rubric_id  # a rubric the user names wins


@pytest.mark.slow  # a whole calibration (bootstrap), in process
def test_calibrate_from_another_folder_reads_the_domains_gold_and_rubric(
    cli: Callable[..., Result], tmp_path: Path, travel_installed: Path
) -> None:
    verdicts = tmp_path / "verdicts.jsonl"
    rows = [json.loads(x) for x in (TRAVEL_GOLD / "labels" / "consensus.jsonl").open()]
    verdicts.write_text(
        "".join(
            json.dumps({**{k: x[k] for k in ("item", "criterion", "label")}, "judge_version": "e1"})
            + "\n"
            for x in rows
        )
    )
    args = ("calibrate", "--domain", "travel", "--verdicts", "verdicts.jsonl", "--out", "rep")
    r = cli(*args, "--resamples", "200", cwd=tmp_path)
    assert r.code in (0, 1), r.err
    report = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert report["rubric"]["id"] == "rebooking_communication"
    assert Path(report["gold"]["root"]) == TRAVEL_GOLD
