"""First contact with bad input and bad output paths: one line naming file, line and field,
exit 2, no model call, nothing written. Links are followed or reported, never dropped."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT, Result
from tests.support.fake_openai import answer_from_schema, fake_openai
from tests.support.gold import small_gold

EXAMPLES = ROOT / "examples" / "transcripts"
GOOD = EXAMPLES / "good-eligible.json"


def _one_line(r: Result) -> str:
    assert r.code == 2, (r.code, r.err)
    lines = [ln for ln in r.err.splitlines() if ln.strip()]
    assert len(lines) == 1, r.err
    assert "Traceback" not in r.err
    assert r.out == ""
    return lines[0]


def _calibrate(cli: Callable[..., Result], tmp_path: Path, *args: str) -> tuple[Result, int]:
    """Run calibrate against a local endpoint; returns the result and the requests it got."""
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 'store.db'}"}
    with fake_openai(answer_from_schema(lambda c, labels: labels[0])) as server:
        r = cli(
            "calibrate",
            "--model",
            "openai/judge",
            "--api-base",
            server.url,
            "--resamples",
            "200",
            "--split",
            "all",
            *args,
            env=env,
        )
        return r, sum(server.requests.values())


# --- nesting that would exhaust the parser's stack ------------------------------------------


def test_deeply_nested_transcript_is_one_line(tmp_path: Path, cli: Callable[..., Result]) -> None:
    bad = tmp_path / "deep.json"
    bad.write_text('{"transcript_id":\n' + "[" * 100_000 + "]" * 100_000 + "}")
    line = _one_line(cli("check", str(bad)))
    assert f"{bad}:2:" in line and "nested more than" in line


def test_deeply_nested_case_yaml_is_one_line(tmp_path: Path, cli: Callable[..., Result]) -> None:
    bad = tmp_path / "case.yaml"
    bad.write_text("case: x\nfixture: " + "[" * 50_000 + "]" * 50_000 + "\n")
    line = _one_line(cli("check", str(GOOD), "--case", str(bad)))
    assert f"{bad}:2:" in line and "nested" in line


def test_deeply_nested_label_line_names_its_line(
    tmp_path: Path, cli: Callable[..., Result]
) -> None:
    bad = tmp_path / "labels.jsonl"
    ok = {"item": "t1", "rater": "a", "criterion": "c", "label": "pass"}
    bad.write_text(json.dumps(ok) + "\n" + '{"item": ' + "[" * 100_000 + "\n")
    line = _one_line(cli("agree", str(bad)))
    assert f"{bad}:2:" in line


# --- the gold manifest and agree --manifest -------------------------------------------------


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00binary", "not UTF-8"),
        (b"item_1: {case: [unclosed\n", "malformed YAML"),
        (b"- just\n- a list\n", "YAML mapping"),
        (b"item_1: {case: c, agent: a, style: s, seed: 1, split: testing}\n", "split"),
    ],
)
def test_bad_gold_manifest_is_one_line_and_no_model_call(
    tmp_path: Path, cli: Callable[..., Result], content: bytes, needle: str
) -> None:
    gold = small_gold(tmp_path / "gold")
    (gold / "manifest.yaml").write_bytes(content)
    r, calls = _calibrate(cli, tmp_path, "--gold", str(gold))
    line = _one_line(r)
    assert str(gold / "manifest.yaml") in line and needle in line
    assert calls == 0


def test_agree_manifest_missing_binary_or_incomplete(
    tmp_path: Path, cli: Callable[..., Result]
) -> None:
    labels = str(ROOT / "gold" / "labels" / "rater_a.jsonl")
    missing = tmp_path / "nope.yaml"
    assert "no such file" in _one_line(cli("agree", labels, "--manifest", str(missing)))
    binary = tmp_path / "bin.yaml"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    assert "not UTF-8" in _one_line(cli("agree", labels, "--manifest", str(binary)))
    partial = tmp_path / "partial.yaml"
    manifest = yaml.safe_load((ROOT / "gold" / "manifest.yaml").read_text())
    first = sorted(manifest)[0]
    partial.write_text(yaml.safe_dump({first: manifest[first]}))
    line = _one_line(cli("agree", labels, "--manifest", str(partial)))
    assert "rater_a.jsonl:" in line and "is not in" in line and "field 'item'" in line


# --- gold labels are checked against the rubric before any model call -------------------------


def _append(path: Path, row: dict[str, object]) -> int:
    """Append a label row; returns its line number."""
    text = path.read_text()
    path.write_text(text + json.dumps(row) + "\n")
    return len(text.splitlines()) + 1


@pytest.mark.parametrize(
    ("criterion", "label", "field", "needle"),
    [
        ("separates_done_from_pending", "maybe", "label", "not on the scale"),
        ("overall_clarity", "3", "label", "not on the scale"),  # a string where 3 is an int
        ("tone", "pass", "criterion", "not in rubric"),
    ],
)
def test_bad_gold_label_is_refused_before_any_model_call(
    tmp_path: Path,
    cli: Callable[..., Result],
    criterion: str,
    label: str,
    field: str,
    needle: str,
) -> None:
    gold = small_gold(tmp_path / "gold")
    item = sorted(yaml.safe_load((gold / "manifest.yaml").read_text()))[-1]
    rater = gold / "labels" / "rater_b.jsonl"
    # the last label of the file: a run that judged first would pay for every item
    lines = [json.loads(x) for x in rater.read_text().splitlines()]
    lines = [x for x in lines if not (x["item"] == item and x["criterion"] == criterion)]
    rater.write_text("".join(json.dumps(x) + "\n" for x in lines))
    n = _append(rater, {"item": item, "rater": "rater_b", "criterion": criterion, "label": label})
    r, calls = _calibrate(cli, tmp_path, "--gold", str(gold))
    line = _one_line(r)
    assert f"{rater}:{n}:" in line and f"field '{field}'" in line and needle in line
    assert calls == 0


def test_duplicate_gold_label_is_refused_naming_both_lines(
    tmp_path: Path, cli: Callable[..., Result]
) -> None:
    gold = small_gold(tmp_path / "gold")
    rater = gold / "labels" / "rater_a.jsonl"
    first = json.loads(rater.read_text().splitlines()[0])
    flipped = dict(first, label="fail" if first["label"] == "pass" else "pass")
    n = _append(rater, flipped)
    r, calls = _calibrate(cli, tmp_path, "--gold", str(gold))
    line = _one_line(r)
    assert f"{rater}:{n}:" in line and "twice" in line and f"{rater}:1" in line
    assert calls == 0
    # and agree refuses the same file rather than letting the last one win
    assert "twice" in _one_line(cli("agree", str(rater)))


# --- output paths are checked first; reports are written all or none --------------------------


def test_output_at_a_folder_or_under_a_file_fails_before_any_model_call(
    tmp_path: Path, cli: Callable[..., Result]
) -> None:
    gold = small_gold(tmp_path / "gold")
    folder = tmp_path / "out"
    folder.mkdir()
    a_file = tmp_path / "a_file"
    a_file.write_text("keep me")
    md = tmp_path / "report.md"
    for args, needle in (
        (("--html", str(folder)), "is a folder"),
        (("--markdown", str(md), "--html", str(a_file / "r.html")), "is a file"),
        (("--markdown", str(a_file / "sub" / "r.md")), "is a file"),
    ):
        r, calls = _calibrate(cli, tmp_path, "--gold", str(gold), *args)
        line = _one_line(r)
        assert needle in line and calls == 0
        assert not md.exists()  # the valid one was not written either
    assert a_file.read_text() == "keep me"


def test_rubric_guide_out_at_a_folder(tmp_path: Path, cli: Callable[..., Result]) -> None:
    rubric = str(ROOT / "rubrics" / "refund_communication.yaml")
    assert "is a folder" in _one_line(cli("rubric", "guide", rubric, "--out", str(tmp_path)))
    out = tmp_path / "guide.md"
    r = cli("rubric", "guide", rubric, "--out", str(out))
    assert r.code == 0 and out.read_text().startswith("#") and f"wrote {out}" in r.err


# --- a judge that never answers ---------------------------------------------------------------


def test_calibrate_with_no_verdict_exits_3_naming_the_failure(
    tmp_path: Path, cli: Callable[..., Result]
) -> None:
    gold = small_gold(tmp_path / "gold", n=3)
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 'store.db'}"}
    with fake_openai(answer_from_schema(lambda c, labels: labels[0])) as server:
        r = cli(
            "calibrate",
            "--gold",
            str(gold),
            "--split",
            "all",
            "--model",
            "openai/always-500",
            "--api-base",
            server.url,
            "--max-attempts",
            "1",
            "--resamples",
            "200",
            env=env,
        )
    assert r.code == 3, r.err
    [line] = [ln for ln in r.err.splitlines() if "no gold item got a verdict" in ln]
    assert "provider_error 3" in line and "boom" in line  # the cause, in the one line
    assert r.out == "" and "release gate" not in r.err.lower()  # nothing measured: no gate


def test_calibrate_prints_where_it_wrote(tmp_path: Path, cli: Callable[..., Result]) -> None:
    gold = small_gold(tmp_path / "gold", n=3)
    md, html = tmp_path / "r.md", tmp_path / "deeper" / "r.html"
    r, calls = _calibrate(
        cli, tmp_path, "--gold", str(gold), "--markdown", str(md), "--html", str(html)
    )
    assert r.code == 0, r.err
    assert calls == 3 and md.exists() and html.exists()
    assert f"wrote {md}" in r.err and f"wrote {html}" in r.err
    # progress went to stderr, never into the report on stdout
    assert "gold items judged" in r.err and "3/3" in r.err
    assert "gold items judged" not in r.out


# --- links -------------------------------------------------------------------------------------


def test_links_are_followed_or_reported(tmp_path: Path, cli: Callable[..., Result]) -> None:
    runs = tmp_path / "runs"
    (runs / "a").mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.copy(GOOD, runs / "a" / "one.json")
    shutil.copy(EXAMPLES / "broken-false-completion.json", elsewhere / "two.json")
    os.symlink(elsewhere, runs / "linked")  # a linked folder: followed
    os.symlink(runs, runs / "a" / "loop")  # a loop: reported, not followed forever
    os.symlink(tmp_path / "gone.json", runs / "dangling.json")  # reported
    os.symlink(runs / "a" / "one.json", runs / "again.json")  # the same file twice: once
    r = cli("check", str(runs), "--json")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert doc["transcripts"] == 2 and doc["files"]["read"] == 2
    skipped = {Path(s["path"]).name: s["reason"] for s in doc["files"]["skipped"]}
    assert skipped == {
        "dangling.json": "dangling link",
        "loop": "link loop",
        "again.json": "duplicate",
    }
    assert "skipped 3 (1 dangling link, 1 duplicate, 1 link loop)" in r.err
    sources = {Path(v["source"]).name for v in doc["verdicts"]}
    assert sources == {"one.json", "two.json"}
    table = cli("check", str(runs))
    assert "read 2 transcript files; skipped 3" in table.err


def test_a_dangling_link_named_directly_is_an_error(
    tmp_path: Path, cli: Callable[..., Result]
) -> None:
    link = tmp_path / "t.json"
    os.symlink(tmp_path / "gone.json", link)
    assert "dangling link" in _one_line(cli("check", str(link)))


def test_no_transcript_found_says_what_was_skipped(
    tmp_path: Path, cli: Callable[..., Result]
) -> None:
    os.symlink(tmp_path / "gone.json", tmp_path / "only.json")
    line = _one_line(cli("check", str(tmp_path)))
    assert "no transcript" in line and "1 dangling link" in line


def test_selftest_write_to_a_file_is_refused(tmp_path: Path, cli: Callable[..., Result]) -> None:
    target = tmp_path / "corpus"
    target.write_text("a file")
    line = _one_line(cli("selftest", "--write", str(target)))
    assert "is a file" in line and target.read_text() == "a file"
