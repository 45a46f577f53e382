"""The judge's prompt bytes for every shipped transcript, to compare two versions of calibrant.

    python scripts/judge_prompt_bytes.py dump ROOT OUT.json   # with that version on PYTHONPATH
    python scripts/judge_prompt_bytes.py compare A.json B.json

`dump` renders, for every transcript of the refund shop's gold set, the travel pack's gold set and
examples/transcripts under ROOT, the judge's system and user messages with a fixed nonce in
every prompt variant (full answer, labels only, datamarked, naive, evidence reversed), the
content-free prompts of each rubric, what the rater's records panel and the labeling sheet show,
and the labeling guide, and writes the SHA-256 of each. `compare` counts the equal and lists the
different ones (exit 1 if any differs)."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

NONCE = "0123456789abcdef"
RUBRICS = {
    "refunds": "rubrics/refund_communication.yaml",
    "travel": "domains/travel/src/calibrant_travel/data/rubrics/rebooking_communication.yaml",
}
TRANSCRIPTS = (
    "gold/transcripts",
    "domains/travel/src/calibrant_travel/data/gold/transcripts",
    "examples/transcripts",
)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def dump(root: Path, out: Path) -> None:
    from calibrant.files import load_rubric, load_transcript
    from calibrant.judge.evidence import conversation_items, records_for_rater
    from calibrant.judge.guide import labeling_guide
    from calibrant.judge.prompt import (
        EVIDENCE_REVERSED_TEMPLATE_VERSION,
        NAIVE_PROMPT_TEMPLATE_VERSION,
        build_prompt,
        content_free_prompts,
        prompt_variant,
    )
    from calibrant.judge.sheet import labeling_sheet

    rubrics = {d: load_rubric(root / p) for d, p in RUBRICS.items()}
    digests: dict[str, str] = {}
    for domain, rubric in rubrics.items():
        digests[f"guide/{domain}"] = _digest(labeling_guide(rubric))
        for labels_only in (False, True):
            for i, p in enumerate(content_free_prompts(rubric, labels_only=labels_only)):
                digests[f"content-free/{domain}/{labels_only}/{i}"] = _digest(p.system + p.user)
    variants = {
        "full": {},
        "labels": {"labels_only": True},
        "datamark": {"datamark": True},
        "short": {"untrusted_max_chars": 200},
        "naive": {"variant": prompt_variant(NAIVE_PROMPT_TEMPLATE_VERSION)},
        "reversed": {"variant": prompt_variant(EVIDENCE_REVERSED_TEMPLATE_VERSION)},
    }
    for folder in TRANSCRIPTS:
        for path in sorted((root / folder).glob("*.json")):
            t = load_transcript(path)
            rubric = rubrics[t.domain]
            key = f"{folder}/{path.name}"
            for name, kwargs in variants.items():
                prompt = build_prompt(t, rubric, nonce=NONCE, **kwargs)  # type: ignore[arg-type]
                digests[f"{key}/{name}/system"] = _digest(prompt.system)
                digests[f"{key}/{name}/user"] = _digest(prompt.user)
            records, lines = records_for_rater(t)
            panel = repr(records) + "\n".join(e.render() for e in lines)
            digests[f"{key}/panel"] = _digest(panel)
            digests[f"{key}/conversation"] = _digest(repr(conversation_items(t)))
            digests[f"{key}/sheet"] = _digest(labeling_sheet(t, item="item-1"))
    out.write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n")
    print(f"{len(digests)} digests written to {out}")


def compare(a: Path, b: Path) -> int:
    old, new = json.loads(a.read_text()), json.loads(b.read_text())
    keys = sorted(set(old) | set(new))
    differ = [k for k in keys if old.get(k) != new.get(k)]
    kinds: dict[str, list[int]] = {}
    for k in keys:
        parts = k.split("/")
        kind = "/".join(parts[-2:]) if parts[-1] in ("system", "user") else parts[-1]
        if parts[0] in ("guide", "content-free"):
            kind = parts[0]
        tally = kinds.setdefault(kind, [0, 0])
        tally[0 if k in differ else 1] += 1
    for kind, (bad, good) in sorted(kinds.items()):
        print(f"{kind:24} {good} equal, {bad} different")
    print(f"total: {len(keys) - len(differ)} equal, {len(differ)} different")
    for k in differ[:40]:
        print("  differs:", k)
    return 1 if differ else 0


if __name__ == "__main__":
    if sys.argv[1] == "dump":
        dump(Path(sys.argv[2]), Path(sys.argv[3]))
    else:
        sys.exit(compare(Path(sys.argv[2]), Path(sys.argv[3])))
