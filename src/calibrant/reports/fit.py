"""Tables that wrap, never cut: every word of every cell stays whole at any terminal width.

rich shrinks a table that is too wide by narrowing its widest columns, and then cuts the words
that no longer fit (`confirmati…`) or folds them mid-word (`insufficie/nt_evidenc/e`). `fit`
gives each column at least its longest word and shares what is left by how much each column
would like; when even the longest words side by side do not fit, the rows are printed one
field per line instead of as a table."""

from __future__ import annotations

from rich.console import Console, Group, RenderableType
from rich.measure import Measurement
from rich.table import Column, Table
from rich.text import Text

__all__ = ["fit"]


def _span(console: Console, column: Column) -> tuple[int, int]:
    """(longest word, longest line) over the column's header and cells."""
    options = console.options.update_width(10_000)
    low = high = 0
    for cell in (column.header, *column.cells):
        m = Measurement.get(console, options, cell)
        low, high = max(low, m.minimum), max(high, m.maximum)
    return low, high


def _overhead(table: Table) -> int:
    """Columns' padding and the borders between and around them."""
    n = len(table.columns)
    _, right, _, left = table.padding
    pads = n * (left + right) - (0 if table.pad_edge else left + right)
    borders = 0 if table.box is None else (n + 1 if table.show_edge else n - 1)
    return pads + borders


def _share(low: list[int], high: list[int], room: int) -> list[int]:
    """Widths from `low` up, `room` in all, each column given a share of what is left in
    proportion to how much more it would like (never more than it would like)."""
    widths = list(low)
    spare = room - sum(low)
    want = [h - lo for lo, h in zip(low, high, strict=True)]
    total = sum(want)
    if total:
        for i, w in enumerate(want):
            widths[i] += spare * w // total
    spare = room - sum(widths)
    for i in sorted(range(len(widths)), key=lambda i: widths[i] - high[i]):
        if spare <= 0:
            break
        if widths[i] < high[i]:
            widths[i] += 1
            spare -= 1
    return widths


def _rows(console: Console, table: Table) -> Group:
    """The table as records, one `header: value` line per field, a blank line between rows."""
    parts: list[RenderableType] = []
    if table.title:
        title = table.title
        parts.append(console.render_str(title, style="italic") if isinstance(title, str) else title)
    cells = [list(c.cells) for c in table.columns]
    for n in range(table.row_count):
        if n:
            parts.append(Text(""))
        for column, column_cells in zip(table.columns, cells, strict=True):
            cell = column_cells[n]
            header = column.header if isinstance(column.header, str) else ""
            value = console.render_str(cell) if isinstance(cell, str) else Text(str(cell))
            name = Text(f"{header}:" if header else "", style="bold")
            if "\n" in value.plain:  # several lines: each on its own, indented under the name
                parts.append(name)
                parts += [Text.assemble("  ", line) for line in value.split("\n")]
            else:
                parts.append(Text.assemble(name, " " if header else "", value))
    return Group(*parts)


def fit(console: Console, table: Table) -> RenderableType:
    """`table`, its columns sized so that no word is cut at the console's width, or its rows as
    records when the longest words side by side are wider than the console."""
    if not table.columns:
        return table
    room = (table.width or console.width) - _overhead(table)
    spans = [_span(console, c) for c in table.columns]
    low, high = [s[0] for s in spans], [s[1] for s in spans]
    if sum(high) <= room:
        for column in table.columns:  # it fits as it is: nothing is wrapped, nothing is cut
            column.no_wrap, column.overflow = False, "fold"
        return table
    if sum(low) > room:
        return _rows(console, table)
    for column, width in zip(table.columns, _share(low, high, room), strict=True):
        column.width, column.no_wrap, column.overflow = width, False, "fold"
    return table
