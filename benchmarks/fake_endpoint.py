"""A minimal OpenAI-compatible chat-completions endpoint with a fixed latency, for benchmarks.

Run it as its own process so the client's CPU can be measured apart from the server's::

    python benchmarks/fake_endpoint.py --port 8765 --latency 1.0

``POST /v1/chat/completions`` waits ``latency`` seconds (``asyncio.sleep``: many requests wait
at once, nothing blocks the loop), then answers with a valid judge answer built from the
request's ``response_format`` JSON schema: for each criterion, a short rationale, the first
allowed evidence id, and the first allowed label; ``usage`` is filled. ``GET /stats`` reports
how many requests arrived, how many were in flight at most, and the server's own CPU seconds;
``GET /trace`` lists each request's (arrived, answered) times since the last ``POST /reset``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import time
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route


def judge_answer(body: dict[str, Any]) -> str:
    """A JSON answer that satisfies the judge schema sent in ``response_format``."""
    fmt = body.get("response_format") or {}
    schema = (fmt.get("json_schema") or {}).get("schema") or fmt.get("schema") or {}
    answer: dict[str, Any] = {}
    for name, spec in (schema.get("properties") or {}).items():
        fields = spec.get("properties") or {}
        allowed_ids = ((fields.get("evidence") or {}).get("items") or {}).get("enum") or []
        max_items = (fields.get("evidence") or {}).get("maxItems", 1)
        labels = (fields.get("label") or {}).get("enum") or ["pass"]
        answer[name] = {
            "rationale": f"benchmark answer for {name}",
            "evidence": allowed_ids[: min(1, max_items)],
            "label": labels[0],
        }
    return json.dumps(answer)


class Stats:
    def __init__(self) -> None:
        self.requests = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.first_at: float | None = None  # time.time() of the first request since a reset
        self.last_at: float | None = None  # and of the last answer sent
        self.spans: list[tuple[float, float]] = []  # (arrived, answered) per request: /trace


def make_app(latency_s: float, jitter_s: float = 0.0) -> Starlette:
    stats = Stats()
    rng = random.Random(0)

    async def chat(request: Request) -> JSONResponse:
        arrived = time.time()
        stats.requests += 1
        if stats.first_at is None:
            stats.first_at = time.time()
        stats.in_flight += 1
        stats.max_in_flight = max(stats.max_in_flight, stats.in_flight)
        try:
            body = await request.json()
            await asyncio.sleep(latency_s + (rng.uniform(-jitter_s, jitter_s) if jitter_s else 0.0))
            content = judge_answer(body)
        finally:
            stats.in_flight -= 1
        stats.last_at = time.time()
        stats.spans.append((arrived, stats.last_at))
        prompt_chars = sum(len(str(m.get("content") or "")) for m in body.get("messages") or [])
        prompt_tokens = max(1, prompt_chars // 4)
        completion_tokens = max(1, len(content) // 4)
        return JSONResponse(
            {
                "id": f"chatcmpl-bench-{stats.requests}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": str(body.get("model", "bench")),
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": content},
                    }
                ],
                "usage": {
                    "prompt_tokens": prompt_tokens,
                    "completion_tokens": completion_tokens,
                    "total_tokens": prompt_tokens + completion_tokens,
                    "prompt_tokens_details": {"cached_tokens": 0},
                },
            }
        )

    async def get_stats(request: Request) -> JSONResponse:
        return JSONResponse(
            {
                "requests": stats.requests,
                "in_flight": stats.in_flight,
                "max_in_flight": stats.max_in_flight,
                "cpu_s": time.process_time(),
                "first_at": stats.first_at,
                "last_at": stats.last_at,
            }
        )

    async def trace(request: Request) -> JSONResponse:
        return JSONResponse({"spans": stats.spans})

    async def reset(request: Request) -> JSONResponse:
        stats.spans = []
        stats.requests = 0
        stats.max_in_flight = stats.in_flight
        stats.first_at = stats.last_at = None
        return JSONResponse({"ok": True})

    return Starlette(
        routes=[
            Route("/v1/chat/completions", chat, methods=["POST"]),
            Route("/chat/completions", chat, methods=["POST"]),
            Route("/stats", get_stats, methods=["GET"]),
            Route("/trace", trace, methods=["GET"]),
            Route("/reset", reset, methods=["POST"]),
        ]
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--latency", type=float, default=1.0, help="seconds per request")
    ap.add_argument("--jitter", type=float, default=0.0, help="+/- uniform seconds (default 0)")
    args = ap.parse_args()
    uvicorn.run(
        make_app(args.latency, args.jitter),
        host=args.host,
        port=args.port,
        log_level="warning",
        access_log=False,
        lifespan="off",
        backlog=4096,
    )


if __name__ == "__main__":
    main()
