"""The one place calibrant imports and configures litellm.

Importing this module does nothing: litellm (a multi-second import that, left to itself,
downloads a price map) is imported on the first call to :func:`get_litellm`, which also sets the
process-wide litellm options calibrant relies on and registers the embedded local judge model.
"""

from __future__ import annotations

import asyncio
import base64
import gc
import os
import threading
from types import ModuleType
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit, urlunsplit

from ..contracts.judgment import mask_url
from ..errors import ConfigError

__all__ = [
    "get_litellm",
    "endpoint_kwargs",
    "split_endpoint",
    "drain_litellm",
    "set_price",
    "configure_model",
    "is_unpriced",
]

_lock = threading.RLock()
_module: ModuleType | None = None  # imported and configured (set before registration)
_ready: ModuleType | None = None  # configured and the embedded provider registered


def get_litellm() -> ModuleType:
    """Return the ``litellm`` module, importing and configuring it on the first call.

    On the first call only: use litellm's bundled model price map instead of fetching one from
    the internet (the environment variable must be set before the import), turn off litellm's own
    retries (calibrant retries with tenacity in one place), silence litellm's "give feedback"
    banner on errors, and register the embedded provider (``calibrant-local/...``) so the offline
    judge model is always callable. Thread-safe; later calls return the cached module.

    litellm 1.110.2 has no SDK-side telemetry switch (its telemetry lives in the proxy and is off
    unless an operator opts in) and no default callbacks, so nothing else needs turning off.
    ``drop_params`` is left at its default: parameters reach the embedded handler unchanged.
    """
    global _module, _ready
    if _ready is not None:
        return _ready
    with _lock:
        if _module is None:
            os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
            import litellm

            litellm.num_retries = 0
            litellm.suppress_debug_info = True
            _install_cost_gate(litellm)
            _module = litellm
            from .embedded import register_embedded_provider

            try:
                register_embedded_provider(litellm)
            except BaseException:
                _module = None
                raise
            _ready = _module
            # what the import built (modules, the price map: ~10^5 objects) lives as long as
            # the process: out of the collector's sight, not walked again by each collection
            gc.freeze()
        return _module


_prices: dict[str, tuple[float, float]] = {}  # model -> USD per (input, output) token
_configured: dict[str, bool] = {}  # model -> litellm has no price for it (configured once)


def set_price(model: str, input_usd_per_mtok: float, output_usd_per_mtok: float) -> None:
    """The price a judge's configuration gives its model (USD per million tokens): registered
    with litellm when the model is first configured (see `configure_model`), so the cost of
    each call is litellm's computation with this price."""
    with _lock:
        _prices[model] = (input_usd_per_mtok / 1e6, output_usd_per_mtok / 1e6)
        _configured.pop(model, None)  # registered (again) before its next call


def configure_model(model: str) -> ModuleType:
    """litellm, configured for calls of `model` (once per process and model; later calls are a
    dictionary lookup).

    A price set with `set_price` is registered as the model's price (litellm computes each
    call's cost with it). A model litellm has no price for (the name a local vLLM / llama.cpp /
    Ollama server gives its model) is marked unpriced: left alone, litellm would try to price
    every call of it after the call (`response_cost_calculator`: a dozen failing price and
    model-info lookups, ~2.4 ms of CPU per call) only to find no price. Its calls now skip that
    work, and their cost is unknown (`is_unpriced`: recorded as None, never guessed as 0)."""
    litellm = get_litellm()
    if model in _configured:
        return litellm
    with _lock:
        if model in _configured:
            return litellm
        price = _prices.get(model)
        try:
            name, provider, _, _ = litellm.get_llm_provider(model=model)
        except Exception:  # litellm cannot route it: its first call says why
            _configured[model] = False
            return litellm
        unpriced = False
        if price is not None:
            entry = {
                "litellm_provider": provider,
                "mode": "chat",
                "input_cost_per_token": price[0],
                "output_cost_per_token": price[1],
                "cache_read_input_token_cost": price[0],
                "cache_creation_input_token_cost": price[0],
            }
            litellm.register_model({model: entry, f"{provider}/{name}": dict(entry)})
        else:
            try:
                info = litellm.get_model_info(model=model)
                unpriced = info.get("input_cost_per_token") is None
            except Exception:  # not in litellm's price map
                unpriced = True
        if unpriced:
            _unpriced_names.update({model, f"{provider}/{name}"})
        _configured[model] = unpriced
    return litellm


_unpriced_names: set[str] = set()  # models configure_model found unpriced, as litellm names them


