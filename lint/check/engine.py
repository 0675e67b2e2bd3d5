"""The check pipeline: read -> detect -> parse -> file rules -> run rules -> findings.

Per file, records are streamed through the enabled rules once; nothing keeps the records, so memory
does not grow with the file.  Files that belong to a run (several ranks of one job) are also reduced to
compact rank summaries, on which the run rules work.  Files are independent, so the executor can check
them in parallel (worker processes, or Dask tasks on a cluster); only findings and summaries travel back.

A rule that crashes is reported as a finding and dropped for that file: one bug must not hide the other
findings or end in a traceback.
"""

from __future__ import annotations

import contextlib
import gc
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, contextmanager
from functools import lru_cache
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lint import formats
from lint.check import cache, executor
from lint.check.config import Selection
from lint.models.common import NOT_DIAGNOSED, Diagnoses, Record, SyntaxProblem
from lint.models.errors import ConfigError
from lint.models.report import CheckReport, FileResult, Finding, Severity
from lint.read.source import CONSOLE_JUNK_CODE, InputError, Source, printable_path
from lint.read.walk import NOT_A_TRACE, WalkOptions, expand
from lint.rule import Rule, Scope, Violation, catalog
from lint.runs.discovery import DEFAULT_RANK_REGEX, NamedFile, RunKey, damaged_rank, run_key, siblings, split_by_time
from lint.runs.sources import LayoutSources
from lint.store import disk

if TYPE_CHECKING:
    # Imported where a file is read or a run assembled: a check served from the cache does neither, and
    # the models of runs need pydantic, whose import costs more than the rest of such a check.
    from lint.formats import Summarizing
    from lint.runs.model import RankSummary, Run

INTERNAL_ERROR = ("TL000", "internal-error")
INVALID_SYNTAX = "TL001"
UNKNOWN_FORMAT = "TL005"
# A file's grammar explains (lint.parse.grammar.Grammar.diagnosing) the lines it rejects until a syntax finding
# is past --max-findings, and at most this many times --max-findings lines: a cause repeated on every line is one
# finding, but explaining a million of them would take many minutes.
DIAGNOSED_LINES = 10
# Rules quote names and values from the input, which may be megabytes long; the report stays readable
# (and its size proportional to the number of findings) when a message keeps only its start and end.
MAX_MESSAGE = 1000


class CheckOptions(Record):
    """What a check reads and how: the command line and the configuration, resolved (the defaults, each
    set by keyword)."""

    __slots__ = ("trace_format", "selection", "max_findings", "backend", "rank_regex", "layout", "use_cache", "walk", "cache_settings")

    def __init__(
        self,
        *,
        trace_format: str | None = None,
        selection: Selection | None = None,
        max_findings: int = 1000,
        backend: executor.Backend | None = None,
        rank_regex: re.Pattern[str] = DEFAULT_RANK_REGEX,
        layout: LayoutSources | None = None,
        use_cache: bool = False,
        walk: WalkOptions | None = None,
        cache_settings: dict[Any, str] | None = None,
    ) -> None:
        self.trace_format = trace_format
        self.selection = selection if selection is not None else Selection.default()
        self.max_findings = max_findings  # per code and file; 0 shows all
        self.backend = backend if backend is not None else executor.Backend()
        self.rank_regex = rank_regex
        self.layout = layout if layout is not None else LayoutSources()
        self.use_cache = use_cache
        self.walk = walk if walk is not None else WalkOptions()
        self.cache_settings = cache_settings if cache_settings is not None else {}  # memo of _cache_settings


class FileOutcome(Record):
    """What checking one file gave: its result and findings, and its rank summary for the run rules."""

    __slots__ = ("result", "findings", "not_shown", "summary", "cache_entry", "packed_summary")

    def __init__(
        self,
        result: FileResult,
        findings: list[Finding],
        not_shown: Counter[str],
        summary: RankSummary | None = None,
        cache_entry: str | None = None,
        packed_summary: cache.StoredSummary | None = None,
    ) -> None:
        self.result = result
        self.findings = findings
        self.not_shown = not_shown
        self.summary = summary
        self.cache_entry = cache_entry  # where the cache keeps it: run results are cached by their files' entries
        self.packed_summary = packed_summary  # a cached summary, read only when its run's findings are not cached


