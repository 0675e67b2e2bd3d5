"""What ``tlint check`` reports: findings, the files it read, and a summary (pydantic, versioned)."""

from __future__ import annotations

from collections import Counter
from typing import Literal

from pydantic import BaseModel, Field, computed_field

from lint.rule import Severity


class Finding(BaseModel):
    code: str
    name: str
    severity: Severity
    path: str | None
    line: int | None
    column: int | None
    rank: int | None
    message: str
    fingerprint: str | None = Field(default=None, exclude=True)

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path or "", self.line or 0, self.column or 0, self.code)


class FileResult(BaseModel):
    path: str
    format: str | None
    parsed: bool


class CheckSummary(BaseModel):
    files: int = 0
    checked: int = 0
    skipped: list[str] = Field(default_factory=list, description="files of no known format, and documentation or source files by their names")
    not_followed: list[str] = Field(default_factory=list, description="symbolic links in walked directories whose targets lie outside them")
    errors: int = 0
    warnings: int = 0
    infos: int = 0
    not_shown: dict[str, int] = Field(default_factory=dict, description="findings beyond --max-findings, per code")
    input_errors: list[str] = Field(default_factory=list, description="paths that could not be read")
    withheld: list[str] = Field(default_factory=list, description="run findings not shown because they follow from a file's syntax errors, one note per run")
    baseline_suppressed: int | None = Field(default=None, description="findings hidden by --baseline")
    baseline_stale: int | None = Field(default=None, description="baseline entries that matched no finding")

    @computed_field  # type: ignore[prop-decorator]  # mypy rejects decorated properties (python/mypy#1362; pydantic's docs)
    @property
    def findings(self) -> int:
        return self.errors + self.warnings + self.infos


class RuleCount(BaseModel):
    code: str
    name: str
    severity: Severity
    count: int


class CheckReport(BaseModel):
    version: Literal[1] = 1
    files: list[FileResult] = Field(default_factory=list)
    findings: list[Finding] = Field(default_factory=list)
    summary: CheckSummary = Field(default_factory=CheckSummary)
    statistics: list[RuleCount] | None = Field(default=None, description="with --statistics: counts per rule")
    fail_on: Severity = Field(default=Severity.ERROR, exclude=True, description="the lowest severity that fails the check")
    # How the text reporters render it (not part of the report): --verbose, --color.
    verbose: bool = Field(default=False, exclude=True, description="list the files passed over")
    color: bool = Field(default=False, exclude=True, description="colour the findings by severity")

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
