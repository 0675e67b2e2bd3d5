"""``concise``: one ``path:line:col: CODE message`` line per finding, then a summary on stderr."""

from __future__ import annotations

from typing import TextIO

from lint.models.report import CheckReport
from lint.report.text import finding_message, location, statistics_lines, write_notes


def render(report: CheckReport, out: TextIO, err: TextIO) -> None:
    if report.statistics is not None:
        for line in statistics_lines(report):
            out.write(line + "\n")
    else:
        for finding in report.findings:
            out.write(f"{location(finding.path, finding.line, finding.column)}: {finding.code} {finding_message(finding)}\n")
    write_notes(report, err)
