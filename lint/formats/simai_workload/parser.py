"""``simai-workload``: parse SimAI / ASTRA-sim text workloads into :mod:`lint.formats.simai_workload.records`.

Line 1 is the header, the next non-blank line the row count, every later non-blank line a layer row:
SimAI reads past blank lines with ``>>``.  Each line is judged on its own by the grammar
(``grammars/simai-workload.lark``).  Layer rows - nearly every line, and an AICB workload can have
millions - take the fast path: a regex derived from the grammar's row rule
(:meth:`lint.parse.grammar.Grammar.derive`) accepts exactly the rows the grammar does, and its groups are the
columns.  An AICB workload repeats a few dozen distinct rows once per layer instance and micro-batch, so
each distinct row text is matched and converted once per file (a memo bounded in entries and characters)
and the rows alike share ``alike`` (:func:`lint.models.common.new_alike`), by which rules remember what
they concluded.  The header and the count, and every row the regex rejects, are parsed by Lark, which says
where and why.  Before a rejected row meets Lark its tokens are counted as SimAI would read them, so
that a row with a missing or extra column gets a column-count finding (TL002) instead of a misleading
syntax error.

SimAI and ASTRA-sim 1.0 read exactly the declared number of rows and then stop
(``Workload::initialize_workload``): a line after them that is not a layer row - free-text notes, a
table of measurements - is never read, so it becomes a :class:`TrailingText` record, not a syntax
error.  A well-formed row there stays a layer row (TL403 reports it: it was meant to be simulated).  So do
the columns past the expected ones on the last declared row: they shift no later field.
"""

from __future__ import annotations

import dataclasses
import re
import sys
from collections.abc import Callable, Generator, Iterable, Iterator
from itertools import chain, islice
from typing import TYPE_CHECKING, Any, TypeVar, cast

if TYPE_CHECKING:  # Lark judges only the rows the fast path rejects: a file without one never imports it
    from lark import Token, Tree

from lint.formats.descriptor import HEAD_LINES, Evidence
from lint.formats.simai_workload import ASTRA_SIM_1, SIMAI
from lint.formats.simai_workload.records import (
    CUSTOMIZED,
    KINDS,
    SETTING_FIELDS,
    SIMAI_ONLY_KEYS,
    VARIANT_KINDS,
    Header,
    HeaderNumber,
    LayerCount,
    LayerRow,
    TrailingText,
    WrappedRow,
)
from lint.models.common import UINT64_MAX, Cause, RowMemo, SyntaxProblem, new_alike
from lint.models.consumers import Judged
from lint.parse.grammar import Grammar, GrammarSyntaxError

NAME = "simai-workload"
SYNTAX_CODE = "TL001"
COLUMN_COUNT_CODE = "TL002"

_TOKEN = re.compile(r"[^ \t]+")
_UPPERCASE_WORD = re.compile(r"[A-Z][A-Z0-9_]*")
_INTEGER = re.compile(r"[0-9]+")
_BLANKS = " \t"
BOM = "\ufeff"  # a UTF-8 byte-order mark, decoded
# A layer row as detection sees it: a name, the placeholder, three (compute, comm type, size) triples, the
# update time, and for HYBRID_CUSTOMIZED the layer's parallelism.
_ROW_SHAPE = re.compile(r"[ \t]*[^ \t]+[ \t]+-?[0-9]+(?:[ \t]+[0-9]+[ \t]+[A-Z_]+[ \t]+[0-9]+){3}[ \t]+[0-9]+(?:[ \t]+[A-Z][A-Z0-9_]*)?[ \t]*")
# A collective of the expert-parallel groups, which only SimAI decodes (ASTRA-sim 1.0 knows the bare names only).
_EXPERT_COMM = re.compile(r"(?<![^ \t])(?:ALLREDUCE|ALLGATHER|REDUCESCATTER|ALLTOALL)(?:_DP)?_EP(?![^ \t])")
_INTEGER_TERMINALS = frozenset({"INT", "SIGNED_INT"})
_Record = TypeVar("_Record", Header, LayerCount, LayerRow)
# The header's settings, in the order Lark's priorities pick them: rule, key terminal, the terminal of the
# value that must follow (None: any word but a key, if there is one: UNKNOWN_VALUE).
_HEADER_SETTINGS = (("setting", "SETTING_KEY", "HEADER_NUMBER"), ("checkpoints", "CHECKPOINTS_KEY", "INT"), ("unknown_setting", "UNKNOWN_KEY", None))
_KEY_TERMINALS = ("SETTING_KEY", "CHECKPOINTS_KEY", "UNKNOWN_KEY")
_HEADER_TERMINALS = ("KIND", "DLRM_KIND", "INT", "SETTING_KEY", "HEADER_NUMBER", "CHECKPOINTS_KEY", "UNKNOWN_KEY")
_Word = tuple[str, int]  # a token of a line and its column
_Part = tuple[str, list[_Word]]  # a grammar rule of the header and its words


