"""``concise``: one ``path:line:col: CODE message`` line per finding, then a summary on stderr."""

from __future__ import annotations

from typing import TextIO

from lint.models.report import CheckReport
from lint.report.text import location, statistics_lines, summary_line


def render(report: CheckReport, out: TextIO, err: TextIO) -> None:
    if report.statistics is not None:
        for line in statistics_lines(report):
            out.write(line + "\n")
    else:
        _findings(report, out)
    for path in report.summary.skipped:
        err.write(f"{path}: skipped: format not recognised (use --trace-format to force one)\n")
    for error in report.summary.input_errors:
        err.write(f"tlint: error: {error}\n")
    err.write(summary_line(report) + "\n")


def _findings(report: CheckReport, out: TextIO) -> None:
    for finding in report.findings:
        rank = f" [rank {finding.rank}]" if finding.rank is not None and finding.line is None else ""
        out.write(f"{location(finding.path, finding.line, finding.column)}: {finding.code} {finding.message}{rank}\n")
