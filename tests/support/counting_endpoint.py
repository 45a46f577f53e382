"""An OpenAI-compatible endpoint that counts requests per item: in its own process, or with
`in_thread=True` served by uvicorn on a thread of the test process (for a test whose subject is
not the endpoint's process: no child to start, the same HTTP on 127.0.0.1).

Each item's transcript carries a marker `item-NNNNN` in its text (see `make_items`); the server
finds it in the prompt and counts, per item, the requests that arrived and the answers it sent
(`GET /counts`). Every answer waits `--latency` seconds and is a valid judge answer built from the
request's JSON schema. Run by tests as ``python -m tests.support.counting_endpoint --port P``."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
MARK = re.compile(r"item-\d{5}")


def make_items(src: Path, out: Path, n: int) -> list[str]:
    """Write `n` distinct transcripts (copies of `src`, each with its own marker) into `out`."""
    base = json.loads(src.read_text())
    out.mkdir(parents=True, exist_ok=True)
    names = []
    for k in range(n):
        name = f"item-{k:05d}"
        doc = json.loads(json.dumps(base))
        doc["transcript_id"] = f"{base['transcript_id']}-{name}"
        doc["conversation"][0]["text"] = f"{doc['conversation'][0]['text']} (ticket {name})"
        (out / f"{name}.json").write_text(json.dumps(doc))
        names.append(name)
    return names


class ChildServer:
    """A test server run as `python -m MODULE --port P ARGS...` in its own process; ready once
    `GET /counts` answers."""

    def __init__(self, module: str, *args: str) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = int(s.getsockname()[1])
        self.base = f"http://127.0.0.1:{self.port}"
        self.url = f"{self.base}/v1"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", module, "--port", str(self.port), *args],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *sys.path])},
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                self.get_json("/counts")
                return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the test server {module} did not start") from None
                time.sleep(0.1)

    def get_json(self, path: str) -> Any:
        with urllib.request.urlopen(f"{self.base}{path}", timeout=5) as r:
            return json.load(r)

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=5)  # a request still held open is not waited for long
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def __enter__(self) -> ChildServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ThreadServer:
    """A test server's ASGI app served by uvicorn on a thread of this process; ready once it
    listens. The same interface as `ChildServer`."""

    def __init__(self, app: Any) -> None:
        import threading

        import uvicorn

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = int(s.getsockname()[1])
        self.base = f"http://127.0.0.1:{self.port}"
        self.url = f"{self.base}/v1"
        config = uvicorn.Config(
            app,
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            access_log=False,
            lifespan="off",
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the test server did not start")
            time.sleep(0.01)

    get_json = ChildServer.get_json

    def close(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)

    def __enter__(self) -> ThreadServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class CountingEndpoint:
    """The endpoint, as a child process or (`in_thread`) on a thread of this process;
    `counts()` reads what it saw."""

    def __init__(self, latency_s: float = 0.0, *, in_thread: bool = False) -> None:
        self._server: ChildServer | ThreadServer
        if in_thread:
            self._server = ThreadServer(_make_app(latency_s))
        else:
            self._server = ChildServer(
                "tests.support.counting_endpoint", "--latency", str(latency_s)
            )
        self.port, self.base, self.url = self._server.port, self._server.base, self._server.url

    def get_json(self, path: str) -> Any:
        return self._server.get_json(path)

    def counts(self) -> dict[str, Counter[str]]:
        """{"requests": Counter(item -> n), "answered": Counter(item -> n)}"""
        doc = self.get_json("/counts")
        return {k: Counter(v) for k, v in doc.items()}

    def close(self) -> None:
        self._server.close()

    def __enter__(self) -> CountingEndpoint:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _make_app(latency_s: float) -> Any:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    from tests.support.fake_openai import _completion, answer_from_schema

    requests: Counter[str] = Counter()
    answered: Counter[str] = Counter()
    answer = answer_from_schema(lambda c, labels: labels[0])

    async def chat(request: Request) -> JSONResponse:
        body = await request.json()
        text = " ".join(str(m.get("content") or "") for m in body.get("messages") or [])
        found = MARK.search(text)
        item = found.group(0) if found else "unmarked"
        requests[item] += 1
        await asyncio.sleep(latency_s)
        model = str(body.get("model", ""))
        if model in ("always-401", "always-403"):
            code = 401 if model == "always-401" else 403
            return JSONResponse(
                {
                    "error": {
                        "message": "Incorrect API key provided",
                        "type": "invalid_request_error",
                        "code": "invalid_api_key",
                    }
                },
                status_code=code,
            )
        response = JSONResponse(_completion(model, answer(body)))
        answered[item] += 1
        return response

    async def counts(request: Request) -> JSONResponse:
        return JSONResponse({"requests": dict(requests), "answered": dict(answered)})

    return Starlette(
        routes=[
            Route("/v1/chat/completions", chat, methods=["POST"]),
            Route("/counts", counts, methods=["GET"]),
        ]
    )


def main() -> None:
    import uvicorn

    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--latency", type=float, default=0.0)
    args = ap.parse_args()
    uvicorn.run(
        _make_app(args.latency),
        host="127.0.0.1",
        port=args.port,
        log_level="warning",
        access_log=False,
        lifespan="off",
    )


if __name__ == "__main__":
    main()
