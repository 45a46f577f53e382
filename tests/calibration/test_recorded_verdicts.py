"""A judge that runs elsewhere: `calibrate --verdicts FILE` and `compare FILE ...` measure its
recorded verdicts with the statistics a live judge gets. A local OpenAI-compatible server plays
the live judge and answers, per gold item, the very labels the recorded file holds: the two
calibrations must give the same figures. Bad verdict files are refused in one line naming the
file, the line and the field, with exit 2 and nothing written."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT, Result
from tests.support.fake_openai import FakeServer, answer_from_schema, fake_openai

SHIPPED = ROOT / "gold"
RUBRIC = ROOT / "rubrics" / "refund_communication.yaml"
CRITERIA = {
    "separates_done_from_pending": ["fail", "pass", "insufficient_evidence"],
    "explains_next_step": ["fail", "pass"],
    "no_claim_before_confirmed": ["fail", "pass"],
    "reports_access_problem": ["fail", "pass", "not_applicable"],
    "overall_clarity": [1, 2, 3, 4],
}
RESAMPLES = "200"


def _agent_texts(t: dict[str, Any]) -> tuple[str, ...]:
    return tuple(sorted(turn["text"] for turn in t["conversation"] if turn["role"] == "agent"))


def _label(texts: tuple[str, ...], criterion: str) -> Any:
    """The judge's label: a fixed function of what the agent wrote (items with the same words
    get the same labels, so the live judge can give exactly what the file records)."""
    digest = hashlib.sha256(("|".join(texts) + criterion).encode()).digest()
    allowed = CRITERIA[criterion]
    return allowed[digest[0] % len(allowed)]


@pytest.fixture(scope="module")
def gold(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped gold set cut to its first 30 calibration items and 6 held-out ones (a
    live calibration of them stays fast), labels as shipped."""
    dest = tmp_path_factory.mktemp("gold")
    manifest = yaml.safe_load((SHIPPED / "manifest.yaml").read_text())
    keep = {
        *sorted(k for k, v in manifest.items() if v["split"] == "calibration")[:30],
        *sorted(k for k, v in manifest.items() if v["split"] == "heldout")[:6],
    }
    (dest / "transcripts").mkdir(parents=True)
    (dest / "labels").mkdir()
    (dest / "manifest.yaml").write_text(yaml.safe_dump({k: manifest[k] for k in sorted(keep)}))
    for k in keep:
        shutil.copy(SHIPPED / "transcripts" / f"{k}.json", dest / "transcripts")
    for f in (SHIPPED / "labels").glob("*.jsonl"):
        rows = [ln for ln in f.read_text().splitlines() if json.loads(ln)["item"] in keep]
        (dest / "labels" / f.name).write_text("\n".join(rows) + "\n")
    return dest


def _texts_by_item(gold: Path) -> dict[str, tuple[str, ...]]:
    return {
        p.stem: _agent_texts(json.loads(p.read_text()))
        for p in sorted((gold / "transcripts").glob("*.json"))
    }


@pytest.fixture(scope="module")
def server(gold: Path) -> Any:
    known = set(_texts_by_item(gold).values())

    def answer(body: dict[str, Any]) -> str:
        prompt = json.dumps(body["messages"])
        found = [t for t in known if all(json.dumps(x)[1:-1] in prompt for x in t)]
        texts = max(found, key=lambda t: (len(t), sum(map(len, t))))
        return answer_from_schema(lambda c, allowed: _label(texts, c))(body)

    with fake_openai(answer) as s:
        yield s


def _env(tmp_path: Path, server: FakeServer | None = None) -> dict[str, str]:
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 'store.db'}"}
    if server is not None:
        folder = tmp_path / "judges"
        folder.mkdir(exist_ok=True)
        (folder / "live.yaml").write_text(
            f"model: openai/same-labels\napi_base: {server.url}\nrubric: {RUBRIC}\n"
            "concurrency: 8\nmax_attempts: 1\n"
        )
        env |= {"CALIBRANT_JUDGES_DIR": str(folder), "OPENAI_API_KEY": "x"}
    return env


