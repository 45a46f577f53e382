"""The two front doors of the controlled service: an MCP server (official `mcp` SDK; streamable
HTTP at /mcp, or stdio) and a plain HTTP API described by an OpenAPI document (/openapi.json).
Both only translate: every call goes through `protocol.dispatch`, in a worker thread."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from .. import __version__
from ..domains import default_domain
from .channel import Channel, ServedTools
from .guard import TokenGate, security_settings
from .protocol import all_tools, business_tools, dispatch, trial_tools

if TYPE_CHECKING:
    from mcp.server import Server

__all__ = ["INSTRUCTIONS", "instructions", "mcp_server", "http_app", "openapi_document"]

INSTRUCTIONS = (
    "Call trial_start to get the customer's message and "
    "the trial's context; use the business tools; answer with trial_reply, which gives the next "
    "message or trial_finished; then trial_start again until all_finished. A tool answer "
    "agent_crashed means your process died there: restart from your own durable checkpoint "
    "(keyed by `session`) and call trial_start."
)


def instructions(served: ServedTools) -> str:
    """What the server tells the agent: which controlled service this is, then INSTRUCTIONS."""
    what = served.service_name or f"service ({served.title})"
    return f"calibrant's controlled {what}. {INSTRUCTIONS}"


def mcp_server(channel: Channel) -> Server[Any]:
    """A low-level MCP server whose tools are the trial's tools, with their exact schemas."""
    import anyio
    import mcp_types as types
    from mcp.server import Server

    tools = [
        types.Tool(name=t["name"], description=t["description"], input_schema=t["parameters"])
        for t in all_tools(channel.tools)
    ]

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        args = params.arguments if params.arguments is not None else {}
        answer = await anyio.to_thread.run_sync(dispatch, channel, params.name, args)
        return types.CallToolResult(
            content=[types.TextContent(text=json.dumps(answer, ensure_ascii=False))],
            structured_content=answer,
            is_error="error" in answer,
        )

    return Server(
        "calibrant-sandbox",
        version=__version__,
        instructions=instructions(channel.tools),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def openapi_document(served: ServedTools | None = None) -> dict[str, Any]:
    """OpenAPI 3.1 for the HTTP API: one POST per tool of the domain's `served` tools (the
    default domain's when None), the body being its JSON arguments."""
    served = served or ServedTools.of(default_domain())
    answer = {
        "description": "The tool's answer (errors too: an object with `error` and `message`).",
        "content": {"application/json": {"schema": {"type": "object"}}},
    }
    paths: dict[str, Any] = {}
    routes = [(f"/tools/{t['name']}", t) for t in business_tools(served)]
    routes += [(f"/trial/{t['name'].removeprefix('trial_')}", t) for t in trial_tools()]
    for route, t in routes:
        paths[route] = {
            "post": {
                "operationId": t["name"],
                "summary": t["description"],
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": t["parameters"]}},
                },
                "responses": {"200": answer},
            }
        }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": f"calibrant controlled {served.service_name}"
            if served.service_name
            else f"calibrant controlled service: {served.title}",
            "version": f"{__version__} ({served.schema_version})",
            "description": instructions(served),
        },
        "paths": paths,
    }


def http_app(channel: Channel, *, host: str, token: str) -> Any:
    """One ASGI app: MCP (streamable HTTP) at /mcp, the HTTP API at /tools/* and /trial/*; all
    behind the same Host/Origin checks, JSON bodies and the sandbox's bearer token (`guard`)."""
    import anyio
    from mcp.server.transport_security import TransportSecurityMiddleware
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    doc = openapi_document(channel.tools)
    settings = security_settings(host)
    checks = TransportSecurityMiddleware(settings)

    async def openapi(request: Request) -> JSONResponse:
        return JSONResponse(doc)

    async def call(request: Request) -> Response:
        refused = await checks.validate_request(request, is_post=True)
        if refused is not None:
            return refused
        name = request.path_params["name"]
        trial = request.url.path.startswith("/trial/")
        tool = f"trial_{name}" if trial else name
        body = (await request.body()).decode("utf-8", errors="replace")
        args: Any = body
        if trial:  # the conversation tools take decoded JSON; tools take the text
            try:
                args = json.loads(body or "{}")
            except ValueError:
                args = body
        answer = await anyio.to_thread.run_sync(dispatch, channel, tool, args)
        return JSONResponse(answer)

    routes = [
        Route("/openapi.json", openapi, methods=["GET"]),
        Route("/tools/{name:str}", call, methods=["POST"]),
        Route("/trial/{name:str}", call, methods=["POST"]),
    ]
    app = mcp_server(channel).streamable_http_app(
        streamable_http_path="/mcp",
        host=host,
        transport_security=settings,
        custom_starlette_routes=routes,
        json_response=True,
    )
    return TokenGate(app, token)
