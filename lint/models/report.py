"""What ``tlint check`` reports: findings, the files it read, and a summary (pydantic, versioned)."""

from __future__ import annotations

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
    skipped: list[str] = Field(default_factory=list, description="files whose format was not recognised")
    errors: int = 0
    warnings: int = 0
    infos: int = 0
    not_shown: dict[str, int] = Field(default_factory=dict, description="findings beyond --max-findings, per code")
    input_errors: list[str] = Field(default_factory=list, description="paths that could not be read")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def findings(self) -> int:
        return self.errors + self.warnings + self.infos


class CheckReport(BaseModel):
    version: Literal[1] = 1
    files: list[FileResult] = Field(default_factory=list)
    findings: list[Finding] = Field(default_factory=list)
    summary: CheckSummary = Field(default_factory=CheckSummary)
