"""``concise``: the verdict and headline, the two sides with their units and knobs, one line per change,
and the counts: the whole report on standard output (or ``-o FILE``), nothing on standard error."""

from __future__ import annotations

from collections import Counter
from typing import TextIO

from lint.diff.wording import knob_table, left_out, subject, transition
from lint.models.diff import Change, DiffReport, DiffSide
from lint.report.text import plural, printable


def render(report: DiffReport, out: TextIO, err: TextIO) -> None:
    summary = report.summary
    out.write(f"{summary.verdict}: {printable(summary.headline)}\n")
    out.write(f"--- a: {side_line(report.a)}\n+++ b: {side_line(report.b)}\n")
    out.writelines(f"{printable(line)}\n" for line in knob_lines(report))
    out.writelines(f"{printable(line)}\n" for line in problem_lines(report))
    for change in shown(report):
        mark = " *significant*" if change.significant else "" if change.judged else " (one sample on a side: significance not judged)"
        cause = f" ({change.cause})" if change.cause else ""
        out.write(f"{change.category} {change.kind} {printable(f'{subject(change)}: {transition(change)}')}{mark}{cause}\n")
    out.write(counts_line(report) + "\n")


def shown(report: DiffReport) -> list[Change]:
    """The changes a text report lists: all of them with ``--all``, else those not :func:`left_out`."""
    return report.changes if report.show_all else [change for change in report.changes if left_out(change) is None]


def knob_lines(report: DiffReport) -> list[str]:
    """Both sides' knobs, aligned, ``?`` where a side does not tell."""
    return knob_table([("a", report.a.config), ("b", report.b.config)])


def problem_lines(report: DiffReport) -> list[str]:
    """Each side's problems as `tlint check` prints them, under a line that counts them: the verdict rests on them."""
    lines = []
    for name, side in (("a", report.a), ("b", report.b)):
        if side.errors:
            more = f", the first {len(side.problems)}" if side.errors > len(side.problems) else ""
            lines.append(f"{name}: {plural(side.errors, 'error')} (`tlint check {side.path}` lists {'it' if side.errors == 1 else 'them'}{more}):")
            lines += [f"  {problem}" for problem in side.problems]
    return lines


def side_line(side: DiffSide) -> str:
    units = "; ".join(f"{name}: {unit}" for name, unit in side.units.items())
    mode = f", {side.mode}" if side.mode else ""
    return f"{printable(side.path)} ({side.format}{mode}, {plural(side.files, 'file')}; {units})"


def counts_line(report: DiffReport) -> str:
    """'12 changes, 7 significant (config 3/3, structure 1/1, comm 2/3, timing 1/5); threshold 5 %, compared: full;
    3 not shown (timing, not significant 3): --all lists them.'"""
    summary = report.summary
    total = sum(count.changes for count in summary.counts.values())
    significant = sum(count.significant for count in summary.counts.values())
    per_category = ", ".join(f"{name} {count.significant}/{count.changes}" for name, count in summary.counts.items() if count.changes)
    detail = f" ({per_category})" if per_category else ""
    line = f"{plural(total, 'change')}, {significant} significant{detail}; threshold {summary.threshold_percent:g} %, compared: {summary.compared}"
    if not report.show_all:
        hidden = Counter(reason for change in report.changes if (reason := left_out(change)) is not None)
        if hidden:
            reasons = ", ".join(f"{reason} {count}" for reason, count in hidden.items())
            line += f"; {hidden.total()} not shown ({reasons}): --all lists them"
    return line + "."
