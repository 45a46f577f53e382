"""Two experts label a workbench queue through the HTTP API, as the README's after-release step
has them do in the workbench between `audit` and `agreement-over-time`.

    python tour_experts.py URL QUEUE RUBRIC   (tokens in $EXPERT_1 and $EXPERT_2)

Each expert labels every item of the queue on every criterion of the rubric: a level picked
from the item's alias and the criterion, the same for both experts except on one criterion in
five for the second (experts disagree a little). Prints how many items each labeled; exits 1
when the queue is empty or a call fails."""

from __future__ import annotations

import json
import os
import sys
import urllib.parse
import urllib.request
import zlib
from typing import Any

import yaml


def call(url: str, token: str, body: dict[str, Any] | None = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method="POST" if data else "GET")
    req.add_header("Authorization", f"Bearer {token}")
    if data:
        req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def main(base: str, queue: str, rubric_path: str) -> int:
    rubric = yaml.safe_load(open(rubric_path))
    levels = {c["id"]: [lv["value"] for lv in c["scale"]["levels"]] for c in rubric["criteria"]}
    for n, name in enumerate(("EXPERT_1", "EXPERT_2")):
        token = os.environ[name]
        q = urllib.parse.quote(queue)
        items = call(f"{base}/api/items?queue={q}", token)
        if not items:
            print(f"queue {queue} has no item", file=sys.stderr)
            return 1
        for item in items:
            labels = []
            for i, (crit, values) in enumerate(levels.items()):
                seed = zlib.crc32(f"{item['alias']}:{crit}".encode())
                seed += n * (seed % 5 == i % 5)  # the second expert differs now and then
                labels.append({"criterion": crit, "label": str(values[seed % len(values)])})
            call(f"{base}/api/labels", token, {"item": item["id"], "labels": labels})
        print(f"{name}: labeled {len(items)} items of queue {queue}")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
