"""``json``: exactly one JSON document on stdout (schema ``version`` 1).

The document's models are pydantic's (the boundary users see); the check's own records are light
(:mod:`lint.models.report`) and are read into them here.
"""

from __future__ import annotations

from typing import Literal, TextIO

from pydantic import BaseModel, ConfigDict, Field, computed_field

from lint.models.report import CheckReport, Severity


class _Document(BaseModel):
    model_config = ConfigDict(from_attributes=True)


class FindingDocument(_Document):
    code: str
    name: str
    severity: Severity
    path: str | None
    line: int | None
    column: int | None
    rank: int | None
    message: str


class FileDocument(_Document):
    path: str
    format: str | None
    parsed: bool


class SummaryDocument(_Document):
    files: int = 0
    checked: int = 0
    skipped: list[str] = Field(default_factory=list, description="files whose format was not recognised")
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


class RuleCountDocument(_Document):
    code: str
    name: str
    severity: Severity
    count: int


class CheckDocument(_Document):
    version: Literal[1] = 1
    files: list[FileDocument] = Field(default_factory=list)
    findings: list[FindingDocument] = Field(default_factory=list)
    summary: SummaryDocument = Field(default_factory=SummaryDocument)
    statistics: list[RuleCountDocument] | None = Field(default=None, description="with --statistics: counts per rule")


def render(report: CheckReport, out: TextIO, err: TextIO) -> None:
    out.write(CheckDocument.model_validate(report).model_dump_json(indent=2))
    out.write("\n")