class _Collector:
    """Turns violations into findings for one file, keeping at most ``limit`` per code.  ``locate`` is the file's
    parser's ``column_of`` (see lint.models.common.LineRecord): where the field a violation names is on its line.
    ``diagnoses``: what its grammar may still explain (lint.parse.grammar.Grammar.diagnosing), stopped once the
    syntax findings are past the limit: the explanations after that could no longer be shown."""

    def __init__(
        self,
        path: str,
        selection: Selection,
        limit: int,
        consumer: str | None = None,
        locate: Callable[[Any, str, int | None], int | None] | None = None,
        diagnoses: Diagnoses | None = None,
    ) -> None:
        self.path = path
        self.diagnoses = diagnoses
        self.locate = locate
        self.selection = selection
        self.limit = limit
        self.consumer = consumer  # the file is judged for (lint.models.consumers): the severity of each finding is the rule's for it
        self.severities: dict[str, Severity] = {}
        self.ignored = selection.ignored_for(path)
        self.findings: list[Finding] = []
        self.counts: Counter[str] = Counter()
        self.not_shown: Counter[str] = Counter()
        self._repeated: _Repeated | None = None  # the finding that the next problem ``again`` extends
        # The lines counted, not explained, once the file's allowance of diagnoses was spent (Grammar.diagnosing):
        # the first, how many, and the last one's number.
        self._not_diagnosed: tuple[SyntaxProblem, int, int] | None = None

    def add(self, code: str, name: str, violation: Violation) -> None:
        if code in self.ignored:
            return
        self.counts[code] += 1
        if self.limit and self.counts[code] > self.limit:
            self.not_shown[code] += 1
            return
        severity = self.severities.get(code)
        if severity is None:
            severity = self.severities[code] = self.selection.severity_of(code, self.consumer)
        column = violation.column
        if violation.field is not None and self.locate is not None:
            with contextlib.suppress(Exception):  # a bug of the locator costs the column, never the finding
                column = self.locate(violation.record, violation.field, violation.index) or column
        self.findings.append(
            Finding(
                code=code,
                name=name,
                severity=severity,
                path=violation.path or self.path,
                line=violation.line,
                column=column,
                rank=violation.rank,
                message=_bounded(violation.message),
            )
        )

    def problem(self, problem: SyntaxProblem) -> None:
        if not self.selection.enabled(problem.code):
            return
        if problem.message == NOT_DIAGNOSED:
            first, count, _ = self._not_diagnosed or (problem, 0, 0)
            self._not_diagnosed = first, count + 1, problem.line
            self._repeated = None
            return
        repeated = self._repeated
        if problem.again and repeated is not None and repeated.code == problem.code:
            repeated.extend(problem.line)
            return
        shown = len(self.findings)
        self.add(problem.code, catalog()[problem.code].name, Violation(problem.line, problem.column, problem.message, problem.rank))
        self._repeated = _Repeated(problem.code, self.findings[-1] if len(self.findings) > shown else None)
        # The first finding past the limit is followed to the end of its run (counted once, as a run is); once a
        # second begins, no explanation could be shown any more.
        if problem.code == INVALID_SYNTAX and self.diagnoses is not None and self.limit and self.counts[problem.code] > self.limit + 1:
            self.diagnoses.stop()

    def not_diagnosed(self, format_name: str) -> None:
        """One finding, on the first of them, for the lines counted and not explained past the allowance; when the
        findings of its code are all shown already, the lines are counted in ``not_shown`` as the findings they hide."""
        if self._not_diagnosed is None:
            return
        first, count, last = self._not_diagnosed
        if first.code in self.ignored:
            return
        if self.limit and self.counts[first.code] >= self.limit:
            self.counts[first.code] += count
            self.not_shown[first.code] += count
            return
        lines = f"this line and {count - 1:,} more to line {last:,} were" if count > 1 else "this line was"
        message = (
            f"{lines} not read as {format_name} records and not diagnosed: tlint explains at most {DIAGNOSED_LINES * self.limit:,} lines"
            " of a file that its grammar rejects (10 times --max-findings; 0 explains every one)"
        )
        self.add(first.code, catalog()[first.code].name, Violation(first.line, first.column, message, first.rank))


class _Repeated:
    """The finding on the first line of a run of lines with the same problem, whose message names the run's end;
    None when that finding is not shown (ignored, or past --max-findings): the run is one finding all the same."""

    def __init__(self, code: str, finding: Finding | None) -> None:
        self.code = code
        self.finding = finding
        self.message = finding.message if finding is not None else ""
        self.more = 0

    def extend(self, line: int) -> None:
        self.more += 1
        if self.finding is not None:
            self.finding.message = _bounded(f"{self.message} (also on {self.more} more line{'s' if self.more > 1 else ''}, to line {line})")


def _bounded(message: str) -> str:
    if len(message) <= MAX_MESSAGE:
        return message
    half = MAX_MESSAGE // 2
    return f"{message[:half]}…{message[-half:]}"


# -- one file --------------------------------------------------------------------------------------


