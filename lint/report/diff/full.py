"""``full``: a summary panel, then one rich table per category; timing rows show both distributions."""

from __future__ import annotations

import os
import re
from typing import TextIO

from rich.console import Console, Group, JustifyMethod
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from lint.diff.wording import UNJUDGED_LEGEND, mark, percent, signed, unit_of, value
from lint.models.categories import CATEGORIES
from lint.models.diff import Change, DiffReport
from lint.report.diff.concise import counts_line, knob_lines, problem_lines, shown, side_line
from lint.report.diff.distribution import box_bar, scale
from lint.report.text import printable

_VERDICT_STYLES = {"identical": "green", "no significant change": "yellow", "significant change": "bold red", "inconclusive": "bold magenta"}


# Of a name or value from the input, a cell or line shows at most this many characters in a row: their start
# and end, "…" between (a damaged row name may be megabytes long: rich would take minutes to wrap it, and
# no one reads it).
SHOWN_RUN = 200
_LONG_RUN = re.compile(f"\\S{{{SHOWN_RUN + 1},}}")


def _shown(text: str) -> str:
    """``text`` from the input as the report shows it: control characters escaped, long runs elided."""
    return _LONG_RUN.sub(lambda run: f"{run[0][: SHOWN_RUN // 2]}…{run[0][-SHOWN_RUN // 2 :]}", printable(text))


def _cell(text: str) -> Text:
    """A table cell of text from the input, as :func:`_shown` shows it, and plain (``[/x]`` is no markup)."""
    return Text(_shown(text))


# Rich sizes a terminal itself (and obeys COLUMNS); a file or a pipe gets room for the table's columns.
FILE_WIDTH = 120
# Narrower than this, the distribution bars would squeeze the numbers out of the timing table: left out.
BARS_WIDTH = 110


def render(report: DiffReport, out: TextIO, err: TextIO) -> None:
    measured = out.isatty() or "COLUMNS" in os.environ
    console = Console(file=out, highlight=False, soft_wrap=False, width=None if measured else FILE_WIDTH)
    summary = report.summary
    head = Text()
    head.append(summary.verdict, style=_VERDICT_STYLES[summary.verdict])
    head.append(f"\n{_shown(summary.headline)}\n\n")
    head.append(f"a: {side_line(report.a)}\nb: {side_line(report.b)}\n", style="dim")
    for line in knob_lines(report):
        head.append(f"{_shown(line)}\n")
    head.append(counts_line(report), style="dim")
    for line in problem_lines(report):
        head.append(f"\n{_shown(line)}", style="bold yellow")
    console.print(Panel(head, title="tlint diff", title_align="left"))
    listed = shown(report)
    for category in CATEGORIES:
        changes = [c for c in listed if c.category == category]
        if changes:
            console.print(_table(category, changes, bars=console.width >= BARS_WIDTH))


def _table(category: str, changes: list[Change], *, bars: bool) -> Table:
    timing = category == "timing"
    table = Table(title=f"{category} ({sum(c.significant for c in changes)}/{len(changes)} significant)", title_justify="left")
    columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("", "left"),
        ("key", "left"),
        ("field", "left"),
        ("before", "right"),
        ("after", "right"),
        ("Δ", "right"),
        ("rel", "right"),
    )
    for name, justify in columns:
        table.add_column(name, justify=justify, overflow="fold")
    if timing and bars:
        table.add_column("distribution a / b (p10 ─ p25 ━ median ┃ p75 ━ p90 ─)")
    if timing:
        table.add_column("p", justify="right")
    if not all(change.judged for change in changes):
        table.caption = UNJUDGED_LEGEND
    for change in changes:
        unit = unit_of(change)
        shown = mark(change)
        marked = Text(shown or " ", style={"*": "bold red", "?": "dim"}.get(shown, ""))
        row: list[Text | str | Group] = [
            Text(change.kind[0].upper()) + marked,
            _cell(change.key),
            _cell(change.field),
            _cell(value(change.before, unit)),
            _cell(value(change.after, unit)),
            signed(change.delta) if change.delta is not None else "",
            percent(change.rel_delta) if change.delta is not None else "",
        ]
        if timing and bars:
            low, high = scale(change.spread_before, change.spread_after)
            row.append(Text(box_bar(change.spread_before, low, high), style="dim") + Text("\n") + Text(box_bar(change.spread_after, low, high), style="cyan"))
        if timing:
            row.append(f"{change.p_value:.2g}" if change.p_value is not None else "")
        table.add_row(*row)
    return table