def _recorded_csv(gold: Path, path: Path, version: str = "elsewhere@7") -> Path:
    lines = ["item,criterion,label,judge_version,rationale"]
    for item, texts in _texts_by_item(gold).items():
        for c in CRITERIA:
            lines.append(f"{item},{c},{_label(texts, c)},{version},recorded by the pipeline")
    path.write_text("\n".join(lines) + "\n")
    return path


def _json(r: Result) -> dict[str, Any]:
    assert r.code in (0, 1), r.err
    return json.loads(r.out)


def _figures(report: dict[str, Any]) -> dict[str, Any]:
    return {
        c["criterion"]: (
            c["judge_vs_consensus"]["estimate"],
            c["judge_vs_consensus"]["ci"],
            c["gate"]["difference_lower_bound"],
            c["coverage"]["coverage"],
            c["gate"]["status"],
            c["confusion"],
        )
        for c in report["criteria"]
    }


def test_recorded_verdicts_give_the_figures_of_a_live_judge_that_answered_them(
    cli: Callable[..., Result], gold: Path, tmp_path: Path, server: FakeServer
) -> None:
    env = _env(tmp_path, server)
    common = ("--gold", str(gold), "--resamples", RESAMPLES, "--json")
    live = _json(
        cli("calibrate", "--judge", "live", *common, "--out", str(tmp_path / "a"), env=env)
    )
    assert live["run"]["model_calls"] > 0
    recorded_file = _recorded_csv(gold, tmp_path / "judged.csv")
    calls = sum(server.requests.values())
    rec = _json(
        cli(
            "calibrate",
            "--verdicts",
            str(recorded_file),
            "--rubric",
            str(RUBRIC),
            *common,
            "--out",
            str(tmp_path / "b"),
            env=env,
        )
    )
    assert sum(server.requests.values()) == calls  # the recorded judge is never called
    assert _figures(rec) == _figures(live)
    kappas = [f[0] for f in _figures(rec).values()]
    assert any(k is not None and k != 0 for k in kappas)  # a measurement, not a degenerate one
    assert rec["judge"]["model"] == "recorded/elsewhere@7"
    assert rec["judge"]["recorded"]["judge_version"] == "elsewhere@7"
    assert rec["judge"]["recorded"]["items_without_verdict"] == []
    assert rec["judge_outcomes"] == {"verdict": rec["n_items"]}

    # the same judge, one recorded file and one live: the comparison finds no difference
    cmp = _json(
        cli(
            "compare",
            str(recorded_file),
            "live",
            "--gold",
            str(gold),
            "--resamples",
            RESAMPLES,
            "--json",
            env=env,
        )
    )
    assert cmp["judges"]["a"]["name"] == "elsewhere@7" and cmp["judges"]["b"]["name"] == "live"
    for c in cmp["criteria"]:
        assert c["difference"] in (0, None) and c["flips"] == [] and c["decision"] == "undecided"


def test_gold_items_without_a_row_count_as_the_judge_abstaining(
    cli: Callable[..., Result], gold: Path, tmp_path: Path
) -> None:
    full = _recorded_csv(gold, tmp_path / "full.csv")
    dropped = {"gold-002", "gold-003"}
    part = tmp_path / "part.csv"
    kept = [ln for ln in full.read_text().splitlines() if ln.split(",")[0] not in dropped]
    part.write_text("\n".join(kept) + "\n")
    env = _env(tmp_path)
    common = ("--gold", str(gold), "--resamples", RESAMPLES, "--json")
    a = _json(
        cli("calibrate", "--verdicts", str(full), *common, "--out", str(tmp_path / "a"), env=env)
    )
    b = _json(
        cli("calibrate", "--verdicts", str(part), *common, "--out", str(tmp_path / "b"), env=env)
    )
    assert b["judge"]["recorded"]["items_without_verdict"] == sorted(dropped)
    assert b["judge_outcomes"] == {"verdict": b["n_items"] - 2, "no_recorded_verdict": 2}
    assert any("counts as the judge abstaining" in w for w in b["warnings"])
    rows = [ln.split(",") for ln in full.read_text().splitlines()[1:]]
    for ca, cb in zip(a["criteria"], b["criteria"], strict=True):
        newly = sum(
            1
            for item, crit, label, *_ in rows
            if item in dropped and crit == ca["criterion"] and label != "insufficient_evidence"
        )
        assert cb["coverage"]["abstained"] == ca["coverage"]["abstained"] + newly
        assert cb["coverage"]["usable"] <= ca["coverage"]["usable"]
    assert sum(ca["coverage"]["usable"] for ca in a["criteria"]) > sum(
        cb["coverage"]["usable"] for cb in b["criteria"]
    )


