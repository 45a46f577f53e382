"""An OpenAI-compatible files + batches API in its own process, for `calibrant batch submit`.

Routes: ``POST /v1/files`` (multipart upload), ``GET /v1/files/{id}``,
``GET /v1/files/{id}/content``, ``POST /v1/batches``, ``GET /v1/batches/{id}``,
``GET /v1/batches`` (list, newest first), ``POST /v1/chat/completions`` (the live endpoint,
counted so a test can show it was never called) and ``GET /counts`` (what arrived).

A batch is validated, then runs in the background: one request line every ``--line-latency``
seconds, answered with a valid judge answer built from the line's JSON schema (the first allowed
label). A line whose prompt names an item listed in ``--fail-items`` gets an error result in the
batch's error file (status 500); ``--expire-after N`` makes the batch expire after N lines (the
rest have no result). With ``--api-key K`` every request must carry ``Authorization: Bearer K``
(else 401); ``--create-delay S`` answers ``POST /v1/batches`` S seconds after creating the batch
(a client killed meanwhile never learns its id).

Run by tests as ``python -m tests.support.fake_batch_server --port P``, or with
``BatchServer(..., in_thread=True)`` on a thread of the test process (the same options)."""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from tests.support.counting_endpoint import ChildServer, ThreadServer

MARK = re.compile(r"item-\d{5}")


class BatchServer:
    """The server as a child process, or (`in_thread`) on a thread of this process; `counts()`
    reads what it saw."""

    def __init__(self, *args: str, in_thread: bool = False) -> None:
        self._server: ChildServer | ThreadServer
        if in_thread:
            self._server = ThreadServer(make_app(_state(["--port", "0", *args])[1]))
        else:
            self._server = ChildServer("tests.support.fake_batch_server", *args)
        self.port, self.base, self.url = self._server.port, self._server.base, self._server.url

    def get_json(self, path: str) -> Any:
        return self._server.get_json(path)

    def counts(self) -> dict[str, Any]:
        """{"counts": {files_created, batches_created, completions, ...}, "lines_run": {...}}"""
        doc: dict[str, Any] = self.get_json("/counts")
        return doc

    def close(self) -> None:
        self._server.close()

    def __enter__(self) -> BatchServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class State:
    line_latency_s: float
    fail_items: set[str]
    expire_after: int | None
    api_key: str | None
    create_delay_s: float = 0.0
    files: dict[str, dict[str, Any]] = field(default_factory=dict)
    contents: dict[str, bytes] = field(default_factory=dict)
    batches: dict[str, dict[str, Any]] = field(default_factory=dict)
    counts: Counter[str] = field(default_factory=Counter)
    lines_run: Counter[str] = field(default_factory=Counter)  # item -> times a batch ran it


def _multipart_file(body: bytes, content_type: str) -> tuple[bytes, str, str]:
    """(file bytes, file name, purpose) of a multipart/form-data upload."""
    boundary = content_type.split("boundary=", 1)[1].strip('"').encode()
    data, name, purpose = b"", "upload.jsonl", ""
    for part in body.split(b"--" + boundary):
        head, sep, payload = part.partition(b"\r\n\r\n")
        if not sep:
            continue
        payload = payload.removesuffix(b"\r\n")
        if b'name="file"' in head:
            data = payload
            found = re.search(rb'filename="([^"]*)"', head)
            if found:
                name = found.group(1).decode()
        elif b'name="purpose"' in head:
            purpose = payload.decode()
    return data, name, purpose


def _file_object(file_id: str, name: str, size: int, purpose: str) -> dict[str, Any]:
    return {
        "id": file_id,
        "object": "file",
        "bytes": size,
        "created_at": int(time.time()),
        "filename": name,
        "purpose": purpose,
        "status": "processed",
    }


