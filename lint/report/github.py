"""``github``: one GitHub Actions workflow command per finding, which GitHub shows as an annotation.

``::error file=PATH,line=L,col=C,title=CODE name::message`` on stdout (``warning`` and ``notice`` for the
other severities), then the summary on stderr.  Values are escaped as GitHub's own toolkit escapes them,
after the control characters a file's text may hold are shown as escapes.
"""

from __future__ import annotations

from typing import TextIO

from lint.models.report import CheckReport, Finding, Severity
from lint.report.text import finding_message, printable, write_notes

COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}
_DATA_ESCAPES = str.maketrans({"%": "%25", "\r": "%0D", "\n": "%0A"})
_PROPERTY_ESCAPES = str.maketrans({"%": "%25", "\r": "%0D", "\n": "%0A", ":": "%3A", ",": "%2C"})


def render(report: CheckReport, out: TextIO, err: TextIO) -> None:
    for finding in report.findings:
        out.write(command(finding) + "\n")
    write_notes(report, err)


def command(finding: Finding) -> str:
    properties: dict[str, object] = {}
    if finding.path:
        properties["file"] = printable(finding.path)
    if finding.line:
        properties["line"] = finding.line
        properties["col"] = finding.column or 1
    properties["title"] = f"{finding.code} {finding.name}"
    rendered = ",".join(f"{key}={str(value).translate(_PROPERTY_ESCAPES)}" for key, value in properties.items())
    return f"::{COMMANDS[finding.severity]} {rendered}::{finding_message(finding).translate(_DATA_ESCAPES)}"
