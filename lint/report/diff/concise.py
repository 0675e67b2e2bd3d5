"""``concise``: the headline, the two sides with their units, then one line per change."""

from __future__ import annotations

from typing import TextIO

from lint.diff.wording import subject, transition
from lint.models.diff import DiffReport, DiffSide
from lint.report.text import plural, printable


def render(report: DiffReport, out: TextIO, err: TextIO) -> None:
    summary = report.summary
    headline = printable(summary.headline)
    out.write(f"{summary.verdict}: {headline}\n" if summary.verdict != "identical" else f"{headline}\n")
    out.write(f"--- a: {side_line(report.a)}\n+++ b: {side_line(report.b)}\n")
    for change in report.changes:
        mark = " *significant*" if change.significant else "" if change.judged else " (one sample on a side: significance not judged)"
        out.write(f"{change.category} {change.kind} {printable(f'{subject(change)}: {transition(change)}')}{mark}\n")
    err.writelines(f"warning: {printable(line)}\n" for line in broken_input(report))
    err.write(counts_line(report) + "\n")


def broken_input(report: DiffReport) -> list[str]:
    """One warning per side with syntax errors: what is compared is what could be read, not the run."""
    warnings = []
    for name, side in (("a", report.a), ("b", report.b)):
        if side.broken:
            shown = "; ".join(side.broken[:3]) + (f"; and {len(side.broken) - 3} more files" if len(side.broken) > 3 else "")
            warnings.append(f"{name} has syntax errors ({shown}): the comparison is built on broken input; `tlint check` reports them")
    return warnings


def side_line(side: DiffSide) -> str:
    units = "; ".join(f"{name}: {unit}" for name, unit in side.units.items())
    return f"{printable(side.path)} ({side.format}, {plural(side.files, 'file')}; {units})"


def counts_line(report: DiffReport) -> str:
    """'12 changes, 7 significant (config 3/3, structure 1/1, comm 2/3, timing 1/5); threshold 5 %, compared in full.'"""
    summary = report.summary
    total = sum(count.changes for count in summary.counts.values())
    significant = sum(count.significant for count in summary.counts.values())
    per_category = ", ".join(f"{name} {count.significant}/{count.changes}" for name, count in summary.counts.items() if count.changes)
    detail = f" ({per_category})" if per_category else ""
    return f"{plural(total, 'change')}, {significant} significant{detail}; threshold {summary.threshold_percent:g} %, compared: {summary.compared}."
