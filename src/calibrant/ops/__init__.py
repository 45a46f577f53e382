"""Operations: each of calibrant's jobs written once, as `def <op>(store, options) -> Result`.

`store` is the process's store (`calibrant.store.Store`, opened once and closed at the end),
`options` a frozen, typed options object, the result a typed object carrying the run id and the
report. The command line, the service's jobs and the queue workers call the same operation; how
progress is shown, and how a job is cancelled, comes in as hooks."""

from __future__ import annotations

__all__: list[str] = []
