"""The check pipeline: read -> detect -> parse -> file rules -> findings.

Per file, records are streamed through the enabled rules once; nothing keeps the records, so memory
does not grow with the file.  A rule that crashes is reported as a finding and dropped for that file:
one bug must not hide the other findings or end in a traceback.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from lint import formats
from lint.config import Selection
from lint.models.common import SyntaxProblem
from lint.models.report import CheckReport, FileResult, Finding
from lint.rule import Rule, Scope, Severity, Violation, registry
from lint.source import InputError, Source, expand

INTERNAL_ERROR = ("TL000", "internal-error")


@dataclass
class CheckOptions:
    trace_format: str | None = None
    selection: Selection = field(default_factory=Selection.default)
    max_findings: int = 1000  # per code and file; 0 shows all


@dataclass
class FileOutcome:
    result: FileResult
    findings: list[Finding]
    not_shown: Counter[str]


class _Collector:
    """Turns violations into findings for one file, keeping at most ``limit`` per code."""

    def __init__(self, path: str, selection: Selection, limit: int) -> None:
        self.path = path
        self.selection = selection
        self.limit = limit
        self.ignored = selection.ignored_for(path)
        self.findings: list[Finding] = []
        self.counts: Counter[str] = Counter()
        self.not_shown: Counter[str] = Counter()

    def add(self, code: str, name: str, violation: Violation) -> None:
        if code in self.ignored:
            return
        self.counts[code] += 1
        if self.limit and self.counts[code] > self.limit:
            self.not_shown[code] += 1
            return
        severity = self.selection.severities.get(code, Severity.ERROR)
        self.findings.append(
            Finding(
                code=code, name=name, severity=severity, path=violation.path or self.path, line=violation.line,
                column=violation.column, rank=violation.rank, message=violation.message,
            )
        )

    def problem(self, problem: SyntaxProblem) -> None:
        if self.selection.enabled(problem.code):
            rule = registry()[problem.code]
            self.add(problem.code, rule.name, Violation(problem.line, problem.column, problem.message, problem.rank))


def check_file(source: Source, format_name: str, options: CheckOptions) -> FileOutcome:
    collector = _Collector(source.display, options.selection, options.max_findings)
    rules = [r for r in options.selection.rules_for(format_name, Scope.FILE) if r.code not in collector.ignored]
    records = formats.parser(format_name).parse(source.lines())
    syntax_problems = 0
    add = collector.add
    while True:
        handlers = _handlers(rules)
        rule: Rule | None = None
        try:
            for item in records:
                if isinstance(item, SyntaxProblem):
                    syntax_problems += 1
                    collector.problem(item)
                    continue
                for rule, method in handlers.get(item.kind, ()):
                    for violation in method(item):
                        add(rule.code, rule.name, violation)
                rule = None
            break
        except Exception as error:  # a rule bug must not end the check: report it, drop the rule, go on
            if rule is None:  # the parser itself failed: nothing more can be read from this file
                collector.add(*INTERNAL_ERROR, Violation(getattr(item, "line", None), None, f"reading stopped: {type(error).__name__}: {error}"))
                break
            rules.remove(rule)
            _report_crash(collector, rule, error, getattr(item, "line", None))
    for rule in rules:
        try:
            for violation in rule.finish():
                add(rule.code, rule.name, violation)
        except Exception as error:
            _report_crash(collector, rule, error, None)
    for problem in source.problems:
        collector.problem(problem)
    parsed = syntax_problems == 0 and not source.problems
    result = FileResult(path=source.display, format=format_name, parsed=parsed)
    return FileOutcome(result, collector.findings, collector.not_shown)


def _handlers(rules: list[Rule]) -> dict[str, list[tuple[Rule, Callable[[Any], Iterable[Violation]]]]]:
    """Record kind -> the (rule, bound check method) pairs that look at it."""
    handlers: dict[str, list[tuple[Rule, Callable[[Any], Iterable[Violation]]]]] = {}
    for rule in rules:
        for kind, method in rule.handlers().items():
            handlers.setdefault(kind, []).append((rule, getattr(rule, method)))
    return handlers


def _report_crash(collector: _Collector, rule: Rule, error: Exception, line: int | None) -> None:
    where = f" at line {line}" if line else ""
    collector.add(
        *INTERNAL_ERROR,
        Violation(line, None, f"rule {rule.code} ({rule.name}) failed{where} and was skipped for this file: {type(error).__name__}: {error}"),
    )


def check(paths: list[str], options: CheckOptions) -> CheckReport:
    sources, input_errors = expand(paths)
    report = CheckReport()
    summary = report.summary
    summary.input_errors.extend(input_errors)
    for source in sources:
        summary.files += 1
        try:
            format_name = options.trace_format or formats.detect(source.head())
            if format_name is None:
                summary.skipped.append(source.display)
                continue
            outcome = check_file(source, format_name, options)
        except InputError as error:
            summary.input_errors.append(str(error))
            continue
        except OSError as error:  # the file vanished or failed while being read
            summary.input_errors.append(f"{source.display}: cannot read: {error.strerror or error}")
            continue
        summary.checked += 1
        report.files.append(outcome.result)
        report.findings.extend(outcome.findings)
        for code, count in outcome.not_shown.items():
            summary.not_shown[code] = summary.not_shown.get(code, 0) + count
    report.findings.sort(key=Finding.sort_key)
    report.count_severities()
    return report