def make_app(state: State) -> Any:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    from tests.support.fake_openai import _completion, answer_from_schema

    answer = answer_from_schema(lambda c, labels: labels[0])

    def refused(request: Request) -> JSONResponse | None:
        if state.api_key is None:
            return None
        if request.headers.get("authorization") == f"Bearer {state.api_key}":
            return None
        state.counts["refused"] += 1
        return JSONResponse(
            {
                "error": {
                    "message": "Incorrect API key provided",
                    "type": "invalid_request_error",
                    "code": "invalid_api_key",
                }
            },
            status_code=401,
        )

    def store_file(data: bytes, name: str, purpose: str) -> dict[str, Any]:
        file_id = f"file-{uuid.uuid4().hex[:16]}"
        state.files[file_id] = _file_object(file_id, name, len(data), purpose)
        state.contents[file_id] = data
        return state.files[file_id]

    async def run_batch(batch: dict[str, Any]) -> None:
        lines = [json.loads(x) for x in state.contents[batch["input_file_id"]].splitlines() if x]
        batch["request_counts"]["total"] = len(lines)
        await asyncio.sleep(state.line_latency_s)
        batch["status"] = "in_progress"
        batch["in_progress_at"] = int(time.time())
        out, errors = [], []
        for n, line in enumerate(lines):
            if state.expire_after is not None and n >= state.expire_after:
                batch["status"] = "expired"
                batch["expired_at"] = int(time.time())
                break
            await asyncio.sleep(state.line_latency_s)
            body = line["body"]
            text = " ".join(str(m.get("content") or "") for m in body.get("messages") or [])
            found = MARK.search(text)
            item = found.group(0) if found else "unmarked"
            state.lines_run[item] += 1
            if item in state.fail_items:
                errors.append(
                    {
                        "id": f"batch_req_{n}",
                        "custom_id": line["custom_id"],
                        "response": {
                            "status_code": 500,
                            "request_id": f"req_{n}",
                            "body": {"error": {"message": "worker lost", "type": "server_error"}},
                        },
                        "error": None,
                    }
                )
                batch["request_counts"]["failed"] += 1
                continue
            out.append(
                {
                    "id": f"batch_req_{n}",
                    "custom_id": line["custom_id"],
                    "response": {
                        "status_code": 200,
                        "request_id": f"req_{n}",
                        "body": _completion(str(body.get("model")), answer(body)),
                    },
                    "error": None,
                }
            )
            batch["request_counts"]["completed"] += 1
        for key, rows in (("output_file_id", out), ("error_file_id", errors)):
            if rows:
                data = "".join(json.dumps(r) + "\n" for r in rows).encode()
                batch[key] = store_file(data, f"{batch['id']}_{key}.jsonl", "batch_output")["id"]
        if batch["status"] == "in_progress":
            batch["status"] = "completed"
            batch["completed_at"] = int(time.time())

    async def create_file(request: Request) -> JSONResponse:
        if (no := refused(request)) is not None:
            return no
        data, name, purpose = _multipart_file(await request.body(), request.headers["content-type"])
        state.counts["files_created"] += 1
        return JSONResponse(store_file(data, name, purpose))

    async def get_file(request: Request) -> Response:
        if (no := refused(request)) is not None:
            return no
        file_id = request.path_params["file_id"]
        if file_id not in state.files:
            return JSONResponse({"error": {"message": "no such file"}}, status_code=404)
        if request.url.path.endswith("/content"):
            state.counts["downloads"] += 1
            return Response(state.contents[file_id], media_type="application/octet-stream")
        return JSONResponse(state.files[file_id])

    async def create_batch(request: Request) -> JSONResponse:
        if (no := refused(request)) is not None:
            return no
        req = await request.json()
        if req.get("input_file_id") not in state.files:
            return JSONResponse({"error": {"message": "no such input file"}}, status_code=400)
        state.counts["batches_created"] += 1
        batch_id = f"batch_{uuid.uuid4().hex[:16]}"
        batch = {
            "id": batch_id,
            "object": "batch",
            "endpoint": req["endpoint"],
            "errors": None,
            "input_file_id": req["input_file_id"],
            "completion_window": req["completion_window"],
            "status": "validating",
            "output_file_id": None,
            "error_file_id": None,
            "created_at": int(time.time()),
            "in_progress_at": None,
            "expires_at": int(time.time()) + 86400,
            "completed_at": None,
            "failed_at": None,
            "expired_at": None,
            "request_counts": {"total": 0, "completed": 0, "failed": 0},
            "metadata": req.get("metadata"),
        }
        state.batches[batch_id] = batch
        batch["_task"] = asyncio.get_running_loop().create_task(run_batch(batch))
        await asyncio.sleep(state.create_delay_s)  # created, not yet acknowledged
        return JSONResponse(_public(batch))

    async def get_batch(request: Request) -> JSONResponse:
        if (no := refused(request)) is not None:
            return no
        state.counts["retrieves"] += 1
        batch = state.batches.get(request.path_params["batch_id"])
        if batch is None:
            return JSONResponse({"error": {"message": "no such batch"}}, status_code=404)
        return JSONResponse(_public(batch))

    async def list_batches(request: Request) -> JSONResponse:
        if (no := refused(request)) is not None:
            return no
        state.counts["lists"] += 1
        rows = sorted(state.batches.values(), key=lambda b: b["created_at"], reverse=True)
        data = [_public(b) for b in rows]
        return JSONResponse({"object": "list", "data": data, "has_more": False})

    async def chat(request: Request) -> JSONResponse:
        state.counts["completions"] += 1
        body = await request.json()
        return JSONResponse(_completion(str(body.get("model")), answer(body)))

    async def counts(request: Request) -> JSONResponse:
        return JSONResponse({"counts": dict(state.counts), "lines_run": dict(state.lines_run)})

    return Starlette(
        routes=[
            Route("/v1/files", create_file, methods=["POST"]),
            Route("/v1/files/{file_id}", get_file, methods=["GET"]),
            Route("/v1/files/{file_id}/content", get_file, methods=["GET"]),
            Route("/v1/batches", create_batch, methods=["POST"]),
            Route("/v1/batches", list_batches, methods=["GET"]),
            Route("/v1/batches/{batch_id}", get_batch, methods=["GET"]),
            Route("/v1/chat/completions", chat, methods=["POST"]),
            Route("/counts", counts, methods=["GET"]),
        ]
    )


def _public(batch: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in batch.items() if not k.startswith("_")}


def _state(argv: list[str]) -> tuple[int, State]:
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--line-latency", type=float, default=0.05)
    ap.add_argument("--fail-items", default="", help="comma-separated item markers")
    ap.add_argument("--expire-after", type=int, default=None)
    ap.add_argument("--api-key", default=None)
    ap.add_argument("--create-delay", type=float, default=0.0)
    args = ap.parse_args(argv)
    state = State(
        line_latency_s=args.line_latency,
        fail_items={x for x in args.fail_items.split(",") if x},
        expire_after=args.expire_after,
        api_key=args.api_key,
        create_delay_s=args.create_delay,
    )
    return args.port, state


def main() -> None:
    import sys

    import uvicorn

    port, state = _state(sys.argv[1:])
    uvicorn.run(
        make_app(state),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        access_log=False,
        lifespan="off",
    )


if __name__ == "__main__":
    main()
