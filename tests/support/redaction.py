"""Redaction measured on a planted corpus (tests/data/redaction/planted_v2.jsonl, written by
make_planted_v2.py beside it): recall per planted kind, the service's data kept, placeholders in
messages with nothing personal, and precision per placeholder kind. Shared by
tests/regression/test_redaction_planted.py and benchmarks/bench_redaction.py.

A planted value is *recalled* when nothing of it survives in the redacted text: not the value
(accents and case aside), not any identifying part of it (a word of 3+ letters that is not a
street type, a month or a mail host; a run of 3+ digits) as a whole word. A placeholder is
*right* when its span overlaps a planted value or an identifying part of one in the message;
otherwise it is a false positive."""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "data" / "redaction" / "planted_v2.jsonl"

# words of a planted value that do not identify anyone
GENERIC = frozenset(
    """calle avenida avda plaza pza paseo camino carrer rua rambla travesia ronda street road
    avenue lane drive court crescent place boulevard close way flat apt suite unit del los las
    punto arroba com dot gmail hotmail outlook yahoo mail correo icloud protonmail at org net
    piso bajo izq dcha puerta esc enero febrero marzo abril mayo junio julio agosto septiembre
    octubre noviembre diciembre january february march april may june july august september
    october november december jan feb mar apr jun jul aug sep sept oct nov dec""".split()
)


def fold(s: str) -> str:
    """Lower case without accents, one character for one (offsets carry over)."""
    return "".join(unicodedata.normalize("NFD", c.lower())[0] if c.isalpha() else c for c in s)


def parts(value: str) -> list[str]:
    """The identifying parts of a value: words of 3+ letters, runs of 3+ digits (folded)."""
    return [p for p in re.findall(r"[^\W_]+", fold(value)) if len(p) >= 3 and p not in GENERIC]


def _word(part: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![^\W_]){re.escape(part)}(?![^\W_])")


def leaked(value: str, out: str) -> bool:
    """Whether `value`, or an identifying part of it, survives in `out`."""
    folded = fold(out)
    return fold(value) in folded or any(_word(p).search(folded) for p in parts(value))


def load(path: Path = CORPUS) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


class _Redactor(Protocol):
    def text(self, text: str) -> str: ...


@dataclass
class Score:
    """What a redactor did to the corpus. Counts are [n, misses]."""

    messages: int = 0
    recall: dict[str, list[int]] = field(default_factory=dict)  # planted kind -> [n, leaked]
    forms: dict[tuple[str, str], list[int]] = field(default_factory=dict)  # (kind, form)
    leaks: list[str] = field(default_factory=list)
    keep: list[int] = field(default_factory=lambda: [0, 0])  # [n, lost]
    lost: list[str] = field(default_factory=list)
    negatives: list[int] = field(default_factory=lambda: [0, 0])  # [messages, placeholders]
    precision: dict[str, list[int]] = field(default_factory=dict)  # placeholder kind -> [n, wrong]
    wrong: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def planted(self) -> int:
        return sum(n for n, _ in self.recall.values())

    @property
    def leaked(self) -> int:
        return sum(m for _, m in self.recall.values())


_PLACEHOLDER = re.compile(r"\[[a-z ]+ \d+\]")


def _targets(doc: dict[str, Any]) -> list[tuple[int, int]]:
    """Where the planted values, and their identifying parts, are in the message."""
    folded = fold(doc["text"])
    where: list[tuple[int, int]] = []
    for p in doc["planted"]:
        for needle in (fold(p["value"]), *parts(p["value"])):
            where += [(m.start(), m.end()) for m in re.finditer(re.escape(needle), folded)]
    return where


def score(
    make: Callable[[list[str]], _Redactor],
    docs: Iterable[dict[str, Any]],
    spans: Callable[[_Redactor, str], list[tuple[int, int, str]]] | None = None,
) -> Score:
    """Run `make(records).text(message)` over the corpus; with `spans` (the spans the redactor
    replaces in a message: start, end, kind), also each placeholder's precision."""
    import time

    s = Score()
    for doc in docs:
        s.messages += 1
        started = time.perf_counter()
        r = make(doc["records"])
        out = r.text(doc["text"])
        s.seconds += time.perf_counter() - started
        for p in doc["planted"]:
            bad = leaked(p["value"], out)
            for key, table in ((p["kind"], s.recall), ((p["kind"], p["form"]), s.forms)):
                cell = table.setdefault(key, [0, 0])
                cell[0] += 1
                cell[1] += bad
            if bad:
                s.leaks.append(f"{doc['id']} {p['kind']} ({p['form']}) {p['value']!r}: {out!r}")
        for k in doc["keep"]:
            s.keep[0] += 1
            if k not in out:
                s.keep[1] += 1
                s.lost.append(f"{doc['id']} lost {k!r}: {out!r}")
        if not doc["planted"]:
            s.negatives[0] += 1
            s.negatives[1] += len(_PLACEHOLDER.findall(out))
        if spans is not None:
            targets = _targets(doc)
            for start, end, kind in spans(make(doc["records"]), doc["text"]):
                right = any(start < b and a < end for a, b in targets)
                cell = s.precision.setdefault(kind, [0, 0])
                cell[0] += 1
                cell[1] += not right
                if not right:
                    s.wrong.append(f"{doc['id']} {kind} {doc['text'][start:end]!r}")
    return s


def summary(s: Score) -> str:
    """Per-kind recall and the misses, for an assertion message."""
    rows = [f"{k}: {n - m}/{n}" for k, (n, m) in sorted(s.recall.items())]
    return "\n".join([*rows, *s.leaks, *s.lost, *s.wrong])
