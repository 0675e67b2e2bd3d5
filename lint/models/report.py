"""What ``tlint check`` reports: findings, the files it read, and a summary.

Light records: a check that prints text never imports pydantic; the JSON document (schema ``version`` 1)
is written from them by :mod:`lint.report.json_report`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"info": 0, "warning": 1, "error": 2}[self.value]


@dataclass(slots=True)
class Finding:
    """One finding: a rule's code and name, its severity, where it is, and what it says."""

    code: str
    name: str
    severity: Severity
    path: str | None
    line: int | None
    column: int | None
    rank: int | None
    message: str
    fingerprint: str | None = None  # the baseline's, where --baseline is given: not in the report

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path or "", self.line or 0, self.column or 0, self.code)


@dataclass(slots=True)
class FileResult:
    """One file checked: its format (None: of no known format), whether it parsed, and the consumer it was judged for."""

    path: str
    format: str | None
    parsed: bool
    consumer: str | None = None  # the consumer the file was judged for (lint.models.consumers); None for a format without consumers
    consumer_reason: str | None = None  # why that consumer: where the user named it, or what in the file showed it


@dataclass(slots=True)
class CheckSummary:
    """The counts and lists a check reports beside its findings."""

    files: int = 0
    checked: int = 0
    skipped: list[str] = field(default_factory=list)  # files of no known format, and documentation or source files by their names
    not_followed: list[str] = field(default_factory=list)  # symbolic links in walked directories whose targets lie outside them
    errors: int = 0
    warnings: int = 0
    infos: int = 0
    not_shown: dict[str, int] = field(default_factory=dict)  # findings beyond --max-findings, per code
    input_errors: list[str] = field(default_factory=list)  # paths that could not be read
    withheld: list[str] = field(default_factory=list)  # run findings following from a file's syntax errors, one note per run
    baseline_suppressed: int | None = None  # findings hidden by --baseline
    baseline_stale: int | None = None  # baseline entries that matched no finding

    @property
    def findings(self) -> int:
        return self.errors + self.warnings + self.infos


@dataclass(slots=True)
class RuleCount:
    """How many findings one rule made (``--statistics``)."""

    code: str
    name: str
    severity: Severity
    count: int


@dataclass(slots=True)
class CheckReport:
    """What a check found, as every reporter renders it."""

    files: list[FileResult] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    summary: CheckSummary = field(default_factory=CheckSummary)
    statistics: list[RuleCount] | None = None  # with --statistics: counts per rule
    fail_on: Severity = Severity.ERROR  # the lowest severity that fails the check: not in the report
    # How the text reporters render it (not in the report): --verbose lists the files passed over, --color colours findings.
    verbose: bool = False
    color: bool = False

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