def check_file(source: Source, format_name: str, options: CheckOptions, *, rules: bool = True, summarize: bool = False, timed: bool = True) -> FileOutcome:
    """Parse ``source`` once, through the file rules (unless ``rules`` is false) and the summarizer (its
    steps with their times unless ``timed`` is false: see its format's ``Summarizer``)."""
    parser = formats.parser(format_name)
    described = formats.named(format_name)
    judged = None  # the consumer the file is judged for: what its rules hold for and at which severity (lint.models.consumers)
    if rules and described.consumers:
        judged = options.selection.consumer_for(source.display, format_name) or formats.judged_for(format_name, source.head())
    consumer = judged.consumer if judged is not None else None
    grammar = getattr(parser, "grammar", None)  # a text format's (lint.parse.grammar)
    diagnoses = Diagnoses(DIAGNOSED_LINES * options.max_findings) if grammar is not None and options.max_findings else None
    collector = _Collector(source.display, options.selection, options.max_findings, consumer, getattr(parser, "column_of", None), diagnoses)
    active = [r for r in options.selection.rules_for(format_name, Scope.FILE, consumer) if r.code not in collector.ignored] if rules else []
    summarizer = None
    if summarize and described.runs:
        summarizer = formats.summaries(format_name).Summarizer(source.display, timed=timed)
    source.console = described.console
    source.keeps_bom = described.keeps_bom
    records = parser.read(source) if described.binary else parser.parse(source.lines())  # type: ignore[attr-defined]
    if summarizer is not None:
        records = _summarized(records, summarizer)
    syntax_problems = 0
    add = collector.add
    handlers = _Handlers(active)
    item: Any = None
    with grammar.diagnosing(diagnoses) if grammar is not None else contextlib.nullcontext():
        try:
            for item in records:
                if isinstance(item, SyntaxProblem):
                    syntax_problems += 1
                    if rules:
                        collector.problem(item)
                    # and on to the rules that keep track of lines they cannot see (``check_syntax``)
                key = (item.kind, getattr(item, "op", None))
                listed = handlers.by_op.get(key)
                if listed is None:
                    listed = handlers.listing(key)
                if listed.said is not None:  # some rule judges these records (see Rule): what this one says, for them
                    listed.said.see(item)
                for rule, method in listed:
                    try:  # free unless raised: a rule bug costs that rule, never the other rules' findings
                        # Hot rules return an empty tuple, not a generator, when a record is fine: no loop then.
                        if violations := method(item):
                            for violation in violations:
                                add(rule.code, rule.name, violation)
                    except Exception as error:
                        if rule in active:
                            active.remove(rule)
                            handlers = _Handlers(active)
                            _report_crash(collector, rule, error, getattr(item, "line", None))
        except Exception as error:  # the parser itself failed: nothing more can be read from this file
            _internal_error(collector, Violation(getattr(item, "line", None), None, f"reading stopped: {type(error).__name__}: {error}"))
    if item is None and not source.problems:  # not one line of the format: no writer leaves a file so
        syntax_problems += 1
        if rules:
            collector.problem(_no_record(source, format_name))
    for rule in active:
        try:
            for violation in rule.finish():
                add(rule.code, rule.name, violation)
        except Exception as error:
            _report_crash(collector, rule, error, None)
    if rules:
        collector.not_diagnosed(format_name)
        for problem in source.problems:
            collector.problem(problem)
    parsed = syntax_problems == 0 and all(problem.code == CONSOLE_JUNK_CODE for problem in source.problems)  # junk is no syntax
    result = FileResult(path=source.display, format=format_name, parsed=parsed)
    if judged is not None:
        result.consumer, result.consumer_reason = judged.consumer, judged.reason
    return FileOutcome(result, collector.findings, collector.not_shown, summarizer.result() if summarizer else None)


def _no_record(source: Source, format_name: str) -> SyntaxProblem:
    """An empty file, or one without a single record, read as ``format_name`` (a format forced or detected)."""
    found = "a file with no record of it" if any(line.strip() for line in source.head()) else "an empty file"
    return SyntaxProblem(1, 1, INVALID_SYNTAX, f"expected {format_name} records, found {found}")


def read_summary(source: Source, format_name: str) -> tuple[RankSummary, bool]:
    """The rank summary of one file of a run format (its descriptor's ``runs``), and whether the file was read
    without a syntax error: what `tlint diff` compares runs on.  No rule runs."""
    if not formats.named(format_name).runs:
        raise ValueError(f"{format_name} files do not form runs: they have no rank summary")
    outcome = check_file(source, format_name, _summary_only(), rules=False, summarize=True)
    assert outcome.summary is not None
    return outcome.summary, outcome.result.parsed


@lru_cache(maxsize=1)
def _summary_only() -> CheckOptions:
    """The options of a read with no rules: the default ones, made once."""
    return CheckOptions()


def _summarized(records: Iterable[Any], summarizer: Summarizing) -> Iterator[Any]:
    handlers = {name.removeprefix("check_"): getattr(summarizer, name) for name in dir(summarizer) if name.startswith("check_")}
    for item in records:
        handler = handlers.get(item.kind)
        if handler is not None:
            handler(item)
        yield item


