"""A path a request names on the server: taken relative to the service's data root
(CALIBRANT_DATA_ROOT, default the working directory) and, links resolved, kept inside it. Below
every module that reads files for a request (`job_inputs`, `catalog`): it imports none of them."""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError
from ..paths import inside
from ..settings import get_settings

__all__ = ["server_path"]


def server_path(value: str, field: str, *, where: str = "params") -> Path:
    """The path a request names on the server (`value`, the parameter `field` of `where`):
    relative to the data root (CALIBRANT_DATA_ROOT), an absolute one as given; either must lead,
    links and '..' resolved, inside the data root (a 422 naming the parameter otherwise)."""
    root = get_settings().data_root
    path = root / value
    if not inside(root, path):
        raise InputError(
            where,
            f"{value}: outside the service's data root (CALIBRANT_DATA_ROOT); name a file or "
            "folder inside it",
            field=field,
        )
    return path
