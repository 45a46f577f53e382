"""Package exports loaded on first use (PEP 562).

A package whose ``__init__`` imported every submodule would make any command that needs one
light helper pay for all of them: ``calibrant score`` needs the Wilson interval and an explain
text, not the numpy bootstrap code beside them, and at 100,000 transcripts its peak memory is
the budget. A package lists its exports as ``{name: submodule}`` and hands this module's
``__getattr__`` and ``__dir__`` to Python; ``from package import name`` then imports only the
submodule that defines ``name``, once."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, namespace: dict[str, Any], homes: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module-level ``__getattr__`` and ``__dir__`` for `package`, whose globals are
    `namespace`, exporting each name of `homes` from the submodule it maps to."""

    def __getattr__(name: str) -> Any:
        module = homes.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value  # the next lookup is an ordinary global
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(homes))

    return __getattr__, __dir__