H = "item,criterion,label,judge_version"
BAD = [
    (
        "unknown_item.csv",
        f"{H}\ngold-002,explains_next_step,pass,v1\ngold-999,explains_next_step,pass,v1\n",
        3,
        "item",
        "gold-999",
    ),
    (
        "unknown_criterion.csv",
        f"{H}\ngold-002,tone,pass,v1\n",
        2,
        "criterion",
        "'tone' is not in rubric",
    ),
    (
        "off_scale.csv",
        f"{H}\ngold-002,explains_next_step,Pass,v1\n",
        2,
        "label",
        "not on the scale",
    ),
    (
        "ordinal.jsonl",
        '{"item":"gold-002","criterion":"overall_clarity","label":7,"judge_version":"v1"}\n',
        1,
        "label",
        "label 7",
    ),
    (
        "not_applicable.csv",
        f"{H}\ngold-002,explains_next_step,not_applicable,v1\n",
        2,
        "label",
        "not on the scale",
    ),
    (
        "twice.csv",
        f"{H}\ngold-002,explains_next_step,pass,v1\ngold-003,explains_next_step,pass,v1\ngold-002,explains_next_step,fail,v1\n",
        4,
        "item",
        "first at line 2",
    ),
    (
        "no_version.csv",
        "item,criterion,label\ngold-002,explains_next_step,pass\n",
        1,
        "judge_version",
        "lacks",
    ),
    (
        "two_versions.csv",
        f"{H}\ngold-002,explains_next_step,pass,v1\ngold-003,explains_next_step,pass,v2\n",
        3,
        "judge_version",
        "'v2'",
    ),
    ("empty_label.csv", f"{H}\ngold-002,explains_next_step,,v1\n", 2, "label", "missing"),
    (
        "extra_column.csv",
        f"{H},score\ngold-002,explains_next_step,pass,v1,1\n",
        1,
        "score",
        "unknown column",
    ),
    (
        "extra_key.jsonl",
        '{"item":"gold-002","criterion":"explains_next_step","label":"pass","judge_version":"v1","score":1}\n',
        1,
        "score",
        "unknown field",
    ),
]


@pytest.mark.parametrize(("name", "text", "line", "field", "says"), BAD, ids=[b[0] for b in BAD])
def test_a_bad_verdicts_file_is_one_line_exit_2_and_nothing_written(
    cli: Callable[..., Result],
    gold: Path,
    tmp_path: Path,
    name: str,
    text: str,
    line: int,
    field: str,
    says: str,
) -> None:
    path = tmp_path / name
    path.write_text(text)
    env = _env(tmp_path)
    rubric = ("--rubric", str(RUBRIC))
    r = cli(
        "calibrate", "--verdicts", str(path), "--gold", str(gold), *rubric, cwd=tmp_path, env=env
    )
    assert r.code == 2, r.out + r.err
    lines = r.err.strip().splitlines()
    assert len(lines) == 1, r.err
    assert f"{path}:{line}: field '{field}'" in lines[0] and says in lines[0], lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]  # no store, no report folder
    # compare reads verdicts files with the same checks
    r = cli("compare", str(path), str(path), "--gold", str(gold), *rubric, cwd=tmp_path, env=env)
    assert r.code == 2 and f"{path}:{line}: field '{field}'" in r.err
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


def test_verdicts_and_a_judge_to_call_are_one_or_the_other(
    cli: Callable[..., Result], gold: Path, tmp_path: Path
) -> None:
    path = _recorded_csv(gold, tmp_path / "judged.csv")
    r = cli("calibrate", "--verdicts", str(path), "--model", "openai/x", env=_env(tmp_path))
    assert r.code == 2 and "one or the other" in r.err