_Handler = tuple[Rule, Callable[[Any], Iterable[Violation]]]


class _Handlers:
    """The (rule, bound ``check_<kind>`` method) pairs that look at a record, by its kind and op (see Rule.ops):
    the one place where per-record work is dispatched.  A rule that judges the records of a kind
    (``judge_<kind>``, see Rule) is handed each one's verdict by a :class:`_Judged`."""

    def __init__(self, rules: list[Rule]) -> None:
        self.by_kind: dict[str, list[_Handler]] = {}
        self.said: dict[str, _Said] = {}  # of the kinds some rule judges
        for rule in rules:
            for kind, (check, judge) in rule.handlers().items():
                method = getattr(rule, check)
                if judge is not None:
                    method = _Judged(getattr(rule, judge), method, self.said.setdefault(kind, _Said())).check
                self.by_kind.setdefault(kind, []).append((rule, method))
        self.by_op: dict[tuple[str, str | None], _Listing] = {}

    def listing(self, key: tuple[str, str | None]) -> _Listing:
        """The handlers of a record of ``key``'s kind and op (None: a record of no op), not listed yet (the engine
        looks a key up in ``by_op`` itself: one call less per record)."""
        kind, op = key
        found = _Listing((rule, method) for rule, method in self.by_kind.get(kind, ()) if op is None or rule.ops is None or op in rule.ops)
        found.said = self.said.get(kind)
        if len(self.by_op) >= 4096:  # bounded: a file of endlessly new op names must not grow memory
            self.by_op.clear()
        self.by_op[key] = found
        return found


class _Listing(list[_Handler]):
    """The handlers of the records of one kind and op, and what a record of the kind says when a rule judges them."""

    said: _Said | None = None


class _Said:
    """What the record being dispatched says, for the rules that judge its kind (:class:`_Judged`): the values
    of its fields but where it is (its first two, ``line`` and ``column``), by which records are told alike.

    The values are numbered as they are first seen, so that they are hashed once per record, not once per
    rule that judges it (``key``).  Bounded: a file of endlessly new records must not grow memory; once it
    has numbered ``ENTRIES`` of them it forgets them and the verdicts given on them, and records are judged
    again.
    """

    ENTRIES = 4096

    def __init__(self) -> None:
        self.key = -1
        self.numbers: dict[Any, int] = {}
        self.judged: list[_Judged] = []  # the rules' checks that look verdicts up by ``key``
        self.record_type: type | None = None  # of the last record seen, and what reads its values
        self.values_of: Callable[[Any], Any] = _values_of

    def see(self, record: Any) -> None:
        record_type: type = type(record)  # as type[Any], mypy would take it for unhashable (python/mypy#11470)
        if record_type is not self.record_type:
            self.record_type, self.values_of = record_type, _values_of(record_type)
        values = self.values_of(record)
        key = self.numbers.get(values)
        if key is None:
            if len(self.numbers) >= self.ENTRIES:
                self.numbers.clear()
                for judged in self.judged:
                    judged.verdicts.clear()
            key = self.numbers[values] = len(self.numbers)
        self.key = key


@lru_cache(maxsize=64)  # one per record class
def _values_of(record_type: type) -> Callable[[Any], Any]:
    names = list(getattr(record_type, "__match_args__", ()))  # the fields of a dataclass or a Record alike
    if names[:2] != ["line", "column"] or len(names) < 3:
        raise TypeError(f"{record_type.__name__} is no record of values after its line and column: a rule cannot judge it")
    return attrgetter(*names[2:])


_UNJUDGED = object()  # no verdict yet (a verdict may be None)


class _Judged:
    """A rule's check of the records of a kind it judges (``judge_<kind>``, see Rule): each distinct record is
    judged once, and the records equal to it in all they say (:class:`_Said`) are handed its verdict."""

    def __init__(self, judge: Callable[[Any], Any], check: Callable[[Any, Any], Iterable[Violation]], said: _Said) -> None:
        self.judge = judge
        self.check_judged = check
        self.said = said
        self.verdicts: dict[int, Any] = {}  # by the number _Said gives what a record says
        said.judged.append(self)

    def check(self, record: Any) -> Iterable[Violation]:
        said = self.said.key
        verdict = self.verdicts.get(said, _UNJUDGED)
        if verdict is _UNJUDGED:
            verdict = self.verdicts[said] = self.judge(record)
        return self.check_judged(record, verdict)


def _report_crash(collector: _Collector, rule: Rule, error: Exception, line: int | None) -> None:
    where = f" at line {line}" if line else ""
    message = f"rule {rule.code} ({rule.name}) failed{where} and was skipped for this file: {type(error).__name__}: {error}"
    _internal_error(collector, Violation(line, None, message))


