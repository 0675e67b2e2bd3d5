"""``optprime-log``: tile OptimusPrime/torchrun console lines into :mod:`lint.formats.optprime_log.records` records.

A physical line holds one record or several: ranks print concurrently, and process prefixes such as
``[rank3]:`` introduce the record that follows them.  Tiling walks a line from the left.  At each
position the start rules of ``grammars/optprime-log.lark`` (one regex, in grammar order) say whether a
known kind begins there; the regex derived from that kind's rule must then match a whole record that ends
at the end of the line or where another record begins.  Where no kind begins, the text is foreign
(``other``) up to the next complete record of a kind that ranks print concurrently.  A position that
commits to a kind without holding a complete record is handed to Lark, which says where and why (TL001).
Lark never sees foreign text, and valid records never reach Lark.

Records then get the rank the writer's structure implies where their text does not say it
(:mod:`lint.formats.optprime_log.attribution`); the values of their fields are converted by
:mod:`lint.formats.optprime_log.fields`.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable, Iterable, Iterator
from functools import cache, cached_property
from typing import TYPE_CHECKING, Any, cast

from lint.formats.descriptor import HEAD_LINES, Evidence
from lint.formats.optprime_log.attribution import Attribution
from lint.formats.optprime_log.fields import CONVERTERS, WRITTEN_OUT_BUILDS, RecordRule, as_text, mesh_dims, optional
from lint.formats.optprime_log.records import (
    RECORD_TYPES,
    DeviceMesh,
    LayerTimingRecord,
    OtherRecord,
    Record,
)
from lint.models.common import SyntaxProblem, fits_int64
from lint.parse.alternation import Alternation
from lint.parse.grammar import Grammar, NotDiagnosed, quote
from lint.store.resources import grammar_path

if TYPE_CHECKING:  # Lark judges only the records the fast path rejects: a log without one never imports it
    from lark import Lark
    from lark.exceptions import UnexpectedInput

NAME = "optprime-log"
SYNTAX_CODE = "TL001"

_START_RULE = re.compile(r"^_(\w+)_start:", re.M)

# Record rules named other than their record kind.
_RULE_KINDS = {
    "config_count": "config",
    "config_plain_count": "config",
    "config_parameters": "config",
    "config_ir": "config",
    "config_name": "config",
    "placement_metadata_range": "metadata_range",
    "placement_fx_node": "fx_node",
}
# Record fields a rule's text does not carry: which rule matched says it.
_RULE_CONSTANTS: dict[str, dict[str, str]] = {
    "placement_metadata_range": {"listing": "placement"},
    "fx_node": {"listing": "graph"},
    "placement_fx_node": {"listing": "placement"},
}
# Grammar field -> record field, where the grammar needs a name of its own.
_RENAMED = {
    "prefix_space": "spaced",
    "log_time": "time",
    "python_level": "level",
    "check_status": "status",
    "count_label": "label",
    "plain_count_label": "label",
    "parameters_label": "label",
    "ir_label": "label",
    "name_label": "label",
    "count": "value",
    "plain_count": "value",
    "parameters": "value",
    "ir_mode": "value",
    "setting_name": "value",
    "device_kind": "device",
    "mesh_groups": "groups",
    "tp_adjust_detail": "detail",
    "stage_ranks": "stages",
    "split_mark": "split",
    "fx_op": "op",
    "fx_name": "name",
    "fx_target": "target",
    "fx_args": "args",
    "fx_inputs": "input_nodes",
    "warning": "message",
    "getitem_key": "key",
    "getitem_module": "module",
    "getitem_index": "index",
    "wiring_source": "source",
    "wiring_target": "target",
    "special_entries": "nodes",
    "exception_name": "name",
    "exception_message": "message",
    "signal_name": "signal",
    "signal_value": "signal",
    "root_cause_heading": "root_cause",
    "failure_label": "key",
    "failure_value": "value",
    "tp_head_marker": "marker",
    "tp_head_arrow": "arrow",
    "frame_path": "path",
    "frame_function": "function",
    "usage_message": "message",
    "split_plan_label": "label",
    "split_plan_value": "value",
    "warning_path": "path",
    "warning_category": "category",
}
# A process prefix is followed by a line of its own: a record of any kind, or foreign text.  Foreign
# text after a log header is the header's message.
_PREFIX_RULES = frozenset({"rank_prefix", "tee_prefix", "torch_log", "c10_log", "python_log", "python_warning"})
_LOG_RULES = frozenset({"torch_log", "c10_log", "python_log", "python_warning"})
_CONCURRENT_MEMO_SIZE = 4096  # texts remembered (see _next_concurrent), each of at most
_CONCURRENT_MEMO_TEXT = 1024  # characters: 4 M characters at most
# A name's greedy match takes at most the first word of the record glued to it: the record is looked for
# this far back from where the match ended (see _cut_short), so that a damaged huge name costs linear time.
_GLUED_WORD = 256
# What ranks print concurrently, looked for inside foreign text: a complete record of these kinds there
# is another process's output that landed on the same line (print() writes its text and its newline apart).
# Left out: separators (runs of dashes inside any text), tracebacks and torchrun's failure report, whose
# lines a foreign line may quote.
_CONCURRENT_RULES = (
    "rank_prefix",
    "tee_prefix",
    "torch_log",
    "c10_log",
    "python_log",
    "python_warning",
    "env_check",
    "config_count",
    "config_plain_count",
    "config_parameters",
    "config_ir",
    "config_name",
    "device_mode",
    "process_groups",
    "tp_adjust",
    "stage2rank",
    "split_plan",
    "split_stats",
    "metadata_range",
    "placement_metadata_range",
    "partitioner_ranges",
    "fx_graph_header",
    "fx_node",
    "placement_fx_node",
    "split_summary",
    "split_warning",
    "getitem_table_header",
    "getitem_entry",
    "stage_wiring",
    "rank_notice",
    "barrier",
    "tp_head_adjust",
    "rank_banner",
    "last_layer",
    "device_use",
    "mode_banner",
    "mode_processing",
    "module_placement",
    "clean_module_memory",
    "cross_ref_header",
    "special_nodes",
    "timing_header",
    "layer_timing",
    "epoch_progress",
    "run_completed",
    "time_elapsed",
)
_WARNING_INDEX = _CONCURRENT_RULES.index("python_warning")
# Kinds any Python or torchrun program prints (and notes quote, as `[rank3]: Traceback ...`): they do not make
# a file an optprime log.
_GENERIC_KINDS = frozenset(
    {
        "other",
        "separator",
        "python_log",
        "python_warning",
        "traceback",
        "traceback_frame",
        "exception_ignored",
        "exception",
        "usage_error",
        "syntax",
        "rank_prefix",
        "tee_prefix",
    }
)
# What torchrun itself prints for whatever program it launches - its log lines, and the report of a failed
# worker (``torch/distributed/elastic/multiprocessing/errors``) - is part of an optprime log, but a Megatron or
# any other console log of a torchrun job has it too: alone, it takes a sign that OptimusPrime ran (_OPTIMUS).
_LAUNCHER_KINDS = frozenset(
    {
        "torch_log",
        "c10_log",
        "child_failed",
        "closing_signal",
        "death_signal",
        "failure_title",
        "failure_section",
        "no_other_failures",
        "failure_index",
        "failure_rank",
        "failure_exitcode",
        "failure_signal",
        "failure_field",
    }
)
# The package (``opt_prime``, in a traceback's frames or an import) and its training scripts (``pp_train_*.py``
# upstream, ``train_llama.py`` in eungyeonglee-dev/aicomp's examples; Megatron's is ``pretrain_llama.py``), named
# by torchrun's failure report: a run that failed before printing any record of its own names them.
_OPTIMUS = re.compile(r"opt_prime|pp_train_\w*\.py|(?<!\w)train_llama\.py")
_DETECT_KINDS = 2
# An optprime log interleaves other output (model prints, warnings) with its records, but not by far so much
# as a note or a source file that quotes a few of them.
_DETECT_SHARE = 0.05


def detect(lines: list[str]) -> Evidence:
    """At least two distinct opt_prime record kinds among the first lines, valid or broken, on a fair part of them.

    A console whose first lines are all the launcher's own log lines (torchrun and torch at ``LOGLEVEL=DEBUG``,
    ``TORCH_LOGS``, ``TORCH_DISTRIBUTED_DEBUG``: ``I1127 10:00:00.000 ... api.py:525] ...``) may print
    OptimusPrime's first record only after them: the lines from that record on are weighed instead.
    """
    parser = shared_parser()
    kinds: list[set[str]] = []  # of each line read so far: each line is read once, however far the detector looks

    def kinds_at(index: int) -> set[str]:
        while len(kinds) <= index:
            text = lines[len(kinds)]
            kinds.append(_specific_kinds(parser.kinds_in([text])) if text.strip() else set())
        return kinds[index]

    first = range(min(len(lines), HEAD_LINES))
    evidence = _evidence(lines, first, kinds_at)
    if evidence or len(lines) <= len(first) or not any(kinds_at(index) & _LAUNCHER_KINDS for index in first):
        return evidence
    record = next((index for index in range(len(lines)) if kinds_at(index) - _LAUNCHER_KINDS), None)
    if record is None:
        return evidence
    later = _evidence(lines, range(record, min(len(lines), record + HEAD_LINES)), kinds_at)
    return later if later else evidence


def _evidence(lines: list[str], window: range, kinds_at: Callable[[int], set[str]]) -> Evidence:
    """Whether the ``window`` of ``lines`` is an optprime log's; ``kinds_at`` gives a line's record kinds."""
    filled = [index for index in window if lines[index].strip()]
    kinds = set().union(*(kinds_at(index) for index in filled))
    holding = sum(1 for index in filled if kinds_at(index))
    share = holding / len(filled) if filled else 0.0
    seen = f"{holding} of {len(filled)} non-empty lines hold opt_prime records, of {len(kinds)} kind{'' if len(kinds) == 1 else 's'}"
    if len(kinds) < _DETECT_KINDS or share < _DETECT_SHARE:
        return Evidence(False, share, f"{seen} (an optprime log has at least {_DETECT_KINDS} kinds, on {_DETECT_SHARE:.0%} of its lines or more)")
    if kinds <= _LAUNCHER_KINDS and not any(_OPTIMUS.search(lines[index]) for index in filled):
        return Evidence(False, share, f"{seen}, all of them torchrun's, and no line names OptimusPrime (opt_prime, its training scripts)")
    return Evidence(True, share, seen)


def _specific_kinds(kinds: set[str]) -> set[str]:
    """The opt_prime kinds of one line's records.  A log header counts only where its message is not a record
    of its own: one quoted torchrun line (`W0105 ... api.py:897] Sending process 4301 closing signal`) is
    not two kinds."""
    specific = kinds - _GENERIC_KINDS
    return specific - _LOG_RULES if len(specific) > 1 else specific


# -- the parser ----------------------------------------------------------------------------------


# A Python warning starts with its file's path (``WARNING_PATH``: ``[^\s:]+\.py`` or ``<…>``), an unbounded run: a
# regex search for it tries every position of a line and runs to the end of the path-like text from each, so a
# line of 20,000 characters without a space took 1.7 s, and one of a megabyte hours.  _search_warning finds
# what comes after the path instead (a linear search), then where the path can begin: the start of its run of
# path characters, or the ``<`` of ``<frozen …>``, no further back than PATH_MAX.
_AFTER_WARNING_PATH = re.compile(r"(?:\.py|>):[0-9]+: [A-Z][A-Za-z0-9_]*Warning: ")
_UP_TO_LAST_SEPARATOR = re.compile(r".*[\s:]", re.S)
_PATH_MAX = 4096  # Linux's limit on a path


def _search_warning(pattern: re.Pattern[str], text: str, position: int) -> int | None:
    """``pattern.search(text, position).start()`` for the start rule of a Python warning, in linear time (for
    paths up to _PATH_MAX characters)."""
    best: int | None = None
    for after in _AFTER_WARNING_PATH.finditer(text, position):
        end = after.start()
        if best is not None and end - _PATH_MAX > best:
            break  # no later path can begin before the best start found
        window = max(position, end - _PATH_MAX)
        separator = _UP_TO_LAST_SEPARATOR.match(text, window, end)
        starts = [separator.end() if separator else window]
        if text[end] == ">":
            opened = text.find("<", text.rfind(">", window, end) + 1 or window, end)
            if opened >= 0:
                starts.append(opened)
        for start in sorted(starts):
            if (best is None or start < best) and pattern.match(text, start):
                best = start
                break
    return best


class Parser:
    """Builds the grammar, the start regexes and one derived regex per record rule; ``parse`` streams records."""

    def __init__(self, *, fast: bool = True) -> None:
        """``fast=False``: Lark parses every record the regexes delimit (the agreement tests compare the two)."""
        self.fast = fast
        rules = _START_RULE.findall(grammar_path(NAME).read_text(encoding="utf-8"))
        self.grammar = Grammar(NAME, start=[*rules, "exception"], positions=True)
        self._starts = self._alternation(rules)
        self._start_rules = tuple(rules)
        rules.append("exception")
        self._patterns = _Derived(lambda rule: self.grammar.derive(rule, set(self.grammar.field_names(rule))).regex)
        types = {record_type.kind: record_type for record_type in RECORD_TYPES}
        converters = {**CONVERTERS, "mesh_groups": optional(self._mesh_groups)}
        self._records = {
            rule: RecordRule(
                types[_RULE_KINDS.get(rule, rule)],
                tuple((name, _RENAMED.get(name, name), converters.get(name, as_text)) for name in self.grammar.field_names(rule)),
                _RULE_CONSTANTS.get(rule, {}),
            )
            for rule in rules
        }
        self._rules_of_kind: dict[str, list[str]] = {}  # record kind -> the rules that read such records
        for rule in rules:
            self._rules_of_kind.setdefault(self._records[rule].record_type.kind, []).append(rule)
        # Rules whose last field is free text (``TEXT``) -> that field: the text runs to the end of the line, and
        # so over another rank's record printed right after it (see _text_cut_short).
        self._text_tails = {rule: fields[-1] for rule in rules if (fields := self.grammar.field_names(rule)) and self._is_free_text(fields[-1])}
        self._match_builds: dict[str, Callable[[int, int, re.Match[str]], Record]] = {
            rule: WRITTEN_OUT_BUILDS.get(rule, spec.build) for rule, spec in self._records.items()
        }
        self._terminals: dict[str, frozenset[str]] = {}  # per rule, filled when a record first fails: Lark is built only then
        self._concurrent_memo: dict[str, int] = {}  # foreign text -> where the next concurrent record starts in it

    # The regexes below are compiled when first needed (foreign text, a broken record, a process group line).

    @cached_property
    def _concurrent(self) -> list[re.Pattern[str]]:
        return [self.grammar.derive(f"_{rule}_start").regex for rule in _CONCURRENT_RULES]

    @cached_property
    def _start_ranks(self) -> dict[str, re.Pattern[str]]:
        """The rank a broken record says it belongs to."""
        return {
            rule: self.grammar.derive(f"_{rule}_start", {"rank"}).regex for rule in self._start_rules if "rank" in self.grammar.field_names(f"_{rule}_start")
        }

    @cached_property
    def _glued_print(self) -> re.Pattern[str]:
        return self.grammar.derive("_glued_print").regex

    @cached_property
    def _mesh_group(self) -> re.Pattern[str]:
        return self.grammar.derive("mesh_group", {"group_name"}).regex

    @cached_property
    def _mesh_styles(self) -> dict[str, re.Pattern[str]]:
        return {
            style: self.grammar.derive(f"mesh_{style}", set(self.grammar.field_names(f"mesh_{style}"))).regex
            for style in ("legacy_list", "list", "device_list", "shape")
        }

    def _alternation(self, rules: Iterable[str]) -> Alternation:
        """The start rules of ``rules``, tried in order; the group that matched names the rule."""
        return Alternation({rule: self.grammar.derive(f"_{rule}_start").text for rule in rules})

    def kinds_in(self, lines: list[str]) -> set[str]:
        """The kinds of the records in ``lines``, and of those a line starts and then breaks."""
        kinds = {item.kind for item in self.parse(enumerate(lines, 1))}
        starts = (self._starts.match(line) for line in lines)
        rules = (start.lastgroup for start in starts if start is not None and start.lastgroup is not None)
        kinds.update(_RULE_KINDS.get(rule, rule) for rule in rules)
        return kinds

    # -- where a field is -------------------------------------------------------------------------

    def column_of(self, record: Record, field: str, index: int | None = None) -> int | None:
        """The 1-based column of ``field``'s value in ``record`` on its line, as its rule's derived regex finds it;
        None where it cannot be told (``index`` is for formats with sub-records; none here)."""
        text = getattr(record, "line_text", None)
        if text is None or index is not None:
            return None
        for rule in self._rules_of_kind.get(record.kind, ()):
            group = next((name for name, attribute, _ in self._records[rule].fields if attribute == field), None)
            if group is None:
                continue
            match = self._patterns[rule].match(text, record.column - 1)
            if match is not None and match.start(group) >= 0:
                start, end = match.span(group)
                return start + len(text[start:end]) - len(text[start:end].lstrip(" ")) + 1  # past a number's padding
        return None

    # -- streaming ------------------------------------------------------------------------------

    def parse(self, lines: Iterable[tuple[int, str]]) -> Iterator[Record | SyntaxProblem]:
        """The records of each line, tiled from the left (one loop for all lines: this runs per record, so
        the common case, a record the derived regex matches to the end of its line, is written out here
        rather than through _record_at)."""
        attribution = Attribution()
        attribute = attribution.by_kind.get
        starts = self._starts
        start_at = starts.match
        patterns, builds, fast = self._patterns, self._match_builds, self.fast
        text_tails = self._text_tails
        for number, text in lines:
            position = 0
            length = len(text)
            line_start = True  # where a line's own text begins: column 1, or after a process prefix
            line_rank: int | None = None  # from a [rankN]: prefix
            attribution.process = None  # which process printed the line, as its prefix says: [rankN]: or [defaultN]:
            layers = 0  # layer records so far on this line
            while position < length:
                start = start_at(text, position)
                rule = start.lastgroup if start is not None else self._exception_at(text, position, line_start, attribution)
                if rule is None:
                    end = self._next_concurrent(text, position + 1)
                    yield OtherRecord(number, position + 1, text[position:end], rank=line_rank)
                    position, line_start = end, False
                    continue
                match = patterns[rule].match(text, position)
                if match is not None and rule in text_tails:
                    match = self._text_cut_short(rule, text, position, match)
                item: Record | SyntaxProblem | None = None
                if fast and match is not None and match.end() == length:
                    try:
                        item, end = builds[rule](number, position + 1, match), length
                    except OverflowError:  # Lark decides and explains
                        item = None
                if item is None:
                    item, end = self._record_at(rule, number, text, position, line_rank, match)
                prefix = rule in _PREFIX_RULES
                if isinstance(item, Record):
                    item.line_text = text  # type: ignore[misc]  # mypy does not see slots a dataclass(slots=True) inherits
                    if item.rank is None:
                        item.rank = line_rank
                    if prefix:
                        if rule == "rank_prefix":
                            line_rank = attribution.process = item.rank
                        elif rule == "tee_prefix":
                            attribution.process = f"{item.role}{item.local_rank}"  # type: ignore[attr-defined]
                        elif rule in _LOG_RULES and starts.match(text, end) is None:
                            stop = self._next_concurrent(text, end + 1)
                            item.message, end = text[end:stop], stop  # type: ignore[attr-defined]
                    if (handler := attribute(item.kind)) is not None:
                        handler(item, layers)
                    layers += isinstance(item, LayerTimingRecord)
                yield item
                position, line_start = end, prefix and getattr(item, "message", None) is None

    def _exception_at(self, text: str, position: int, line_start: bool, attribution: Attribution) -> str | None:
        """Where no start rule commits ``position``: an exception, if it is the line's own text and ends a traceback."""
        if line_start and attribution.in_traceback() and self._patterns["exception"].fullmatch(text, position):
            return "exception"
        return None

    def _record_at(
        self, rule: str, number: int, text: str, position: int, line_rank: int | None, match: re.Match[str] | None
    ) -> tuple[Record | SyntaxProblem, int]:
        """The record of ``rule`` at ``position`` (``match``: its derived regex's match there) and where it ends, or
        the syntax problem that breaks it."""
        if match is not None and not self._ends(rule, text, match.end()):
            match = self._cut_short(rule, text, position, match.end())
        if match is None:
            return self._parse_slowly(rule, number, text, position, line_rank)
        if self.fast:
            try:
                return self._records[rule].build(number, position + 1, match), match.end()
            except OverflowError:  # Lark decides and explains
                pass
        return self._parse_slowly(rule, number, text, position, line_rank, match.end())

    def _is_free_text(self, field_rule: str) -> bool:
        try:
            return self.grammar.alternatives(field_rule) == ("TEXT",)
        except ValueError:  # not a choice of single symbols: a structured field
            return False

    def _text_cut_short(self, rule: str, text: str, position: int, match: re.Match[str]) -> re.Match[str]:
        """The record of ``rule``, whose last field is free text, ended where a complete record of a kind ranks print
        at once begins inside that text: ``> TP adjust view (HFTracer) layer_4 proj=2: args[3]=2 -> 1`` then
        another rank's ``  layer[4]: total=…`` on the same line is two records, as foreign text before such a
        record is (the same search, :meth:`_next_concurrent`)."""
        free = match.start(self._text_tails[rule])
        if free < 0:  # the optional text is absent
            return match
        stop = self._next_concurrent(text, free + 1)
        if stop >= match.end():
            return match
        return self._patterns[rule].fullmatch(text, position, stop) or match

    def _cut_short(self, rule: str, text: str, position: int, greedy_end: int) -> re.Match[str] | None:
        """The record of ``rule`` at ``position`` ended inside what its greedy match took, where another complete
        record or one of the writers' prints of free text (``_glued_print``) begins: the last such end.

        ``print()`` writes its text and its newline in two writes, so another rank's record can follow a record
        on one line with nothing between them.  When the record ends in a name (``SETTING_NAME``, a module
        name), the name's greedy match takes the start of the other record: ``>> split method: simple``
        then ``stage2rank = {0: [0], 1: [1]}`` read as the method ``simplestage2rank`` followed by `` = {``.
        An optional last space does too: ``Time elapsed: 3.357 sec`` then `` >>> [rank:1], load optimizer ...``.
        """
        pattern = self._patterns[rule]
        for end in range(greedy_end - 1, max(position, greedy_end - _GLUED_WORD), -1):
            if self._starts.match(text, end) is not None:
                followed = self._complete_at(text, end)
            else:
                followed = self._glued_print.match(text, end) is not None
            if followed and (shorter := pattern.fullmatch(text, position, end)) is not None:
                return shorter
        return None

    def _ends(self, rule: str, text: str, end: int) -> bool:
        """A record ends at the end of the line, where another record or one of the writers' prints of free text
        (``_glued_print``) starts, or is a prefix."""
        return end == len(text) or rule in _PREFIX_RULES or self._starts.match(text, end) is not None or self._glued_print.match(text, end) is not None

    def _next_concurrent(self, text: str, position: int) -> int:
        """Where the next complete record printed by another process starts in foreign text.

        Foreign lines repeat (a warning's source line, a model's print on every rank): the answer for the text
        from ``position`` on is remembered (the regexes hold no anchor or look-behind, so it does not depend on
        what comes before), in a memo cleared when it is full and holding short texts only, so that endlessly
        new or huge text cannot grow memory.
        """
        tail = text[position:]
        if len(tail) > _CONCURRENT_MEMO_TEXT:  # a long text is not remembered: the memo's bound is one of bytes too
            return position + self._next_concurrent_in(tail)
        offset = self._concurrent_memo.get(tail)
        if offset is None:
            if len(self._concurrent_memo) >= _CONCURRENT_MEMO_SIZE:
                self._concurrent_memo.clear()
            offset = self._concurrent_memo[tail] = self._next_concurrent_in(tail)
        return position + offset

    def _next_concurrent_in(self, text: str) -> int:
        """:meth:`_next_concurrent` from the start of ``text``.  One search per start rule, not one alternation:
        each search skips ahead on its literal prefix."""
        candidates = [(found, index) for index in range(len(self._concurrent)) if (found := self._search(index, text, 0)) is not None]
        heapq.heapify(candidates)
        while candidates:
            start, index = candidates[0]
            if self._complete_at(text, start):
                return start
            found = self._search(index, text, start + 1)
            if found is None:
                heapq.heappop(candidates)
            else:
                heapq.heapreplace(candidates, (found, index))
        return len(text)

    def _search(self, index: int, text: str, position: int) -> int | None:
        """Where the ``index``-th concurrent start rule first matches in ``text`` from ``position`` on."""
        pattern = self._concurrent[index]
        if index == _WARNING_INDEX:
            return _search_warning(pattern, text, position)
        match = pattern.search(text, position)
        return None if match is None else match.start()

    def _complete_at(self, text: str, position: int) -> bool:
        """A whole record starts at ``position``; after a process prefix, a whole record or foreign text."""
        start = self._starts.match(text, position)
        if start is None:
            return False
        rule = cast(str, start.lastgroup)  # every alternative of the start regex is a named group
        match = self._patterns[rule].match(text, position)
        if match is None:
            return False
        if rule in _PREFIX_RULES:
            return self._starts.match(text, match.end()) is None or self._complete_at(text, match.end())
        return self._ends(rule, text, match.end())

    def _parse_slowly(
        self,
        rule: str,
        number: int,
        text: str,
        position: int,
        line_rank: int | None,
        end: int | None = None,
    ) -> tuple[Record | SyntaxProblem, int]:
        """Lark decides what the fast path rejected (the record at ``position``, up to ``end`` where the
        regexes delimit it): it explains the error, or (should the two ever disagree) the record runs to
        ``end`` or the end of the line."""
        from lark import Tree
        from lark.exceptions import UnexpectedInput

        rest = text[position:end]
        try:
            tree = self.grammar.parse_or_raise(rest, rule)
        except NotDiagnosed as refused:  # the file's diagnoses are spent: counted, not explained
            return self._problem(rule, number, text, position, line_rank, position + refused.column, refused.message)
        except UnexpectedInput as exc:
            if rule not in self._terminals:
                self._terminals[rule] = _terminals_of(self.grammar.lark, rule)
            error = self.grammar.explain(_expecting_only(exc, self._terminals[rule]), rest)
            return self._problem(rule, number, text, position, line_rank, position + error.column, error.message)
        fields = {str(child.data): child for child in tree.children if isinstance(child, Tree)}
        texts: dict[str, str | None] = {name: rest[child.meta.start_pos : child.meta.end_pos] for name, child in fields.items()}
        try:
            return self._build(rule, number, position + 1, texts), len(text) if end is None else end
        except _Overflow as overflow:
            value = texts[overflow.field] or ""
            # The field is the integer, or a literal that holds it (stage2rank's map, a mesh's ranks): then the
            # finding names and points at that integer.
            integer = next(match for match in _DIGITS.finditer(value) if not fits_int64(match.group()))
            if integer.group() == value.removeprefix("-"):
                expected = self.grammar.describe({self.grammar.alternatives(overflow.field)[0]})
                found, offset = value, 0
            else:
                expected, found, offset = "integers of 64 bits", integer.group(), integer.start()
            message = f"expected {expected}, found {quote(found)}, which overflows a 64-bit integer"
            column = position + fields[overflow.field].meta.start_pos + offset + 1
            return self._problem(rule, number, text, position, line_rank, column, message)

    def _problem(self, rule: str, number: int, text: str, position: int, line_rank: int | None, column: int, message: str) -> tuple[SyntaxProblem, int]:
        """The finding on a broken record at ``position``; what follows it is read again from the next record there."""
        rank = self._start_ranks[rule].match(text, position) if rule in self._start_ranks else None
        rank_number = int(rank["rank"]) if rank and fits_int64(rank["rank"]) else line_rank
        return SyntaxProblem(number, column, SYNTAX_CODE, message, rank_number), self._next_concurrent(text, position + 1)

    def _build(self, rule: str, number: int, column: int, texts: dict[str, str | None]) -> Record:
        """The record of ``rule`` from its field texts; :class:`_Overflow` for an integer beyond an int64."""
        spec = self._records[rule]
        try:
            return spec.build(number, column, dict.fromkeys(spec.fields_named, None) | texts)
        except OverflowError:
            raise _Overflow(next(grammar_name for grammar_name, _, convert in spec.fields if _overflows(convert, texts.get(grammar_name)))) from None

    def _mesh_groups(self, text: str) -> list[DeviceMesh]:
        return [self._mesh(group["group_name"], group.group()) for group in self._mesh_group.finditer(text)]

    def _mesh(self, name: str, text: str) -> DeviceMesh:
        """One ``NAME group:DeviceMesh(...)``: the style whose rule matches tells the torch version."""
        mesh = text[len(name) + len(" group:") :]
        style, match = next((style, match) for style, pattern in self._mesh_styles.items() if (match := pattern.fullmatch(mesh)))
        texts = match.groupdict()
        dims = texts.get("mesh_dims")
        dim_names, sizes = mesh_dims(dims) if dims else (CONVERTERS["mesh_dim_names"](texts.get("mesh_dim_names")), None)
        return DeviceMesh(
            name,
            style,
            device=CONVERTERS["mesh_device"](texts.get("mesh_device")),
            ranks=CONVERTERS["mesh_ranks"](texts.get("mesh_ranks")),
            dim_names=dim_names,
            sizes=sizes,
            stride=CONVERTERS["mesh_stride"](texts.get("mesh_stride")),
        )