def detect(lines: list[str]) -> Evidence:
    """The first token is a workload kind: a known one, or an upper-case word followed by a row count.  A file
    whose header is damaged is still recognised by its layer rows."""
    texts = [text for text in lines[:HEAD_LINES] if text.strip(_BLANKS)]
    first = _TOKEN.search(texts[0]) if texts else None
    if first is not None and (
        first.group() in KINDS
        or first.group() in VARIANT_KINDS
        or (_UPPERCASE_WORD.fullmatch(first.group()) is not None and len(texts) > 1 and _INTEGER.fullmatch(texts[1].strip(_BLANKS)) is not None)
    ):
        return Evidence(True, 1.0, "")
    rows = sum(1 for text in texts if _ROW_SHAPE.fullmatch(text))
    return Evidence.majority(rows, len(texts), "are layer rows", also="its first line is not a workload kind and its second not a row count, and ")


def judged_for(lines: list[str]) -> Judged:
    """The consumer the file's first lines show it is written for (lint.models.consumers), and why.

    SimAI: a header with a key only AICB and SimAI write (``pp:``, ``ga:``, ...), or rows with the
    expert-parallel collectives only SimAI decodes (``ALLTOALL_EP``).  ASTRA-sim 1.0: a kind it reads (or one
    of its variants') without either.  Anything else (no kind either knows, an empty file) is judged for SimAI,
    the format's main reader today.
    """
    texts = [text for text in lines[:HEAD_LINES] if text.strip(_BLANKS)]
    words = _TOKEN.findall(texts[0]) if texts else []
    keys = [word.removesuffix(":") for word in words[1:]]
    simai_keys = list(dict.fromkeys(key for key in keys if key in SIMAI_ONLY_KEYS))
    if simai_keys:
        return Judged(SIMAI.name, f"inferred: the header has {_listed(simai_keys)}, which only AICB and SimAI write")
    expert = next((match.group() for text in texts[2:] for match in _EXPERT_COMM.finditer(text)), None)
    if expert is not None:
        return Judged(SIMAI.name, f"inferred: a row has {expert}, an expert-parallel collective only SimAI decodes")
    kind = words[0] if words else None
    if kind in KINDS:
        return Judged(ASTRA_SIM_1.name, f"inferred: kind {kind}, which ASTRA-sim 1.0 reads, and no key or collective only SimAI reads")
    if kind in VARIANT_KINDS:
        return Judged(ASTRA_SIM_1.name, f"inferred: kind {kind}, which only {VARIANT_KINDS[kind]} reads")
    shown = f"kind '{kind}', which neither reads" if kind else "no kind"
    return Judged(SIMAI.name, f"inferred: {shown}: judged for SimAI, the main reader of simai-workload files")


def _listed(names: list[str]) -> str:
    return ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else names[0]


class _Rejected(Exception):
    """A line the grammar accepts but SimAI would misread; carries the finding's column and message."""

    def __init__(self, column: int, message: str) -> None:
        super().__init__(message)
        self.column = column
        self.message = message