def _internal_error(collector: _Collector, violation: Violation) -> None:
    """TL000 is a rule like any other for selection: `--ignore TL000` silences it."""
    if collector.selection.enabled(INTERNAL_ERROR[0]):
        collector.add(*INTERNAL_ERROR, violation)


# -- many files ------------------------------------------------------------------------------------


class _Task(Record):
    """A file to read, with its format, and the run it belongs to."""

    __slots__ = ("source", "format", "asked", "run", "named_rank", "cache_entry", "detected_at")

    def __init__(self, source: Source, format: str, asked: bool, detected_at: cache.Stamp | None = None) -> None:
        self.source = source
        self.format = format
        self.asked = asked  # named by the user (else read only to complete a run)
        self.run: RunKey | None = None
        self.named_rank = -1
        self.cache_entry: str | None = None  # its cache key, when the parent could tell it without reading the file
        self.detected_at = detected_at  # the file's stamp when its format was detected here: remembered with its digest


def _plan(paths: list[str], options: CheckOptions, report: CheckReport) -> list[_Task]:
    """What to read: the files asked for, with their formats, and the sibling ranks of their runs."""
    walked = expand(paths, options.walk)
    report.summary.input_errors.extend(walked.errors)
    report.summary.not_followed.extend(walked.not_followed)
    tasks: list[_Task] = []
    unrecognised: list[Source] = []  # walked files of no format: skipped, unless they are a run's rank files
    for source in walked.sources:
        report.summary.files += 1
        if not options.trace_format and source.path.suffix.lower() in NOT_A_TRACE:  # named: a walk passes them over
            report.summary.skipped.append(source.display)
            continue
        try:
            detection, detected_at = (formats.Detection(options.trace_format), None) if options.trace_format else _detected(source, options)
        except InputError as error:
            report.summary.input_errors.append(str(error))
            continue
        if detection.format is not None:
            tasks.append(_Task(source, detection.format, asked=True, detected_at=detected_at))
        elif source.named or source.head_damage is not None:
            _report_unrecognised(source, detection, options, report)
        else:
            unrecognised.append(source)

    stems: dict[RunKey, dict[Path, _Task]] = defaultdict(dict)  # run stem -> its files, asked or not
    stem_formats: dict[RunKey, str] = {}  # the run format of the files that named the stem
    names: dict[Path, NamedFile] = {}
    run_formats = formats.run_formats()
    for task in tasks:
        if task.format in run_formats and (named := run_key(task.source.path, _rank_pattern(task.format, options))):
            stems[named.key][named.path] = task
            stem_formats.setdefault(named.key, task.format)
            names[named.path] = named
    for source in unrecognised:
        # Skipped, a damaged rank file would only cost its run a rank, a warning at most.
        named = next((found for name in run_formats if (found := damaged_rank(source.path, _rank_pattern(name, options), stem_formats))), None)
        if named is None:
            report.summary.skipped.append(source.display)
            continue
        tasks.append(_Task(source, stem_formats[named.key], asked=True))
        stems[named.key][named.path] = tasks[-1]
        names[named.path] = named
    asked_tasks = len(tasks)
    asked: set[Path] | None = None  # resolved: made only for a sibling not already among the files (resolving costs)
    for stem in sorted(stems):
        run_format = stem_formats[stem]
        for named in siblings(stem, _rank_pattern(run_format, options)):
            if named.path in stems[stem]:
                continue
            asked = asked if asked is not None else {task.source.path.resolve() for task in tasks[:asked_tasks]}
            if named.path.resolve() in asked:
                continue
            sibling = Source(named.path, printable_path(str(named.path)))
            try:
                detection, detected_at = _detected(sibling, options)
            except InputError:
                continue
            if detection.format != run_format:
                continue
            tasks.append(_Task(sibling, run_format, asked=False, detected_at=detected_at))
            stems[stem][named.path] = tasks[-1]
            names[named.path] = named
    for files in stems.values():
        for key, group in split_by_time(names[path] for path in files).items():
            # A lone rank file is not a run; another run of the stem that none of the asked files is in
            # is not the user's concern.
            if len(group) < 2 or not any(files[named.path].asked for named in group):
                continue
            for named in group:
                files[named.path].run, files[named.path].named_rank = key, named.rank
    return [task for task in tasks if task.asked or task.run is not None]


def _rank_pattern(format_name: str, options: CheckOptions) -> re.Pattern[str]:
    """How the files of a run of ``format_name`` name their rank: ``--rank-regex`` when given, else the format's own
    naming (its descriptor's ``rank_name``), else the default ``…rank<R>…``."""
    own = formats.rank_name(format_name)
    return own if own is not None and options.rank_regex is DEFAULT_RANK_REGEX else options.rank_regex


