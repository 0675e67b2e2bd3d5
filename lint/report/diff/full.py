"""``full``: a summary panel, then one rich table per category; timing rows show both distributions."""

from __future__ import annotations

from typing import TextIO

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from lint.diff.wording import percent, signed, unit_of, value
from lint.models.diff import CATEGORIES, Change, DiffReport
from lint.report.diff.concise import counts_line, side_line
from lint.report.diff.distribution import box_bar, scale
from lint.report.text import printable

_VERDICT_STYLES = {"identical": "green", "no significant change": "yellow", "significant change": "bold red"}


def render(report: DiffReport, out: TextIO, err: TextIO) -> None:
    console = Console(file=out, highlight=False, soft_wrap=False, width=max(Console(file=out).width, 120))
    summary = report.summary
    head = Text()
    head.append(summary.verdict, style=_VERDICT_STYLES[summary.verdict])
    head.append(f"\n{printable(summary.headline)}\n\n")
    head.append(f"a: {side_line(report.a)}\nb: {side_line(report.b)}\n", style="dim")
    head.append(counts_line(report), style="dim")
    console.print(Panel(head, title="tlint diff", title_align="left"))
    for category in CATEGORIES:
        changes = [c for c in report.changes if c.category == category]
        if changes:
            console.print(_table(category, changes))


def _table(category: str, changes: list[Change]) -> Table:
    timing = category == "timing"
    table = Table(title=f"{category} ({sum(c.significant for c in changes)}/{len(changes)} significant)", title_justify="left")
    for name, justify in (("", "left"), ("key", "left"), ("field", "left"), ("before", "right"), ("after", "right"), ("Δ", "right"), ("rel", "right")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    if timing:
        table.add_column("distribution a / b (p10 ─ p25 ━ median ┃ p75 ━ p90 ─)")
        table.add_column("p", justify="right")
    for change in changes:
        unit = unit_of(change)
        mark = Text("*", style="bold red") if change.significant else Text(" ")
        row: list[Text | str | Group] = [
            Text(change.kind[0].upper()) + mark, printable(change.key), printable(change.field),
            printable(value(change.before, unit)), printable(value(change.after, unit)),
            signed(change.delta) if change.delta is not None else "", percent(change.rel_delta) if change.delta is not None else "",
        ]
        if timing:
            low, high = scale(change.spread_before, change.spread_after)
            bars = Text(box_bar(change.spread_before, low, high), style="dim") + Text("\n") + Text(box_bar(change.spread_after, low, high), style="cyan")
            row += [bars, f"{change.p_value:.2g}" if change.p_value is not None else ""]
        table.add_row(*row)
    return table
