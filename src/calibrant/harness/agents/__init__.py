"""What the agents of every domain share: the usage they report and their tools' shape. Each
pack brings its own agents (`calibrant.domains.PackRuntime.make_agent`)."""

from __future__ import annotations

from .base import ToolCaller, Usage

__all__ = ["ToolCaller", "Usage"]