def _detected(source: Source, options: CheckOptions) -> tuple[formats.Detection, cache.Stamp | None]:
    """The format of the file, and - when it was detected here, with the cache on - the file's stamp then, for
    the cache to remember the format with the file's digest: an unchanged file is not read to detect it again."""
    if not options.use_cache:
        return formats.identify(source.head(), source.head_bytes), None
    remembered, stamp = cache.detected_format(source.path)
    if remembered is not None:
        return formats.Detection(remembered), None
    detection = formats.identify(source.head(), source.head_bytes)
    recognised = detection.format is not None and source.head_damage is None
    return detection, stamp if recognised else None


def _report_unrecognised(source: Source, detection: formats.Detection, options: CheckOptions, report: CheckReport) -> None:
    """A file of no known format that must not pass: it was named as a trace, or its compressed data is damaged."""
    collector = _Collector(source.display, options.selection, options.max_findings)
    if source.head_damage is not None:  # which says why no format could be seen
        collector.problem(source.head_damage)
    else:
        collector.problem(SyntaxProblem(1, 1, UNKNOWN_FORMAT, f"{detection.explanation()} (use --trace-format to force one)"))
    report.summary.checked += 1
    report.files.append(FileResult(path=source.display, format=None, parsed=False))
    report.findings.extend(collector.findings)


def _run_task(options: CheckOptions, task: _Task) -> tuple[FileOutcome | None, str | None]:
    """Check one file the parent could not serve from the cache, and store its outcome; an unreadable file
    is an error message.  A file whose digest the parent did not remember (new, changed or moved) is hashed
    here, where it is read anyway, and may still be a hit."""
    try:
        if options.use_cache and task.cache_entry is None and (hit := _cached(options, task, remembered_only=False)) is not None:
            return hit, None
        entry = task.cache_entry if options.use_cache else None
        # Run rules read no times: without them the parent gets smaller summaries, alike for a stage's peers.
        outcome = check_file(task.source, task.format, options, rules=task.asked, summarize=task.run is not None, timed=False)
        if entry is not None:
            cache.store(entry, task.source.display, outcome.result, outcome.findings, outcome.not_shown, outcome.summary)
            outcome.cache_entry = entry
        return outcome, None
    except InputError as error:
        return None, str(error)
    except OSError as error:  # the file vanished or failed while being read
        return None, f"{task.source.display}: cannot read: {error.strerror or error}"


def _cached(options: CheckOptions, task: _Task, *, remembered_only: bool) -> FileOutcome | None:
    """The stored outcome of an unchanged file, or None: a miss, or a file that cannot be read (its check
    says why), or - with ``remembered_only`` - a file whose digest is not remembered for its stat().
    ``task.cache_entry`` keeps the key when one could be made."""
    try:
        detected = (task.format, task.detected_at) if task.detected_at is not None else None
        task.cache_entry = entry = cache.key(task.source, _cache_settings(task, options), remembered_only=remembered_only, detected=detected)
    except (InputError, OSError):
        return None
    if entry is None or (hit := cache.load(entry, task.source.display)) is None:
        return None
    result, findings, not_shown, packed_summary = hit
    return FileOutcome(result, findings, not_shown, cache_entry=entry, packed_summary=packed_summary)


def _cache_settings(task: _Task, options: CheckOptions) -> str:
    """Everything besides the file's bytes that its cached result depends on; not its path, so that a moved tree hits."""
    selection = options.selection
    ignored = selection.ignored_for(task.source.display)
    named = selection.consumer_for(task.source.display, task.format)  # an inferred consumer follows from the file's bytes
    # A format with a naming of its own (chakra-et's PREFIX.<npu>.et) judges a file by the rank its name gives.
    named_rank = run_key(task.source.path, _rank_pattern(task.format, options)) if formats.named(task.format).rank_name else None
    asked = (task.format, task.asked, task.run is not None, ignored, named, named_rank.rank if named_rank else None)
    if asked not in options.cache_settings:  # the same few texts for every file: made once each
        options.cache_settings[asked] = cache.settings_text(
            {
                "format": task.format,
                "rules": task.asked,
                "summary": "untimed" if task.run is not None else False,  # what _run_task stores
                "severities": selection.severities,
                "configured_severities": selection.configured_severities,
                "consumer": [named.consumer, named.reason] if named is not None else None,
                "options": selection.options_json(task.format),
                "ignored": sorted(ignored),
                "max_findings": options.max_findings,
                "rank": asked[-1],
            }
        )
    return options.cache_settings[asked]


@lru_cache(maxsize=1)
def freeze_loaded_objects() -> None:
    """Exempt what is loaded by now (modules, grammars, rules: it lives until exit) from garbage collection.

    Reading a large file allocates records by the million, and each full collection they trigger would
    otherwise walk all of it again (about 7 % of a check's time); forked workers also share it unwritten.
    Once per process: what is frozen is never collected.  The command line calls it before it lets the
    collector run again after start-up (lint.cli), whose objects would otherwise all be walked once.
    """
    gc.freeze()


