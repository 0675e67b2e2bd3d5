"""``junit``: a JUnit XML report, for CI systems that show test results.

One ``<testsuite name="tlint">`` with one ``<testcase>`` per checked file (``classname`` its format,
``name`` its path): the tests are the files, not the findings.  A file with findings at or above
``--fail-on`` has one ``<failure>`` (its message counts them and names their codes, its text lists them),
so that the report fails exactly when the exit code does; findings below it are listed in the test
case's ``<system-out>``.  A
file of no known format is a skipped test case, a path that cannot be read an ``<error>`` one, and
findings on a run as a whole (``traces/trace_rank*``) form a test case of their own.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import defaultdict
from typing import TextIO

from lint.models.report import CheckReport, Finding
from lint.report.text import finding_message, location, printable, write_notes

SUITE_NAME = "tlint"
RUN_CLASSNAME = "run"
SKIPPED_CLASSNAME = "unrecognised"
INPUT_ERROR_CLASSNAME = "input"
# Characters XML 1.0 cannot carry at all, not even escaped; inputs can put them into paths and messages.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def render(report: CheckReport, out: TextIO, err: TextIO) -> None:
    by_path: dict[str, list[Finding]] = defaultdict(list)
    for finding in report.findings:
        by_path[finding.path or ""].append(finding)
    suite = ET.Element("testsuite", name=SUITE_NAME)
    for result in report.files:
        _case(suite, result.format or SKIPPED_CLASSNAME, result.path, by_path.pop(result.path, []), report)
    for path, findings in by_path.items():  # findings on runs: not on any one checked file
        _case(suite, RUN_CLASSNAME, path, findings, report)
    for path in report.summary.skipped:
        _element(_element(suite, "testcase", classname=SKIPPED_CLASSNAME, name=path), "skipped", message="format not recognised")
    for error in report.summary.input_errors:
        _element(_element(suite, "testcase", classname=INPUT_ERROR_CLASSNAME, name=error), "error", message=error)

    suites = ET.Element("testsuites", name=SUITE_NAME)
    suites.append(suite)
    for element in (suites, suite):
        element.set("tests", str(len(suite.findall("testcase"))))
        for attribute, tag in (("failures", "failure"), ("errors", "error"), ("skipped", "skipped")):
            element.set(attribute, str(len(suite.findall(f"testcase/{tag}"))))
    ET.indent(suites)
    out.write(ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n")
    write_notes(report, err)


def _case(suite: ET.Element, classname: str, path: str, findings: list[Finding], report: CheckReport) -> None:
    case = _element(suite, "testcase", classname=classname, name=path)
    failing: list[tuple[str, str]] = []
    below: list[tuple[str, str]] = []
    for finding in findings:
        text = f"{location(finding.path, finding.line, finding.column)}: {finding.code} {finding.name} ({finding.severity.value}): {finding_message(finding)}"
        (failing if report.fails(finding) else below).append((finding.code, text))
    if failing:  # JUnit counts failed tests: one <failure> per file, its findings inside
        codes = sorted({code for code, _ in failing})
        count = f"{len(failing)} finding{'s' if len(failing) != 1 else ''}"
        _element(case, "failure", message=f"{count}: {', '.join(codes)}", type=codes[0]).text = _xml("\n".join(text for _, text in failing))
    if below:
        _element(case, "system-out").text = _xml("\n".join(text for _, text in below))


def _element(parent: ET.Element, tag: str, **attributes: str) -> ET.Element:
    return ET.SubElement(parent, tag, {key: _xml(value) for key, value in attributes.items()})


def _xml(text: str) -> str:
    """``text`` for an attribute or element: its lines' control characters and bidirectional overrides shown as
    escapes, as every text reporter shows them (a path or name from a file reaches a CI page), and what XML
    cannot carry at all replaced."""
    return _NOT_XML.sub("\ufffd", "\n".join(map(printable, text.split("\n"))))
