"""``full``: findings grouped by file, each with its source line and a caret under the column."""

from __future__ import annotations

from itertools import groupby
from typing import TextIO

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from lint.models.report import CheckReport, Finding
from lint.read.source import read_lines
from lint.report.text import passed_over, printable, summary_line

_WINDOW = 100  # characters of a long line shown around the column
_STYLES = {"error": "bold red", "warning": "yellow", "info": "cyan"}


def _console(stream: TextIO, color: bool) -> Console:
    """Styled exactly when ``--color`` says (rich would otherwise decide for itself, from the stream and NO_COLOR)."""
    return Console(file=stream, highlight=False, soft_wrap=True, force_terminal=color, no_color=not color, color_system="standard" if color else None)


def render(report: CheckReport, out: TextIO, err: TextIO) -> None:
    console = _console(out, report.color)
    formats = {f.path: f.format for f in report.files}
    for path, group in groupby(report.findings, key=lambda f: f.path or ""):
        findings = list(group)
        sources = read_lines(path, {f.line for f in findings if f.line})
        title = Text(printable(path or "<run>"), style="bold underline")
        if formats.get(path):
            title.append(f"  ({formats[path]})", style="dim")
        console.print(title)
        for finding in findings:
            _finding(console, finding, sources.get(finding.line or 0))
        console.print()
    errors = _console(err, report.color)
    for line in passed_over(report):
        errors.print(line, markup=False, style="dim")
    for error in report.summary.input_errors:
        errors.print(f"[bold red]tlint: error:[/bold red] {escape(printable(error))}", markup=True)
    for note in report.summary.withheld:
        errors.print(printable(note), markup=False, style="yellow")
    errors.print(summary_line(report), markup=False)


def _finding(console: Console, finding: Finding, source: str | None) -> None:
    head = Text("  ")
    if finding.line:
        head.append(f"{finding.line}:{finding.column or 1}", style="dim")
        head.append("  ")
    head.append(finding.code, style=_STYLES[finding.severity.value])
    head.append(f" {finding.severity.value}", style=_STYLES[finding.severity.value])
    head.append(f"  {printable(finding.message)}")
    if finding.rank is not None:
        head.append(f"  [rank {finding.rank}]", style="dim")
    head.append(f"  ({finding.name})", style="dim")
    console.print(head)
    if source is None:
        return
    column = max(finding.column or 1, 1)
    start = max(0, column - 1 - _WINDOW // 2)
    # Tabs become one space each and control characters escapes: the caret is placed by the escaped text.
    before = printable(source[start : column - 1].expandtabs(1))
    shown = before + printable(source[column - 1 : start + _WINDOW].expandtabs(1))
    prefix = "…" if start else ""
    suffix = "…" if start + _WINDOW < len(source) else ""
    gutter = f"{finding.line:>6} | "
    console.print(Text(gutter, style="dim") + Text(prefix + shown + suffix))
    caret = " " * (len(gutter) + len(prefix) + len(before)) + "^"
    console.print(Text(caret, style=_STYLES[finding.severity.value]))