@contextmanager
def _collection_paused() -> Iterator[None]:
    """Automatic garbage collection off while this process gathers the rank summaries and runs the run rules.

    What it builds then - every rank's summary and steps - is free of reference cycles and lives until the
    run rules are done: each full collection walked all of it again and freed nothing (0.4 CPU seconds of a
    10,000-rank check).  Not while files are parsed here: a parser's garbage is for the collector.
    """
    if not gc.isenabled():  # paused already (or by the embedding program): it stays as it is
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


class _StepSharing:
    """Enters each run format's ``summaries_shared`` (the summaries of a stage's peers share what is equal in
    them) for the rest of ``scope`` when a summary of that format is first to be built or unpacked: a check
    served from the cache builds none, and does not import them."""

    def __init__(self, scope: ExitStack) -> None:
        self.scope = scope
        self.entered: set[str] = set()

    def __call__(self, format_name: str) -> None:
        if format_name not in self.entered:
            self.scope.enter_context(formats.summaries(format_name).summaries_shared())
            self.entered.add(format_name)


def _execute(
    tasks: list[_Task], options: CheckOptions, progress: executor.Progress | None, sharing: _StepSharing
) -> list[tuple[FileOutcome | None, str | None]]:
    """Every task's outcome: unchanged files from the cache, read here; the others checked on the backend."""
    outcomes: list[tuple[FileOutcome | None, str | None]] = [(None, None)] * len(tasks)
    misses: list[int] = []
    for index, task in enumerate(tasks):
        hit = _cached(options, task, remembered_only=True) if options.use_cache else None
        if hit is None:
            misses.append(index)
        else:
            outcomes[index] = (hit, None)
    for format_name in sorted({tasks[index].format for index in misses if tasks[index].run is not None}):  # only the files of runs are summarized
        sharing(format_name)
    if len(misses) > 1 and options.backend.forks:
        # Built and loaded before workers are forked, which then inherit them; only for the formats that will be read.
        for format_name in sorted({tasks[index].format for index in misses}):
            formats.parser(format_name)
            options.selection.rules_for(format_name, Scope.FILE)
    checked = executor.run_each(
        _run_task,
        options,
        [tasks[index] for index in misses],
        options.backend,
        progress,
        cleanup=disk.prune if options.use_cache and misses else None,  # nothing was written: nothing to prune
    )
    for index, outcome in zip(misses, checked, strict=True):
        outcomes[index] = outcome
    return outcomes


def check(paths: list[str], options: CheckOptions, progress: executor.Progress | None = None) -> CheckReport:
    report = CheckReport()
    freeze_loaded_objects()  # before planning, whose thousands of sources would make collections walk it all
    tasks = _plan(paths, options, report)
    with ExitStack() as scope:
        sharing = _StepSharing(scope)
        if options.backend.forks:  # forked workers read the files: this process only gathers what they send
            scope.enter_context(_collection_paused())
        runs = _gathered(tasks, _execute(tasks, options, progress, sharing), report)
        scope.enter_context(_collection_paused())
        _check_runs(runs, frozenset(task.source.display for task in tasks if task.asked), options, report, sharing)
    report.findings.sort(key=Finding.sort_key)
    report.count_severities()
    return report


def _gathered(tasks: list[_Task], outcomes: list[tuple[FileOutcome | None, str | None]], report: CheckReport) -> dict[RunKey, list[tuple[_Task, FileOutcome]]]:
    """The files' results into the report; the members of each run, for the run rules."""
    summary = report.summary
    runs: dict[RunKey, list[tuple[_Task, FileOutcome]]] = defaultdict(list)
    for task, (outcome, error) in zip(tasks, outcomes, strict=True):
        if error is not None:
            if task.asked:
                summary.input_errors.append(error)
            continue
        assert outcome is not None
        if task.run is not None and (outcome.summary is not None or outcome.packed_summary is not None):
            runs[task.run].append((task, outcome))
        if not task.asked:
            continue
        summary.checked += 1
        report.files.append(outcome.result)
        report.findings.extend(outcome.findings)
        for code, count in outcome.not_shown.items():
            summary.not_shown[code] = summary.not_shown.get(code, 0) + count
    return runs


def _check_runs(
    runs: dict[RunKey, list[tuple[_Task, FileOutcome]]], asked: frozenset[str], options: CheckOptions, report: CheckReport, sharing: _StepSharing
) -> None:
    """The run rules' findings on each run; a run's summaries are let go once it is checked (and all of them
    before garbage collection resumes, whose first pass would otherwise walk them all)."""
    for key in sorted(runs):
        findings, withheld = _checked_run(key, runs.pop(key), asked, options, sharing)
        report.findings.extend(findings)
        if withheld is not None:
            report.summary.withheld.append(withheld)


