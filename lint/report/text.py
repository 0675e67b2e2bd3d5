"""Wording shared by the human-readable reporters."""

from __future__ import annotations

import os
import re
from collections import Counter
from typing import TextIO

from lint.models.report import CheckReport, Finding

# Control characters (C0, DEL, C1) and the bidirectional overrides: text from a file that would drive the
# terminal or CI log it is shown in (an ESC sequence recolours or moves the cursor; an override reorders).
# A pattern compiled when a text first holds one: all of them are unprintable to str.isprintable.
_UNPRINTABLE = "[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]"
_ESCAPES = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def printable(text: str) -> str:
    """``text`` with its control characters shown as escapes (``\\x1b``, ``\\t``), as Python's repr shows them."""
    return text if text.isprintable() else re.sub(_UNPRINTABLE, _escape, text)


def _escape(match: re.Match[str]) -> str:
    character = match.group()
    return _ESCAPES.get(character) or (f"\\x{ord(character):02x}" if ord(character) < 0x100 else f"\\u{ord(character):04x}")


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    return f"{count:,} " + (noun if count == 1 else nouns or noun + "s")


def summary_line(report: CheckReport) -> str:
    """'Checked 12 files (2 of no known format skipped): 3 errors, 1 warning.'"""
    s = report.summary
    head = f"Checked {plural(s.checked, 'file')}"
    passed = [f"{len(s.skipped):,} of no known format skipped"] if s.skipped else []
    if s.not_followed:
        passed.append(f"{plural(len(s.not_followed), 'link')} out of the walked directory not followed")
    if passed:
        head += f" ({'; '.join(passed)}{'' if report.verbose else '; --verbose lists them'})"
    if not s.findings:
        counts = "no findings"
    else:
        counts = ", ".join(plural(n, noun) for n, noun in ((s.errors, "error"), (s.warnings, "warning"), (s.infos, "info")) if n)
    line = f"{head}: {counts}."
    if s.baseline_suppressed is not None:
        line += f" {plural(s.baseline_suppressed, 'finding')} suppressed by the baseline"
        line += f", {plural(s.baseline_stale or 0, 'baseline entry', 'baseline entries')} no longer matched."
    hidden = sum(s.not_shown.values())
    if hidden:
        line += f" {plural(hidden, 'more finding')} not shown (--max-findings)."
    judged = Counter(result.consumer for result in report.files if result.consumer is not None)
    if judged:  # the verdicts are these programs' (lint.models.consumers): say so where a file passes too
        line += " Judged for " + ", ".join(f"{consumer} ({plural(count, 'file')})" for consumer, count in sorted(judged.items())) + "."
    return line


def location(path: str | None, line: int | None, column: int | None) -> str:
    parts = [printable(path or "<run>")]
    if line:
        parts.append(str(line))
        parts.append(str(column or 1))
    return ":".join(parts)


def statistics_lines(report: CheckReport) -> list[str]:
    """'  12  TL102  op-time-travel  error', most frequent first."""
    stats = report.statistics or []
    width = max((len(f"{s.count:,}") for s in stats), default=1)
    return [f"{s.count:>{width},}  {s.code}  {s.name}  {s.severity.value}" for s in stats]


def finding_message(finding: Finding) -> str:
    """The message, naming the rank when no line does (run findings are about a rank, not a line)."""
    rank = f" [rank {finding.rank}]" if finding.rank is not None and finding.line is None else ""
    return printable(finding.message) + rank


SKIPPED_NOTE = "skipped: of no known format, or documentation or source code by its name (use --trace-format to force one)"
NOT_FOLLOWED_NOTE = "not followed: a symbolic link out of the walked directory (name it to check it)"


def passed_over(report: CheckReport) -> list[str]:
    """With --verbose, a line for each file a check passed over: files of no known format, links not followed."""
    if not report.verbose:
        return []
    return [f"{printable(path)}: {SKIPPED_NOTE}" for path in report.summary.skipped] + [
        f"{printable(path)}: {NOT_FOLLOWED_NOTE}" for path in report.summary.not_followed
    ]


def write_notes(report: CheckReport, err: TextIO) -> None:
    """What the plain-text reporters say on stderr after the findings: passed-over files (--verbose), input
    errors, summary."""
    err.writelines(f"{line}\n" for line in passed_over(report))
    for error in report.summary.input_errors:
        err.write(f"{paint('tlint: error:', ERROR_STYLE, report.color)} {printable(error)}\n")
    err.writelines(f"{printable(note)}\n" for note in report.summary.withheld)
    err.write(summary_line(report) + "\n")


# -- colour -----------------------------------------------------------------------------------------

# SGR sequences by severity, as ruff and compilers colour them: errors red, warnings yellow, infos cyan.
SEVERITY_STYLES = {"error": "1;31", "warning": "1;33", "info": "1;36"}
ERROR_STYLE = SEVERITY_STYLES["error"]
BOLD = "1"


def paint(text: str, style: str, color: bool) -> str:
    return f"\x1b[{style}m{text}\x1b[0m" if color else text


def use_color(mode: str, stream: TextIO) -> bool:
    """Whether to colour what goes to ``stream``: ``--color always|never`` decide; ``auto`` colours a terminal,
    unless NO_COLOR is set (no-color.org), or FORCE_COLOR is set (force-color.org) also when it is none."""
    if mode != "auto":
        return mode == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    try:
        return stream.isatty() and os.environ.get("TERM") != "dumb"
    except (AttributeError, ValueError):  # closed, or no terminal behind it at all
        return False
