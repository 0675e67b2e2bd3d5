"""``sarif``: one SARIF 2.1.0 log on stdout, for code-scanning services; the summary on stderr.

Every rule of the registry is listed in ``tool.driver.rules`` (not only those that fired), so that a
service can show the documentation of a rule that a later run reports.  Results carry the baseline
fingerprint as a partial fingerprint: it follows a finding across inserted lines, as the baseline does.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import quote

from lint import __version__
from lint.check.baseline import fingerprint
from lint.models.report import CheckReport, Finding, Severity
from lint.report.text import finding_message, write_notes
from lint.rule import Rule, iter_rules

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/tlint/tlint"
RULES_HELP_URI = f"{INFORMATION_URI}#rules"
FINGERPRINT_KEY = "tlintBaseline/v1"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def render(report: CheckReport, out: TextIO, err: TextIO) -> None:
    rules = list(iter_rules())
    index = {rule.code: position for position, rule in enumerate(rules)}
    consumers = {result.path: result.consumer for result in report.files if result.consumer is not None}
    if any(finding.fingerprint is None for finding in report.findings):  # --baseline has set them already
        fingerprint(report.findings)
    run = {
        "tool": {
            "driver": {
                "name": "tlint",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": INFORMATION_URI,
                "rules": [_rule(rule) for rule in rules],
            }
        },
        "invocations": [_invocation(report)],
        # Columns count characters of the decoded line, as Python strings index them.
        "columnKind": "unicodeCodePoints",
        "results": [_result(finding, index[finding.code], consumers.get(finding.path or "")) for finding in report.findings],
    }
    out.write(json.dumps({"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}, indent=2) + "\n")
    write_notes(report, err)


def _rule(rule: type[Rule]) -> dict[str, Any]:
    docs = rule.docs()
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary()},
        "fullDescription": {"text": docs.summary},
        "help": {
            "text": f"{docs.why}\n\nExample:\n{docs.example}",
            "markdown": f"{_markdown(docs.why)}\n\n**Example**\n\n```text\n{docs.example.replace('``', '')}\n```",
        },
        "helpUri": RULES_HELP_URI,
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
        **({"properties": {"consumers": {consumer: LEVELS[severity] for consumer, severity in rule.consumers.items()}}} if rule.consumers else {}),
    }


def _markdown(text: str) -> str:
    """The rule docstrings quote code reStructuredText-style, with double backticks."""
    return text.replace("``", "`")


def _result(finding: Finding, rule_index: int, consumer: str | None) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": {"uri": artifact_uri(finding.path or "")}}
    if finding.line:
        physical["region"] = {"startLine": finding.line, "startColumn": finding.column or 1}
    result: dict[str, Any] = {
        "ruleId": finding.code,
        "ruleIndex": rule_index,
        "level": LEVELS[finding.severity],
        "message": {"text": finding_message(finding)},
        "locations": [{"physicalLocation": physical}],
    }
    if finding.fingerprint:
        result["partialFingerprints"] = {FINGERPRINT_KEY: finding.fingerprint}
    if consumer is not None:
        result["properties"] = {"consumer": consumer}  # the program the file was judged for: its level is the rule's for it
    return result


def _invocation(report: CheckReport) -> dict[str, Any]:
    notifications = [{"level": "error", "message": {"text": error}} for error in report.summary.input_errors]
    notifications += [{"level": "note", "message": {"text": f"{path}: skipped: format not recognised"}} for path in report.summary.skipped]
    return {"executionSuccessful": not report.summary.input_errors, "toolExecutionNotifications": notifications}


def artifact_uri(path: str) -> str:
    """A relative POSIX URI for a path below the working directory (as code scanning expects), else a file URI."""
    resolved = Path(os.path.abspath(path))
    try:
        relative = resolved.relative_to(Path.cwd())
    except ValueError:
        return resolved.as_uri()
    return quote(relative.as_posix(), safe="/*", errors="surrogateescape")  # undecodable names keep their bytes
