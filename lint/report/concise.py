"""``concise``: one ``path:line:col: CODE [severity] message`` line per finding, then a summary on stderr.

With colour (``--color``), the location is bold and the code and severity take the severity's colour."""

from __future__ import annotations

from typing import TextIO

from lint.models.report import CheckReport, Finding
from lint.report.text import BOLD, SEVERITY_STYLES, finding_message, location, paint, statistics_lines, write_notes


def render(report: CheckReport, out: TextIO, err: TextIO) -> None:
    if report.statistics is not None:
        for line in statistics_lines(report):
            out.write(line + "\n")
    else:
        for finding in report.findings:
            out.write(finding_line(finding, report.color) + "\n")
    write_notes(report, err)


def finding_line(finding: Finding, color: bool = False) -> str:
    """``path:3:30: TL001 [error] expected …``"""
    style = SEVERITY_STYLES[finding.severity.value]
    where = paint(location(finding.path, finding.line, finding.column) + ":", BOLD, color)
    return f"{where} {paint(f'{finding.code} [{finding.severity.value}]', style, color)} {finding_message(finding)}"
