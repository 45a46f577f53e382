"""Redaction measured on a corpus of refund conversations (tests/data/redaction/corpus.yaml,
Spanish and English) with personal data planted in them: recall over the planted values, and
false positives on the service's data (order ids, amounts, the conversation's dates) and on
ordinary refund text with nothing personal in it."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path
from typing import Any

import yaml

from calibrant.domains import get as get_pack
from calibrant.regression import Redactor

CORPUS = Path(__file__).parents[1] / "data" / "redaction" / "corpus.yaml"
REFUND_WORDS = get_pack("refunds").pack.not_names
"""The refund shop's words never taken as names: its conversations are redacted with them."""
# words of a planted value that are not the person's (a street type, "at", "dot")
_GENERIC = {
    "calle", "avenida", "avda", "plaza", "paseo", "camino", "rambla", "travesia", "street",
    "road", "avenue", "lane", "drive", "court", "crescent", "place", "boulevard", "flat", "apt",
    "del", "los", "las", "punto", "arroba", "com", "dot", "outlook", "gmail", "mail", "correo",
    "example", "piso", "bajo", "de", "julio", "enero", "febrero", "marzo", "abril", "mayo",
    "junio", "agosto", "septiembre", "octubre", "noviembre", "january", "february", "march",
    "april", "may", "june", "july", "august", "september", "october", "park", "station",
    "church", "queen", "hillside", "maple", "kingsway", "willow", "ocean", "oak", "elm",
    "ronda", "mayor", "gracia",
}  # fmt: skip


def _fold(s: str) -> str:
    return "".join(unicodedata.normalize("NFD", c.lower())[0] for c in s)


def _leaked(value: str, out: str) -> bool:
    """A planted value leaked if it survives whole, or any identifying part of it does (a
    word of 3+ letters, a digit group of 3+, as a whole word), accents and case aside."""
    folded = _fold(out)
    if _fold(value) in folded:
        return True
    parts = [p for p in re.split(r"[^\w]+", _fold(value)) if len(p) >= 3 and p not in _GENERIC]
    return any(re.search(rf"(?<![\w]){re.escape(p)}(?![\w])", folded) for p in parts)


def _score() -> dict[str, Any]:
    docs = yaml.safe_load(CORPUS.read_text())
    planted = leaked = kept = lost = clean_spans = 0
    misses: list[str] = []
    by_kind: dict[str, list[int]] = {}
    for doc in docs:
        out = Redactor(doc["records"], not_names=REFUND_WORDS).text(doc["text"])
        for p in doc["planted"]:
            planted += 1
            bad = _leaked(p["value"], out)
            leaked += bad
            by_kind.setdefault(p["kind"], [0, 0])[0] += 1
            by_kind[p["kind"]][1] += bad
            if bad:
                misses.append(f"{p['kind']} {p['value']!r} in {out!r}")
        for k in doc["keep"]:
            kept += 1
            lost += k not in out
            if k not in out:
                misses.append(f"lost {k!r}: {out!r}")
        if not doc["planted"]:
            clean_spans += len(re.findall(r"\[[a-z ]+ \d+\]", out))
            if "[" in out:
                misses.append(f"false positive in clean text: {out!r}")
    return {
        "docs": len(docs),
        "planted": planted,
        "leaked": leaked,
        "kept": kept,
        "lost": lost,
        "clean_docs": sum(1 for d in docs if not d["planted"]),
        "clean_spans": clean_spans,
        "by_kind": by_kind,
        "misses": misses,
    }


def test_recall_on_planted_personal_data_is_at_least_98_percent() -> None:
    s = _score()
    assert s["planted"] >= 150 and {"es", "en"} <= {d["lang"] for d in yaml.safe_load(
        CORPUS.read_text())}  # fmt: skip
    recall = 1 - s["leaked"] / s["planted"]
    assert recall >= 0.98, (recall, s["by_kind"], s["misses"][:20])


def test_the_services_data_and_ordinary_refund_text_survive() -> None:
    s = _score()
    assert s["kept"] >= 40 and s["clean_docs"] >= 10
    assert s["lost"] == 0, [m for m in s["misses"] if m.startswith("lost")]
    assert s["clean_spans"] == 0, [m for m in s["misses"] if "clean" in m]