class Parser:
    """Builds the grammar and its derived row regexes once; ``parse`` then streams a header, a row count and layer rows."""

    def __init__(self, *, fast: bool = True) -> None:
        """``fast=False``: Lark parses every line (the agreement tests compare the two paths)."""
        self.fast = fast
        self.grammar = Grammar(NAME, start=["header", "count", "row", "customized_row"])
        self._row_fields = {rule: self.grammar.field_names(rule) for rule in ("row", "customized_row")}
        self._row_regexes = {rule: self.grammar.derive(rule, set(fields)).regex for rule, fields in self._row_fields.items()}
        row_attributes = [spec.name for spec in dataclasses.fields(LayerRow)][2:]
        if any(fields != row_attributes[: len(fields)] for fields in self._row_fields.values()):  # rows are built positionally
            raise ValueError(f"grammar {NAME!r}: the row rules' columns {self._row_fields} are not LayerRow's fields")
        # Per row rule, whether each column is read as an integer, in column order.
        self._integer_columns = {
            rule: tuple(self.grammar.alternatives(field)[0] in _INTEGER_TERMINALS for field in fields) for rule, fields in self._row_fields.items()
        }
        # The count: the derived regex proves the line valid.  The header: its words, each proved by its terminal
        # (a regex of the whole header would try its settings' overlapping choices over and over on a bad one).
        self._count_regex = self.grammar.derive("count").regex
        self._terminals = {name: re.compile(self.grammar.terminal_regex(name)) for name in _HEADER_TERMINALS}

    # -- streaming ------------------------------------------------------------------------------

    def parse(self, lines: Iterable[tuple[int, str]]) -> Iterator[Header | LayerCount | LayerRow | WrappedRow | TrailingText | SyntaxProblem]:
        numbered = iter(lines)
        first = next(numbered, None)
        if first is None:
            yield SyntaxProblem(1, 1, SYNTAX_CODE, f"expected {self.grammar.describe({'KIND'})}, found an empty file")
            return
        number, text = first
        yield self._header_line(number, text)
        kind = _TOKEN.search(text.removeprefix(BOM))
        row_rule = "customized_row" if kind and kind.group() == CUSTOMIZED else "row"
        expected = len(self._row_fields[row_rule])
        counted = False
        # Row text -> what follows the line and column in its LayerRow: a workload repeats a few dozen rows
        # over and over, so each distinct row is matched and converted once (and its rows share ``alike``).
        remembered: RowMemo[tuple[Any, ...]] = RowMemo()
        rows = 0  # rows read so far (a row wrapped over several lines counts once)
        readable = 0  # rows SimAI reads: the declared count, or any number without one
        last_read = 0  # the line of the last of them, or of the count
        row_problem: Cause | None = None  # the cause of the problem of the row before (SyntaxProblem.follows)
        surplus = 0  # tokens of the rows read so far beyond their columns (negative: short of them)
        # The lines of a row short of columns so far, with their words: the consumers read rows word by word
        # with `>>`, across line ends, so the next lines may complete it (see _wrapped).
        short: list[tuple[int, str]] = []
        short_words = 0

        def settle(number: int, text: str) -> Iterator[LayerRow | TrailingText | SyntaxProblem]:
            """A line after the count that the fast path did not prove to be a row (or past the rows SimAI reads)."""
            nonlocal rows, last_read, row_problem, surplus
            if rows < readable:
                rows += 1
                last_read = number
                known = self._fast_row(number, text, row_rule, remembered)
                if known is not None:
                    row_problem = None
                    yield LayerRow(number, 1, *known)
                    return
                # The last row's extra columns are never read, unless the rows before shifted the tokens: then
                # the simulators read them into this row (a table of another layout is one run of TL002).
                last_of = readable if rows == readable and surplus == 0 else None
                row_problem, extra = yield from self._row_slowly(number, text, row_rule, last_of, row_problem)
                surplus += extra
            else:
                yield from self._past_declared_rows(number, text, row_rule, readable, last_read, remembered)

        for number, text in numbered:
            if rows < readable and not short and (known := remembered.get(text)) is not None:  # the common case first: a row read before
                rows += 1
                last_read = number
                row_problem = None
                yield LayerRow(number, 1, *known)
                continue
            if not text.strip(_BLANKS):
                continue
            if not counted:
                count = self._count_line(number, text)
                yield count
                counted = True
                readable = count.count if isinstance(count, LayerCount) else sys.maxsize
                last_read = number
                continue
            if short:
                short.append((number, text))
                short_words += len(_TOKEN.findall(text))
                if short_words < expected:
                    continue
                # The last row the consumers read ends at its last column: what follows is never read (TrailingText).
                last_of = rows + 1 == readable and surplus == 0
                wrapped = self._wrapped(short, row_rule, remembered, expected, readable) if short_words == expected or last_of else None
                if wrapped is not None:
                    rows += 1
                    last_read = number
                    row_problem = None
                    yield from wrapped
                else:  # not one row: each line is judged on its own, as before
                    for line in short:
                        yield from settle(*line)
                short = []
                continue
            if rows < readable and 0 < (words := len(_TOKEN.findall(text))) < expected:  # no row: it lacks columns
                short, short_words = [(number, text)], words
                continue
            yield from settle(number, text)
        for line in short:  # a short row the file ends in: no line completes it
            yield from settle(*line)
        if not counted:
            number, text = first
            yield SyntaxProblem(number, len(text) + 1, SYNTAX_CODE, "expected the number of layer rows on the next line, found end of file")

    def _header_line(self, number: int, text: str) -> Header | SyntaxProblem:
        """Line 1: a byte-order mark before it is noted on the header (both consumers read it as part of the kind)."""
        marked = text.startswith(BOM)
        tokens = text.removeprefix(BOM)
        header = self._fast_header(number, tokens) or self._parse_line(number, tokens, "header", self._header_of_tree)
        if isinstance(header, Header):
            header.byte_order_mark = marked
            header.words = tuple(_TOKEN.findall(tokens))[1:]
        elif marked:
            header.column += 1  # columns count the mark, as they count every character of the line
        return header

    def _wrapped(
        self, lines: list[tuple[int, str]], rule: str, remembered: RowMemo[tuple[Any, ...]], columns: int, declared: int
    ) -> list[WrappedRow | LayerRow | TrailingText] | None:
        """The row the first ``columns`` words of ``lines`` make together, as the consumers read it, after the
        WrappedRow that says so, and the words after them as text never read (``lines`` end the ``declared`` rows
        then); None when they make no well-formed row (each line is then judged on its own)."""
        (first, _), (last, text) = lines[0], lines[-1]
        words = [match for _, line in lines for match in _TOKEN.finditer(line)]
        joined = " ".join(match.group() for match in words[:columns])
        known = self._fast_row(first, joined, rule, remembered)
        row = LayerRow(first, 1, *known) if known is not None else self._parse_line(first, joined, rule, self._layer_row)
        if not isinstance(row, LayerRow):
            return None
        found: list[WrappedRow | LayerRow | TrailingText] = [WrappedRow(first, 1, last, row.name), row]
        if len(words) > columns:
            start = words[columns].start()  # on the last line: the words before it fill the row
            found.append(TrailingText(last, start + 1, text[start:], last, declared))
        return found

    def _parse_line(self, number: int, text: str, rule: str, build: Callable[[int, Tree[Token]], _Record]) -> _Record | SyntaxProblem:
        """The record of the line ``text`` by the grammar's ``rule``, from its first token on (SimAI skips
        leading blanks; the grammar says so); a finding's column counts from the start of the line."""
        tokens = text.lstrip(_BLANKS)
        try:
            return build(number, self.grammar.parse(tokens, rule))
        except (GrammarSyntaxError, _Rejected) as error:
            return SyntaxProblem(number, len(text) - len(tokens) + error.column, SYNTAX_CODE, error.message)

    def _fast_header(self, number: int, text: str) -> Header | None:
        """The header ``text`` when its terminals prove it valid and SimAI reads its numbers, else None (Lark then
        says what is wrong).  Blanks separate its words, and every terminal ends at a blank (the grammar says
        so), so each word is one terminal, told apart as Lark's lexer tells them: the kind; after a DLRM kind a
        number is the last bottom layer; then keys, a known one (which wins over an unknown one by priority)
        followed by its own terminal, ``checkpoints: n`` by every number after it, any other by one value."""
        if not self.fast:
            return None
        words = [(match.group(), match.start() + 1) for match in _TOKEN.finditer(text.lstrip(_BLANKS))]
        if not words or not self._terminals["KIND"].fullmatch(words[0][0]):
            return None
        dlrm = self._terminals["DLRM_KIND"].fullmatch(words[0][0]) is not None
        parts: list[_Part] = [("dlrm_parallelism" if dlrm else "parallelism", [words[0]])]
        index = 1
        if dlrm and index < len(words) and self._terminals["INT"].fullmatch(words[index][0]):
            parts.append(("dlrm_last_bottom_layer", [words[index]]))
            index += 1
        while index < len(words):
            key, end = words[index][0], index + 2
            rule, value_terminal = next(
                ((rule, value) for rule, key_terminal, value in _HEADER_SETTINGS if self._terminals[key_terminal].fullmatch(key)), (None, None)
            )
            if rule == "unknown_setting" and (end > len(words) or self._is_key(words[index + 1][0])):
                end -= 1  # a key without a value: the line ends, or the next word is a key (see UNKNOWN_VALUE)
            elif rule is None or end > len(words) or (value_terminal is not None and not self._terminals[value_terminal].fullmatch(words[index + 1][0])):
                return None
            if rule == "checkpoints":
                while end < len(words) and self._terminals["INT"].fullmatch(words[end][0]):
                    end += 1
            parts.append((rule, words[index:end]))
            index = end
        try:
            return self._header(number, parts)
        except _Rejected:
            return None

    def _is_key(self, word: str) -> bool:
        return any(self._terminals[terminal].fullmatch(word) for terminal in _KEY_TERMINALS)

    def _count_line(self, number: int, text: str) -> LayerCount | SyntaxProblem:
        """Line 2: the count, and where what follows it starts on the line (Lark's columns start at the first word)."""
        fast = self._fast_count(number, text)
        if fast is not None:
            return fast
        count = self._parse_line(number, text, "count", _count)
        if isinstance(count, LayerCount) and count.rest:
            count.rest_column += len(text) - len(text.lstrip(_BLANKS))
        return count

    def _fast_count(self, number: int, text: str) -> LayerCount | None:
        """The count line ``text`` when the derived regex proves it valid and its number is readable, else None."""
        tokens = text.lstrip(_BLANKS)
        if not self.fast or self._count_regex.fullmatch(tokens) is None:
            return None
        digits = _INTEGER.match(tokens)
        assert digits is not None  # the count rule starts with its number
        rest = tokens[digits.end() :].rstrip(_BLANKS)
        try:
            count = _integer(digits.group(), 1)
        except _Rejected:
            return None
        if not rest:
            return LayerCount(number, 1, count)
        start = len(text) - len(tokens) + digits.end() + len(rest) - len(rest.lstrip(_BLANKS))
        return LayerCount(number, 1, count, rest.lstrip(_BLANKS), start + 1)

    def _fast_row(self, number: int, text: str, rule: str, remembered: RowMemo[tuple[Any, ...]]) -> tuple[Any, ...] | None:
        """The fields of the row ``text`` after its line and column, when the derived regex proves it valid
        (remembered for the rows alike), else None."""
        match = self._row_regexes[rule].fullmatch(text.lstrip(_BLANKS)) if self.fast else None
        if match is None:
            return None
        try:
            columns: list[Any] = [int(column) if integer else column for integer, column in zip(self._integer_columns[rule], match.groups(), strict=True)]
        except ValueError:  # beyond Python's limit on digits: Lark's path says where
            return None
        if any(type(column) is int and not _readable(column) for column in columns):  # Lark's path says where, too
            return None
        padding = (None,) if rule == "row" else ()  # no parallelism column
        return remembered.remember_row(text, (*columns, *padding, (), new_alike()), number)

    def _row_slowly(
        self, number: int, text: str, rule: str, last_of: int | None = None, previous: Cause | None = None
    ) -> Generator[LayerRow | TrailingText | SyntaxProblem, None, tuple[Cause | None, int]]:
        """A row the fast path cannot prove valid: counted, then judged by Lark.  ``last_of``: the declared
        count, when this is the last row the simulators read and no token before it is out of place;
        ``previous``: the cause of the row before's problem, which this row's problem may repeat
        (SyntaxProblem.follows).  Returns the cause of this row's problem, and its tokens beyond its columns."""
        expected = len(self._row_fields[rule])
        # Only the expected columns become match objects: a long line of tiny tokens would otherwise
        # cost a hundred bytes of memory per byte of input.
        tokens = _TOKEN.finditer(text)
        columns = list(islice(tokens, expected))
        first_extra = next(tokens, None)
        if first_extra is None:
            parsed = (
                self._parse_line(number, text, rule, self._layer_row)
                if len(columns) == expected
                else SyntaxProblem(number, len(text) + 1, COLUMN_COUNT_CODE, f"expected {expected} columns, found {len(columns)}")
            )
            cause = _follows(parsed, text, previous)
            yield parsed
            return cause, len(columns) - expected
        extra_columns = tuple(token.group() for token in chain((first_extra,), tokens))
        found = expected + len(extra_columns)
        row = self._parse_line(number, text[: columns[-1].end()], rule, self._layer_row)
        if last_of is not None and isinstance(row, LayerRow):
            # SimAI and ASTRA-sim 1.0 read a row token by token with `>>` and close the file after the last
            # declared one (`Workload::initialize_workload`): what follows its columns shifts nothing and
            # is never read, like text after the rows.
            yield row
            yield TrailingText(number, first_extra.start() + 1, text[first_extra.start() :], number, last_of)
            return None, 0  # never read: no token shifted
        problem = SyntaxProblem(number, first_extra.start() + 1, COLUMN_COUNT_CODE, f"expected {expected} columns, found {found}")
        cause = _follows(problem, text, previous)
        yield problem
        # The expected columns still describe the layer: keep it, with what follows as extra columns.
        # A syntax error among them goes unreported: after a wrong count it is likely a shifted column.
        if isinstance(row, LayerRow):
            row.extra_columns = extra_columns
            yield row
        return cause, len(extra_columns)

    def _past_declared_rows(
        self, number: int, text: str, rule: str, declared: int, last_read: int, remembered: RowMemo[tuple[Any, ...]]
    ) -> Iterator[LayerRow | TrailingText]:
        """A line the simulators never read: a well-formed row stays a row, anything else is trailing text."""
        known = remembered.get(text) or self._fast_row(number, text, rule, remembered)
        items = [LayerRow(number, 1, *known)] if known is not None else list(self._row_slowly(number, text, rule))
        rows = [item for item in items if isinstance(item, LayerRow)]
        if len(rows) == len(items):
            yield from rows
        else:
            yield TrailingText(number, 1, text, last_read, declared)

    # -- building records -------------------------------------------------------------------------

    def _header_of_tree(self, number: int, tree: Tree[Token]) -> Header:
        """The header Lark parsed: its rules' words (``checkpoints``' layers one word each) read as on the fast path."""
        parts: list[_Part] = []
        for part in _rules(tree):
            words: list[_Word] = []
            for token in _tokens(part):
                if token.type in ("CHECKPOINT_LAYERS", "UNKNOWN_VALUE"):  # one terminal for blanks and words: see the grammar
                    words += [(match.group(), _column(token) + match.start()) for match in _TOKEN.finditer(token)]
                else:
                    words.append((str(token), _column(token)))
            parts.append((str(part.data), words))
        return self._header(number, parts)

    def _header(self, number: int, parts: list[_Part]) -> Header:
        """The header from the words of each of its rules: the kind's rule first, then the settings in order."""
        (_, [(kind, _)]), *settings = parts
        header = Header(number, 1, kind)
        keys: list[str] = []
        for rule, words in settings:
            if rule == "dlrm_last_bottom_layer":
                header.dlrm_last_bottom_layer = _integer(*words[0])
                continue
            (key_text, _), *values = words
            key = key_text.removesuffix(":")
            keys.append(key)
            if rule == "setting":
                setattr(header, SETTING_FIELDS[key], _header_number(*values[0]))
                if key == "pp_comm":
                    header.pp_comm_colon = key_text.endswith(":")
            elif rule == "checkpoints":
                setattr(header, key, _checkpoint_layers(key_text, values[0], values[1:]))
            else:
                header.unknown[key] = values[0][0] if values else ""
        header.key_order = tuple(keys)
        return header

    def _layer_row(self, number: int, tree: Tree[Token]) -> LayerRow:
        values: dict[str, Any] = {str(column.data): _value(_tokens(column)[0]) for column in _rules(tree)}
        return LayerRow(number, 1, **values)

    # -- writing ----------------------------------------------------------------------------------


