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
    out.writelines(f"{printable(line)}\n" for line in problem_lines(report))
    for change in report.changes:
        mark = " *significant*" if change.significant else "" if change.judged else " (one sample on a side: significance not judged)"
        out.write(f"{change.category} {change.kind} {printable(f'{subject(change)}: {transition(change)}')}{mark}\n")
    out.write(counts_line(report) + "\n")


def problem_lines(report: DiffReport) -> list[str]:
    """Each side's problems as `tlint check` prints them, under a line that counts them: the verdict rests on them."""
    lines = []
    for name, side in (("a", report.a), ("b", report.b)):
        if side.errors:
            more = f", the first {len(side.problems)}" if side.errors > len(side.problems) else ""
            lines.append(f"{name}: {plural(side.errors, 'error')} (`tlint check {side.path}` lists them{more}):")
            lines += [f"  {problem}" for problem in side.problems]
    return lines


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
