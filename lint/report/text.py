"""Wording shared by the human-readable reporters."""

from __future__ import annotations

from lint.models.report import CheckReport


def plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


def summary_line(report: CheckReport) -> str:
    """'Checked 12 files (2 skipped: format not recognised): 3 errors, 1 warning.'"""
    s = report.summary
    head = f"Checked {plural(s.checked, 'file')}"
    if s.skipped:
        head += f" ({len(s.skipped)} skipped: format not recognised)"
    if not s.findings:
        counts = "no findings"
    else:
        counts = ", ".join(
            plural(n, noun) for n, noun in ((s.errors, "error"), (s.warnings, "warning"), (s.infos, "info")) if n
        )
    line = f"{head}: {counts}."
    hidden = sum(s.not_shown.values())
    if hidden:
        line += f" {plural(hidden, 'more finding')} not shown (--max-findings)."
    return line


def location(path: str | None, line: int | None, column: int | None) -> str:
    parts = [path or "<run>"]
    if line:
        parts.append(str(line))
        parts.append(str(column or 1))
    return ":".join(parts)
