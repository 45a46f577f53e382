"""Outside audit of `calibrant agree` (issue 18): the linear-weighted kappa carries its own
interval, by case with --manifest, and one case gives no interval for either statistic."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

from tests.conftest import Result


def _files(tmp: Path, cases: int) -> tuple[Path, Path]:
    rng = random.Random(1)
    a = [rng.randint(1, 4) for _ in range(40)]
    b = [min(4, max(1, x + rng.choice([-1, 0, 0, 1]))) for x in a]
    labels = tmp / "labels.jsonl"
    labels.write_text(
        "".join(
            json.dumps({"item": f"t{i}", "rater": r, "criterion": "clarity", "label": v}) + "\n"
            for i, (x, y) in enumerate(zip(a, b, strict=True))
            for r, v in (("a", x), ("b", y))
        )
    )
    manifest = tmp / f"manifest{cases}.yaml"
    manifest.write_text(
        "".join(
            f"t{i}:\n  agent: scripted:correct\n  case: c{i % cases}\n  pair: null\n"
            "  provenance: audit\n  seed: 1\n  split: calibration\n  style: excellent\n"
            "  tags: []\n"
            for i in range(40)
        )
    )
    return labels, manifest


def _pair(cli: Callable[..., Result], *args: str) -> dict[str, object]:
    r = cli("agree", *args, "--level", "ordinal", "--json")
    assert r.code == 0, r.err
    pair: dict[str, object] = json.loads(r.out)["criteria"]["clarity"]["pairs"][0]
    return pair


def test_weighted_kappa_interval_is_its_own_and_one_case_gives_none(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    labels, two = _files(tmp_path, 2)
    _, one = _files(tmp_path, 1)
    by_item = _pair(cli, str(labels))
    lo, hi = by_item["weighted_kappa_ci95"]  # type: ignore[misc]
    assert lo <= by_item["weighted_kappa"] <= hi  # type: ignore[operator]
    assert by_item["weighted_kappa_ci95"] != by_item["ci95"]
    by_case = _pair(cli, str(labels), "--manifest", str(two))
    assert by_case["weighted_kappa_ci95"] is not None
    single = _pair(cli, str(labels), "--manifest", str(one))
    assert single["ci95"] is None and single["weighted_kappa_ci95"] is None
    why = single["why_undefined"]
    assert isinstance(why, dict) and "no item-level interval" in why["weighted_kappa_ci95"]
    assert single["weighted_kappa"] == by_item["weighted_kappa"]  # the estimate stays
