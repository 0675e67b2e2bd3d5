"""What ``tlint check`` reports: findings, the files it read, and a summary.

Light records: a check that prints text never imports pydantic; the JSON document (schema ``version`` 1)
is written from them by :mod:`lint.report.json_report`.
"""

from __future__ import annotations

from collections import Counter
from enum import StrEnum

from lint.models.common import Record


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"info": 0, "warning": 1, "error": 2}[self.value]


class Finding(Record):
    """One finding: a rule's code and name, its severity, where it is, and what it says."""

    __slots__ = ("code", "name", "severity", "path", "line", "column", "rank", "message", "fingerprint")

    def __init__(
        self,
        code: str,
        name: str,
        severity: Severity,
        path: str | None,
        line: int | None,
        column: int | None,
        rank: int | None,
        message: str,
        fingerprint: str | None = None,
    ) -> None:
        self.code = code
        self.name = name
        self.severity = severity
        self.path = path
        self.line = line
        self.column = column
        self.rank = rank
        self.message = message
        self.fingerprint = fingerprint  # the baseline's, where --baseline is given: not in the report

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path or "", self.line or 0, self.column or 0, self.code)


class FileResult(Record):
    """One file checked: its format (None: of no known format), whether it parsed, and the consumer it was judged for."""

    __slots__ = ("path", "format", "parsed", "consumer", "consumer_reason")

    def __init__(self, path: str, format: str | None, parsed: bool, consumer: str | None = None, consumer_reason: str | None = None) -> None:
        self.path = path
        self.format = format
        self.parsed = parsed
        self.consumer = consumer  # the consumer the file was judged for (lint.models.consumers); None for a format without consumers
        self.consumer_reason = consumer_reason  # why that consumer: where the user named it, or what in the file showed it


class CheckSummary(Record):
    """The counts and lists a check reports beside its findings."""

    __slots__ = (
        "files",
        "checked",
        "skipped",
        "not_followed",
        "errors",
        "warnings",
        "infos",
        "not_shown",
        "input_errors",
        "withheld",
        "baseline_suppressed",
        "baseline_stale",
    )

    def __init__(self) -> None:
        self.files = 0
        self.checked = 0
        self.skipped: list[str] = []  # files of no known format, and documentation or source files by their names
        self.not_followed: list[str] = []  # symbolic links in walked directories whose targets lie outside them
        self.errors = 0
        self.warnings = 0
        self.infos = 0
        self.not_shown: dict[str, int] = {}  # findings beyond --max-findings, per code
        self.input_errors: list[str] = []  # paths that could not be read
        self.withheld: list[str] = []  # run findings following from a file's syntax errors, one note per run
        self.baseline_suppressed: int | None = None  # findings hidden by --baseline
        self.baseline_stale: int | None = None  # baseline entries that matched no finding

    @property
    def findings(self) -> int:
        return self.errors + self.warnings + self.infos


class RuleCount(Record):
    """How many findings one rule made (``--statistics``)."""

    __slots__ = ("code", "name", "severity", "count")

    def __init__(self, code: str, name: str, severity: Severity, count: int) -> None:
        self.code = code
        self.name = name
        self.severity = severity
        self.count = count


class CheckReport(Record):
    """What a check found, as every reporter renders it."""

    __slots__ = ("files", "findings", "summary", "statistics", "fail_on", "verbose", "color")

    def __init__(self, files: list[FileResult] | None = None, findings: list[Finding] | None = None, fail_on: Severity = Severity.ERROR) -> None:
        self.files = files if files is not None else []
        self.findings = findings if findings is not None else []
        self.summary = CheckSummary()
        self.statistics: list[RuleCount] | None = None  # with --statistics: counts per rule
        self.fail_on = fail_on  # the lowest severity that fails the check: not in the report
        # How the text reporters render it (not in the report): --verbose lists the files passed over, --color colours findings.
        self.verbose = False
        self.color = False

    def fails(self, finding: Finding) -> bool:
        """Whether ``finding`` alone makes the check fail (exit code 1)."""
        return finding.severity.rank >= self.fail_on.rank

    def count_severities(self) -> None:
        """Recount the summary's errors, warnings and infos from the findings."""
        counts = {severity: 0 for severity in Severity}
        for finding in self.findings:
            counts[finding.severity] += 1
        self.summary.errors = counts[Severity.ERROR]
        self.summary.warnings = counts[Severity.WARNING]
        self.summary.infos = counts[Severity.INFO]

    def limit_findings(self, limit: int) -> None:
        """Keep at most ``limit`` findings per rule and file (0: all), counting the others in ``summary.not_shown``."""
        if not limit:
            return
        seen: Counter[tuple[str | None, str]] = Counter()
        kept: list[Finding] = []
        for finding in self.findings:
            seen[finding.path, finding.code] += 1
            if seen[finding.path, finding.code] <= limit:
                kept.append(finding)
            else:
                self.summary.not_shown[finding.code] = self.summary.not_shown.get(finding.code, 0) + 1
        self.findings = kept
        self.count_severities()

    def compute_statistics(self) -> None:
        """Counts per rule, most frequent first (findings beyond --max-findings included)."""
        counts: dict[str, RuleCount] = {}
        for finding in self.findings:
            entry = counts.setdefault(finding.code, RuleCount(code=finding.code, name=finding.name, severity=finding.severity, count=0))
            entry.count += 1
        for code, hidden in self.summary.not_shown.items():
            if code in counts:
                counts[code].count += hidden
        self.statistics = sorted(counts.values(), key=lambda c: (-c.count, c.code))
