"""A real OpenAI-compatible HTTP server on 127.0.0.1, started by tests, whose behaviour is picked
by the model name: ok, 429, 500, slow, malformed, refusal, flaky (429 then 500 then ok)..."""

from __future__ import annotations

import asyncio
import base64
import json
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

Answer = Callable[[dict[str, Any]], "str | dict[str, Any]"]


@dataclass
class FakeServer:
    """State shared with the test: what arrived, and how to answer."""

    answer: Answer
    latency_s: float = 0.0
    requests: Counter[str] = field(default_factory=Counter)
    bodies: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)  # path and query of each request, as sent
    raw: list[bytes] = field(default_factory=list)  # each request body, as sent
    url: str = ""


def _completion(model: str, content: str, *, refusal: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": content, "refusal": refusal},
            }
        ],
        "usage": {
            "prompt_tokens": 100,
            "completion_tokens": 20,
            "total_tokens": 120,
            "prompt_tokens_details": {"cached_tokens": 64},
        },
    }


def _path(request: Request) -> str:
    return request.url.path + (f"?{request.url.query}" if request.url.query else "")


def make_app(state: FakeServer) -> FastAPI:
    app = FastAPI()

    @app.post("/v1/chat/completions")
    @app.post("/chat/completions")
    async def chat(request: Request) -> JSONResponse:
        state.raw.append(await request.body())
        state.paths.append(_path(request))
        body = await request.json()
        model = str(body.get("model", ""))
        state.requests[model] += 1
        state.bodies.append(body)
        state.headers.append(dict(request.headers))
        n = state.requests[model]
        if state.latency_s:
            await asyncio.sleep(state.latency_s)
        if model == "always-429":
            return JSONResponse(
                {"error": {"message": "slow down", "type": "rate_limit"}},
                status_code=429,
                headers={"retry-after": "0.05"},
            )
        if model == "always-500":
            return JSONResponse(
                {"error": {"message": "boom", "type": "server_error"}}, status_code=500
            )
        if model in ("always-401", "always-403"):
            return JSONResponse(
                {
                    "error": {
                        "message": "Incorrect API key provided",
                        "type": "invalid_request_error",
                    }
                },
                status_code=401 if model == "always-401" else 403,
            )
        if model == "echo-auth":  # an upstream whose error quotes the URL and credentials
            auth = request.headers.get("authorization", "")
            who = base64.b64decode(auth[6:]).decode() if auth.startswith("Basic ") else "-"
            return JSONResponse(
                {
                    "error": {
                        "message": f"upstream http://{who}@llm.internal:8000/v1 refused "
                        f"user {who.split(':')[0]}",
                        "type": "invalid_request",
                    }
                },
                status_code=400,
            )
        if model == "bad-request":
            return JSONResponse(
                {"error": {"message": "bad schema", "type": "invalid_request"}}, status_code=400
            )
        if model == "slow":
            await asyncio.sleep(5)
        if model == "flaky" and n <= 2:
            code = 429 if n == 1 else 503
            return JSONResponse(
                {"error": {"message": f"flaky {code}"}},
                status_code=code,
                headers={"retry-after-ms": "20"},
            )
        if model == "malformed":
            return JSONResponse(_completion(model, '{"separates_done_from_pending": {"lab'))
        if model == "refusal":
            return JSONResponse(_completion(model, "", refusal="I can't help with that."))
        answer = state.answer(body)
        if isinstance(answer, dict):  # a full assistant message, e.g. with tool_calls
            out = _completion(model, "")
            out["choices"][0]["message"] = {"role": "assistant", **answer}
            if answer.get("tool_calls"):
                out["choices"][0]["finish_reason"] = "tool_calls"
            return JSONResponse(out)
        return JSONResponse(_completion(model, answer))

    @app.post("/{rest:path}")
    async def elsewhere(request: Request) -> JSONResponse:
        """A request to any other path (e.g. a URL mangled by a query string): recorded, 404."""
        state.raw.append(await request.body())
        state.paths.append(_path(request))
        state.headers.append(dict(request.headers))
        return JSONResponse({"error": {"message": "no such route"}}, status_code=404)

    return app


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def fake_openai(answer: Answer, *, latency_s: float = 0.0) -> Iterator[FakeServer]:
    """Run the server in a background thread for the duration of the block."""
    state = FakeServer(answer=answer, latency_s=latency_s)
    port = _free_port()
    config = uvicorn.Config(
        make_app(state),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        lifespan="off",
        access_log=False,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.time() + 10
    while not server.started:
        if time.time() > deadline:
            raise RuntimeError("fake OpenAI server did not start")
        time.sleep(0.02)
    state.url = f"http://127.0.0.1:{port}/v1"
    try:
        yield state
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def answer_from_schema(label_for: Callable[[str, list[Any]], Any]) -> Answer:
    """An answer built from the response_format schema the client sent: label_for(criterion,
    allowed labels) picks each label; cites the first evidence id."""

    def answer(body: dict[str, Any]) -> str:
        fmt = body.get("response_format") or {}
        schema = (fmt.get("json_schema") or {}).get("schema") or fmt.get("schema") or {}
        out = {}
        for crit, spec in schema.get("properties", {}).items():
            props = spec["properties"]
            ids = props["evidence"]["items"].get("enum") or []
            out[crit] = {
                "rationale": f"fake rationale for {crit}",
                "evidence": ids[:1],
                "label": label_for(crit, props["label"]["enum"]),
            }
        return json.dumps(out)

    return answer