class _Derived(dict[str, re.Pattern[str]]):
    """Record rule -> its derived regex, made when a record of the rule is first met: a log holds a few of the
    kinds, and deriving them all would cost a third of the parser's start-up."""

    def __init__(self, derive: Callable[[str], re.Pattern[str]]) -> None:
        super().__init__()
        self._derive = derive

    def __missing__(self, rule: str) -> re.Pattern[str]:
        pattern = self[rule] = self._derive(rule)
        return pattern


_DIGITS = re.compile(r"[0-9]+")


class _Overflow(Exception):
    """A field the grammar accepts holds an integer beyond an int64, which no writer prints."""

    def __init__(self, field: str) -> None:
        super().__init__(field)
        self.field = field


def _overflows(convert: Callable[[str | None], Any], text: str | None) -> bool:
    try:
        convert(text)
    except OverflowError:
        return True
    return False


def _terminals_of(lark: Lark, rule: str) -> frozenset[str]:
    """The terminals rule ``rule`` is made of (and the end of the text)."""
    expansions: dict[str, list[Any]] = {}
    for compiled in lark.rules:
        expansions.setdefault(compiled.origin.name, []).append(compiled.expansion)
    terminals, seen, pending = {"$END"}, set(), [rule]
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        for expansion in expansions.get(name, ()):
            for symbol in expansion:
                (terminals.add if symbol.is_term else pending.append)(symbol.name)
    return frozenset(terminals)


def _expecting_only(exc: UnexpectedInput, terminals: frozenset[str]) -> UnexpectedInput:
    """Drop from Lark's error what other record rules expect.

    LALR merges the look-aheads of a shared rule (``rank: INT`` is followed by `` stage:`` in one record
    and by ``, run completed ...`` in another): a record broken right after its rank would list all of them.
    """
    for attribute in ("allowed", "expected"):
        names = getattr(exc, attribute, None)
        own = {name for name in names or () if name in terminals}
        if own:
            setattr(exc, attribute, own)
    return exc


@cache
def shared_parser() -> Parser:
    """The parser detection reads the first lines with, and the one the format's views hand out
    (:func:`lint.formats.parser`): its grammar and regexes are built once per process."""
    return Parser()