def _follows(item: LayerRow | SyntaxProblem, text: str, previous: Cause | None) -> Cause | None:
    """The cause of row ``text``'s problem, if ``item`` is one (SyntaxProblem.follows: the field is its token)."""
    return item.follows(len(_TOKEN.findall(text, 0, item.column - 1)), previous) if isinstance(item, SyntaxProblem) else None


def _rules(tree: Tree[Token]) -> list[Tree[Token]]:
    """The children of a rule made of named rules only (its separators are filtered out)."""
    return cast("list[Tree[Token]]", tree.children)


def _tokens(tree: Tree[Token]) -> list[Token]:
    """The children of a rule made of terminals only."""
    return cast("list[Token]", tree.children)


def _column(token: Token) -> int:
    """Where ``token`` starts: Lark's lexer sets the positions of every token it makes."""
    return cast(int, token.column)


def _count(number: int, tree: Tree[Token]) -> LayerCount:
    count, *rest = _tokens(tree)
    if not rest:
        return LayerCount(number, 1, _integer(count, _column(count)))
    blanks = len(rest[0]) - len(rest[0].lstrip(_BLANKS))
    return LayerCount(number, 1, _integer(count, _column(count)), rest[0].strip(_BLANKS), _column(rest[0]) + blanks)


def _value(token: Token) -> int | str:
    return _integer(token, _column(token)) if token.type in _INTEGER_TERMINALS else str(token)


def _integer(text: str, column: int) -> int:
    try:
        value = int(text)
    except ValueError:  # beyond Python's limit on digits
        value = None
    if value is None or not _readable(value):
        raise _Rejected(column, f"expected a number SimAI can read, found one of {len(text)} digits")
    return value


def _readable(value: int) -> bool:
    """Whether SimAI's ``>>`` reads ``value``: it reads sizes and times into 64-bit integers, and fails past them
    (so nothing downstream, a float in the diff say, meets a number of hundreds of digits)."""
    return abs(value) <= UINT64_MAX


def _header_number(text: str, column: int) -> HeaderNumber:
    if "." in text:
        return float(text)
    return _integer(text, column)


def _checkpoint_layers(key: str, count: _Word, layers: list[_Word]) -> tuple[int, ...]:
    """The layers after ``checkpoints: n``: SimAI reads exactly n of them, so n must match."""
    found = [_integer(*layer) for layer in layers]
    declared = _integer(*count)
    if declared != len(found):
        last_text, last_column = (layers or [count])[-1]
        column = layers[declared][1] if declared < len(found) else last_column + len(last_text)
        raise _Rejected(column, f"expected {declared} layer numbers after '{key} {count[0]}', found {len(found)}")
    return tuple(found)
