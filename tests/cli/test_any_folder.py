"""Issue 32 item 4: every command works from any folder. The default rubric, gold set and cases
come from the installed pack of the command's domain (`calibrant.domains.pack_data`), never from
the working directory; a path the user gives stays relative to theirs; outputs go where they
went (reports/ and the store of the working directory). A pack installed without its data is
one line naming the pack, the missing folder and what to pass instead, exit 2."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from calibrant.domains import get, pack_data
from calibrant.errors import ConfigError, InputError
from calibrant.files import load_rubric
from tests.conftest import ROOT, Result
from tests.domains.packs import TOURS, write_pack
from tests.support.domains import installed
from tests.support.fake_openai import answer_from_schema, fake_openai

VERDICTS = ROOT / "examples" / "verdicts" / "judged.csv"
TRANSCRIPTS = ROOT / "examples" / "transcripts"


@pytest.fixture
def away(tmp_path: Path) -> Path:
    """A working folder that is not the repository and holds no rubrics/, gold/ or cases/."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    return folder


def _env(tmp_path: Path) -> dict[str, str]:
    return {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 'store.db'}"}


def _pack_gold() -> Path:
    gold = get("refunds").pack.gold
    assert gold is not None and (gold / "manifest.yaml").is_file()
    return gold


def _pack_rubric_id() -> str:
    [rubric] = sorted(pack_data("rubrics").glob("*.yaml"))
    return load_rubric(rubric).rubric_id


def test_calibrate_from_another_folder_judges_the_packs_gold_set_on_its_rubric(
    cli: Callable[..., Result], tmp_path: Path, away: Path
) -> None:
    with fake_openai(answer_from_schema(lambda c, labels: labels[-2])) as server:
        r = cli(
            "calibrate",
            "--model",
            "openai/constant",
            "--api-base",
            server.url,
            "--resamples",
            "200",
            "--json",
            cwd=away,
            env=_env(tmp_path),
        )
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert doc["gold"]["root"] == str(_pack_gold())
    assert doc["rubric"]["id"] == _pack_rubric_id()
    assert doc["run"]["model_calls"] == doc["n_items"] > 0
    # the report folder is where it always was: reports/RUN_ID/ in the working folder
    [folder] = (away / "reports").iterdir()
    assert (folder / "report.json").is_file()


def test_recorded_verdicts_are_measured_on_the_packs_gold_and_rubric_from_anywhere(
    cli: Callable[..., Result], tmp_path: Path, away: Path
) -> None:
    out = tmp_path / "report"
    r = cli("calibrate", "--verdicts", str(VERDICTS), "--json", "--out", str(out), cwd=away)
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert doc["gold"]["root"] == str(_pack_gold())
    assert doc["rubric"]["id"] == _pack_rubric_id()
    assert (out / "report.json").is_file()
    assert not (away / "reports").exists()  # --out was given


def test_a_gold_path_given_is_relative_to_the_users_folder(
    cli: Callable[..., Result], tmp_path: Path, away: Path
) -> None:
    (away / "mine").symlink_to(_pack_gold(), target_is_directory=True)
    args = ("calibrate", "--verdicts", str(VERDICTS), "--json", "--out")
    r = cli(*args, str(tmp_path / "a"), "--gold", "mine", cwd=away)
    assert r.code == 0, r.err
    assert json.loads(r.out)["gold"]["root"] == "mine"
    # a folder named like the pack's, absent from the user's folder, is not looked up elsewhere
    r = cli(*args, str(tmp_path / "b"), "--gold", "gold", cwd=away)
    assert r.code == 2
    assert "gold" in r.err and str(_pack_gold()) not in r.err
    assert len(r.err.strip().splitlines()) == 1