def _install_cost_gate(litellm: ModuleType) -> None:
    """litellm prices a call, after it, through `litellm.response_cost_calculator` (looked up
    on the module at each call): calls of a model marked unpriced return None there at once."""
    priced = litellm.response_cost_calculator

    def response_cost_calculator(*args: Any, **kwargs: Any) -> Any:
        model, provider = kwargs.get("model"), kwargs.get("custom_llm_provider")
        if model in _unpriced_names or f"{provider}/{model}" in _unpriced_names:
            return None
        return priced(*args, **kwargs)

    litellm.response_cost_calculator = response_cost_calculator  # type: ignore[attr-defined]


def is_unpriced(model: str) -> bool:
    """True when `configure_model` found no price for `model` (its calls' cost is unknown)."""
    return _configured.get(model, False)


# query parameters that carry the one API key an endpoint wants: sent as the provider's own
# key header instead (Authorization: Bearer for OpenAI-compatible servers)
_KEY_PARAMS = frozenset(
    {"api_key", "api-key", "apikey", "key", "token", "access_token", "auth_token", "bearer"}
)


def split_endpoint(api_base: str) -> tuple[str, str | None, str | None]:
    """(the URL to give litellm, user:password for HTTP Basic or None, API key or None).

    Credentials never stay in the URL: `user:password@` becomes Basic auth, a key in the query
    (`?api_key=`, `?key=`, `?token=`, `?access_token=`) the provider's key header. A query
    litellm cannot send as a header is refused (ConfigError): the OpenAI client appends its
    path after the base URL, so `/v1?x=1` would be called as `/v1?x=1chat/completions`, with the
    query in every server and proxy log. The message never quotes a credential."""
    parts = urlsplit(api_base)
    basic = None
    if "@" in parts.netloc:
        userinfo, _, hostport = parts.netloc.rpartition("@")
        user, _, password = userinfo.partition(":")
        basic = f"{unquote(user)}:{unquote(password)}"
        parts = parts._replace(netloc=hostport)
    query = parse_qsl(parts.query, keep_blank_values=True)
    keys = [v for k, v in query if k.lower() in _KEY_PARAMS]
    others = sorted({k for k, _ in query if k.lower() not in _KEY_PARAMS})
    why = None
    if others:
        why = f"its query parameter {', '.join(repr(k) for k in others)} cannot be sent"
    elif len(keys) > 1 or (keys and basic is not None):
        why = "it carries more than one credential"
    elif keys and not keys[0]:
        why = "its key parameter is empty (an unset variable?)"
    if why is not None:
        raise ConfigError(
            f"--api-base {mask_url(api_base)}: {why} (a query in the base URL lands in front "
            "of the request path and in every log); give the base URL alone, with at most one "
            "key as ?api_key=... (sent as a header) or in the provider's variable"
        )
    return urlunsplit(parts._replace(query="", fragment="")), basic, (keys[0] if keys else None)


def endpoint_kwargs(model: str, api_base: str | None) -> dict[str, Any]:
    """litellm arguments for an explicit endpoint. Local OpenAI-compatible servers (vLLM,
    llama.cpp, Ollama) need no key, but the OpenAI client insists on one: a placeholder is
    passed only when the provider's own variable is unset. Real keys come from the provider's
    usual environment variable and are never passed, logged or stored by calibrant.

    Credentials written into the URL never travel in it (see split_endpoint): the HTTP clients
    under litellm refuse `user:password@` inside the URL (it becomes an HTTP Basic
    ``Authorization`` header) and a key in the query would end up in the path."""
    if not api_base:
        return {}
    url, basic, key = split_endpoint(api_base)
    out: dict[str, Any] = {"api_base": url}
    if basic is not None:
        pair = base64.b64encode(basic.encode()).decode()
        out["extra_headers"] = {"Authorization": f"Basic {pair}"}
    if key is not None:
        out["api_key"] = key
    elif model.startswith("openai/") and not os.environ.get("OPENAI_API_KEY"):
        out["api_key"] = "no-key-needed"
    return out


async def drain_litellm(timeout_s: float = 10.0) -> None:
    """Let litellm's background logging work finish on the running loop, then stop it, so the
    loop can close with nothing of litellm's pending ("Task was destroyed but it is pending").
    litellm keeps one logging worker per process, bound to one event loop: call this on the
    loop the model calls ran on, before closing it. Nothing to do if litellm was never used."""
    if _ready is None:
        return
    from litellm.litellm_core_utils.logging_worker import GLOBAL_LOGGING_WORKER

    try:
        await asyncio.wait_for(GLOBAL_LOGGING_WORKER.flush(), timeout_s)
    except Exception:  # logging is best effort; what matters is that nothing stays pending
        pass
    await GLOBAL_LOGGING_WORKER.stop(discard_pending=True, timeout=timeout_s)
