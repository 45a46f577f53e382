"""Run the service under uvicorn: what `calibrant serve` starts."""

from __future__ import annotations

import sys

from .app import create_app
from .security import log_config

__all__ = ["serve"]


def serve(*, host: str, port: int, max_body_bytes: int, worker: int, session_hours: float) -> None:
    """Serve the API and the workbench on `host`:`port` until Ctrl-C, every log line's
    tokens redacted."""
    import uvicorn
    from uvicorn.config import LOGGING_CONFIG

    service = create_app(max_body_bytes=max_body_bytes, worker=worker, session_hours=session_hours)
    print(f"calibrant: serving on http://{host}:{port}/ (Ctrl-C stops)", file=sys.stderr)
    uvicorn.run(
        service,
        host=host,
        port=port,
        log_level="info",
        access_log=True,
        log_config=log_config(LOGGING_CONFIG),
    )