def test_check_score_and_selftest_work_from_another_folder(
    cli: Callable[..., Result], tmp_path: Path, away: Path
) -> None:
    good = str(TRANSCRIPTS / "good-eligible.json")
    r = cli("check", good, "--json", cwd=away)
    assert r.code == 0, r.err
    with fake_openai(answer_from_schema(lambda c, labels: labels[0])) as server:
        r = cli(
            "score",
            good,
            "--model",
            "openai/constant",
            "--api-base",
            server.url,
            "--json",
            cwd=away,
            env=_env(tmp_path),
        )
    assert r.code == 0, r.err
    assert server.requests  # the judge was called, on the pack's rubric
    prompt = json.dumps(server.bodies[0])
    for criterion in load_rubric(next(pack_data("rubrics").glob("*.yaml"))).criteria:
        assert criterion.id in prompt
    r = cli("selftest", cwd=away)  # the pack's cases; exit 1 if the checker missed anything
    assert r.code == 0, r.err + r.out


def test_a_pack_installed_without_its_data_is_one_line_naming_what_to_pass(
    cli: Callable[..., Result], tmp_path: Path, away: Path
) -> None:
    write_pack(tmp_path / "site", "tours_pack", TOURS, "tours = tours_pack:pack")
    with installed(tmp_path / "site"):
        r = cli("selftest", "--domain", "tours", cwd=away)
        assert r.code == 2, r.out + r.err
        [line] = r.err.strip().splitlines()
        missing = tmp_path / "site" / "tours_cases"
        assert "domain pack 'tours'" in line
        assert f"{missing} does not exist" in line
        assert "pass --cases PATH" in line
        with pytest.raises(ConfigError, match=r"pack 'tours' .* ships no gold set: pass --gold"):
            pack_data("gold", "tours")


def test_a_pack_shipping_several_rubrics_names_them_and_asks_for_one(tmp_path: Path) -> None:
    source = TOURS.replace('HERE / "tours_rubrics"', 'HERE / "rubrics"')
    write_pack(tmp_path / "site", "tours_pack", source, "tours = tours_pack:pack")
    (tmp_path / "site" / "rubrics").mkdir()
    for name in ("a.yaml", "b.yaml"):
        (tmp_path / "site" / "rubrics" / name).write_text("rubric_id: x\n")
    from calibrant.domains import default_rubric

    with installed(tmp_path / "site"):
        with pytest.raises(ConfigError, match=r"ships 2 rubrics in .* \(a.yaml, b.yaml\)"):
            default_rubric("tours")


def test_a_service_job_without_gold_reads_the_packs_and_a_given_one_stays_in_the_data_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from calibrant.ops.job_inputs import server_gold

    monkeypatch.setenv("CALIBRANT_DATA_ROOT", str(tmp_path))
    assert server_gold({"gold": None}) == _pack_gold()  # the pack's own data: trusted
    assert server_gold({"gold": "g"}) == tmp_path / "g"
    with pytest.raises(InputError, match="outside the service's data root"):
        server_gold({"gold": str(_pack_gold())})  # given by a client: confined as before


@pytest.mark.slow
def test_the_real_command_calibrates_checks_and_scores_from_tmp(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    """`python -m calibrant` in a child process whose working folder is /tmp, as a user runs it
    after `pip install`: calibrate on the pack's gold set and rubric, check and score."""
    tmp = Path("/tmp")
    env = _env(tmp_path)
    good = str(TRANSCRIPTS / "good-eligible.json")
    with fake_openai(answer_from_schema(lambda c, labels: labels[-2])) as server:
        judge = ("--model", "openai/constant", "--api-base", server.url)
        out = tmp_path / "report"
        r = cli(
            "calibrate", *judge, "--resamples", "200", "--json", "--out", str(out),
            cwd=tmp, env=env, process=True,
        )  # fmt: skip
        assert r.code == 0, r.err
        doc = json.loads(r.out)
        assert doc["gold"]["root"] == str(_pack_gold())
        assert doc["rubric"]["id"] == _pack_rubric_id()
        assert (out / "report.json").is_file()
        r = cli("score", good, *judge, "--json", cwd=tmp, env=env, process=True)
        assert r.code == 0, r.err
    r = cli("check", good, "--json", cwd=tmp, env=env, process=True)
    assert r.code == 0, r.err
