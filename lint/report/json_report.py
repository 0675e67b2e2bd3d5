"""``json``: exactly one JSON document on stdout (schema ``version`` 1).

The document is validated and written by pydantic (the boundary users see), from the check's own light
records (:mod:`lint.models.report`); the summary's model adds its count of findings.
"""

from __future__ import annotations

from typing import Literal, TextIO

from pydantic import BaseModel, ConfigDict, Field, computed_field

from lint.models.report import CheckReport, Severity


class _Document(BaseModel):
    model_config = ConfigDict(from_attributes=True)


# The documents of the light records of lint.models.report, field for field, in their order.
class FileResultDocument(_Document):
    path: str
    format: str | None
    parsed: bool
    consumer: str | None = None
    consumer_reason: str | None = None


class FindingDocument(_Document):
    code: str
    name: str
    severity: Severity
    path: str | None
    line: int | None
    column: int | None
    rank: int | None
    message: str


class RuleCountDocument(_Document):
    code: str
    name: str
    severity: Severity
    count: int


class SummaryDocument(_Document):
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


class CheckDocument(_Document):
    version: Literal[1] = 1
    files: list[FileResultDocument] = Field(default_factory=list)
    findings: list[FindingDocument] = Field(default_factory=list)
    summary: SummaryDocument = Field(default_factory=SummaryDocument)
    statistics: list[RuleCountDocument] | None = Field(default=None, description="with --statistics: counts per rule")


def render(report: CheckReport, out: TextIO, err: TextIO) -> None:
    out.write(CheckDocument.model_validate(report).model_dump_json(indent=2))  # a finding's baseline fingerprint is no part of it
    out.write("\n")