def _withheld_note(run: Run[Any], count: int, broken: set[int]) -> str:
    ranks = ", ".join(str(rank) for rank in sorted(broken))
    stages = ", ".join(str(stage) for stage in sorted({run.stage_of(rank) for rank in broken}))
    findings = f"{count} run finding{'s' if count != 1 else ''}"
    return f"{run.label}: {findings} about {run.part} {stages} not shown: they follow from the syntax errors in the file of rank {ranks}; fix those and check again"


def _checked_run(
    key: RunKey, members: list[tuple[_Task, FileOutcome]], asked: frozenset[str], options: CheckOptions, sharing: _StepSharing
) -> tuple[list[Finding], str | None]:
    """The run rules' findings on one run, and a note on those withheld as following from syntax errors.

    From the cache when neither its files nor what else they depend on changed.  A run with broken files
    is not stored (its note would be lost on a hit); a stated layout that does not fit stops the check.
    """
    entries = [outcome.cache_entry for _, outcome in members]
    entry = None
    if options.use_cache and None not in entries:
        entry = cache.run_key(
            [
                repr(key),
                options.rank_regex.pattern,
                repr(options.layout),
                *sorted(
                    f"{entry} {task.named_rank} {task.source.display} {task.source.display in asked}" for entry, (task, _) in zip(entries, members, strict=True)
                ),
            ]
        )
        if (hit := cache.load_findings(entry)) is not None:
            return hit, None
    from lint.runs.assemble import assemble, stated_layout_misfit

    format_name = members[0][0].format
    sharing(format_name)
    summaries: list[tuple[RankSummary, int]] = []
    broken: set[int] = set()  # ranks whose files have syntax errors
    for task, outcome in members:
        if (summary := _summary_of(task, outcome, options)) is None:
            continue
        summaries.append((summary, task.named_rank))
        if not outcome.result.parsed:
            broken.add(summary.rank if summary.rank is not None else task.named_rank)
    run = assemble(key, summaries, asked, options.layout, formats.summaries(format_name).Run)
    if run is None:
        return [], None
    if (misfit := stated_layout_misfit(run, options.layout.command_line)) is not None:
        raise ConfigError(misfit)
    findings, withheld = check_run(run, format_name, options, frozenset(broken))
    if withheld:
        return findings, _withheld_note(run, withheld, broken)
    if entry is not None:
        cache.store_findings(entry, findings)
    return findings, None


def _summary_of(task: _Task, outcome: FileOutcome, options: CheckOptions) -> RankSummary | None:
    """A rank's summary: as computed, else from its cache entry, else (a damaged entry, or steps a worker named
    by a number not received) computed again."""
    if outcome.summary is None and outcome.packed_summary is not None:
        outcome.summary = cache.summary(task.source.display, outcome.packed_summary, formats.summaries(task.format).RankSummary.unpacked)
        if outcome.summary is None:
            outcome.summary = _summarized_again(task, options)
    elif outcome.summary is not None and outcome.summary.lost:
        outcome.summary = _summarized_again(task, options)
    return outcome.summary


def _summarized_again(task: _Task, options: CheckOptions) -> RankSummary | None:
    again, _ = _run_task(options.replace(use_cache=False), task.replace(asked=False))
    return again.summary if again is not None else None


def check_run(run: Run[Any], format_name: str, options: CheckOptions, broken: frozenset[int] = frozenset()) -> tuple[list[Finding], int]:
    """The run rules' findings, and how many were withheld because they follow from a syntax error.

    A finding on a file the user did not name is reported on the run.  A record a file lost to a syntax
    error (TL001, in the file of a ``broken`` rank) makes its rank look wrong to every rule that counts
    records, and by comparison its stage peers and the ranks it pairs with: the findings on the ranks of
    the stages that hold such a file, and those about a pair with one of their ranks, wait until it is fixed.
    """
    collector = _Collector(run.label, options.selection, options.max_findings)
    cascading = {run.stage_of(rank) for rank in broken}
    withheld = 0
    for rule in options.selection.rules_for(format_name, Scope.RUN):
        try:
            # Run rules define check_run; Rule does not declare it (a RunRule base the tl5* rules derive from would).
            for violation in rule.check_run(run):  # type: ignore[attr-defined]
                if cascading and any(rank is not None and run.stage_of(rank) in cascading for rank in (violation.rank, violation.peer)):
                    withheld += 1
                    continue
                if violation.path is not None and violation.path not in run.asked:
                    where = f" ({violation.path}, line {violation.line})" if violation.line else f" ({violation.path})"
                    violation = Violation(None, None, violation.message + where, violation.rank)
                if violation.path is not None and options.selection.ignored_for(violation.path) & {rule.code}:
                    continue
                collector.add(rule.code, rule.name, violation)
        except Exception as error:
            _report_crash(collector, rule, error, None)
    return collector.findings, withheld
