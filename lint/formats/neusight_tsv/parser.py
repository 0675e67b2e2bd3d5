"""``neusight-tsv``: parse per-layer workload tables into :mod:`lint.formats.neusight_tsv.records`.

The first non-empty line is the header and every later line a layer row, each judged on its own by
``grammars/neusight-tsv.lark``.  Valid lines take the fast path: a regex derived from the grammar's
``header`` or ``row`` rule (:meth:`lint.parse.grammar.Grammar.derive`) accepts exactly the lines the grammar
does, and its groups are the row's fields.  A line the regex rejects, or whose number overflows what the
readers convert it to, is parsed by Lark, which says where and why.  A rejected row is first counted:
with the wrong number of tab-separated fields every later value would sit under the wrong column, so the
count is reported (TL002) instead of whichever field first fails to match.  The header is not counted: a
missing or extra column is best told by naming the column the grammar expected there.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:  # Lark judges only the rows the fast path rejects: a file without one never imports it
    from lark import Token, Tree

from lint.formats.descriptor import HEAD_LINES, Evidence
from lint.formats.neusight_tsv.records import COLUMNS, HeaderRecord, LayerRecord
from lint.models.common import Cause, SyntaxProblem, int64
from lint.parse.grammar import Grammar, GrammarSyntaxError, quote

NAME = "neusight-tsv"
SYNTAX_CODE = "TL001"
COLUMN_COUNT_CODE = "TL002"

_HEADER_START = "name\tforward_compute_time"
# A layer row as detection sees it: a name, a time, then the other columns, tab-separated.
_ROW_SHAPE = re.compile(r"[^\t]+\t[-+.0-9eE]+" + r"\t[^\t]+" * (len(COLUMNS) - 2))

_CONVERTERS: dict[str, Callable[[str], Any]] = {
    "LAYER": str,
    "TIME": float,
    "COUNT": int64,  # elements of a tensor, which torch counts in an int64
    "COMM_TYPE": lambda text: None if text == "None" else text,
}


def detect(lines: list[str]) -> Evidence:
    """A neusight-tsv file starts with its header, ``name<TAB>forward_compute_time...``, and goes on with
    layer rows: a file whose header is damaged is still recognised by its rows."""
    texts = [text for text in lines[:HEAD_LINES] if text.strip()]
    if texts and texts[0].startswith(_HEADER_START):
        return Evidence(True, 1.0, "")
    rows = sum(1 for text in texts if _ROW_SHAPE.fullmatch(text))
    return Evidence.majority(
        rows,
        len(texts),
        f"are layer rows ({len(COLUMNS)} tab-separated columns)",
        also="its first line is not the header `name<TAB>forward_compute_time…` and ",
    )


class Parser:
    """Builds the grammar and its derived regexes once; ``parse`` then streams records."""

    def __init__(self, *, fast: bool = True) -> None:
        """``fast=False``: Lark parses every line (the agreement tests compare the two paths)."""
        self.fast = fast
        self.grammar = Grammar(NAME, start=["header", "row"])
        self._header_regex = self.grammar.derive("header").regex
        row = self.grammar.derive("row", set(COLUMNS))
        if row.fields != COLUMNS:  # records are built positionally from the groups
            raise ValueError(f"grammar {NAME!r}: the row's fields {row.fields} are not the columns {COLUMNS}")
        self._row_regex = row.regex
        self._row_converters = tuple(_CONVERTERS[self.grammar.alternatives(column)[0]] for column in COLUMNS)

    # -- writing ----------------------------------------------------------------------------------

    # -- streaming ------------------------------------------------------------------------------

    def parse(self, lines: Iterable[tuple[int, str]]) -> Iterator[HeaderRecord | LayerRecord | SyntaxProblem]:
        header_seen = False
        # Empty lines are only wrong when something follows them: hold them until a line does.
        empty_lines: list[int] = []
        previous: Cause | None = None  # the cause of the problem of the line before (SyntaxProblem.follows)
        for number, text in lines:
            if not text:
                empty_lines.append(number)
                continue
            if empty_lines:
                expected = "a layer row" if header_seen else "the header row"
                message = f"expected {expected}, found an empty line; only the end of the file may have empty lines"
                for index, empty in enumerate(empty_lines):
                    yield SyntaxProblem(empty, 1, SYNTAX_CODE, message, again=index > 0)
                empty_lines.clear()
                previous = None
            if header_seen:
                known = self._fast_row(text)
                if known is not None:
                    previous = None
                    record = LayerRecord(number, 1, *known)
                    record.line_text = text  # type: ignore[misc]  # mypy does not see slots a dataclass(slots=True) inherits
                    yield record
                    continue
                row = self._row_slowly(number, text)
                if isinstance(row, SyntaxProblem):
                    previous = row.follows(text.count("\t", 0, row.column - 1), previous)
                else:
                    previous, row.line_text = None, text  # type: ignore[misc]  # (as above)
                yield row
            else:
                header_seen = True
                yield self._header(number, text)
        if not header_seen:  # a table without even a header is no table for its consumers
            yield SyntaxProblem(1, 1, SYNTAX_CODE, "expected the header row, found an empty file")

    def column_of(self, record: LayerRecord, field: str, index: int | None = None) -> int | None:
        """The 1-based column of ``field`` (one of the row's COLUMNS) on ``record``'s line; None where it cannot
        be told (``index`` is for formats with sub-records; none here)."""
        text = getattr(record, "line_text", None)
        if text is None or index is not None or field not in COLUMNS:
            return None
        before = COLUMNS.index(field)
        fields = text.split("\t", before)
        return len(text) - len(fields[before]) + 1 if len(fields) > before else None

    def _header(self, number: int, text: str) -> HeaderRecord | SyntaxProblem:
        if self.fast and self._header_regex.fullmatch(text):  # the eleven names, tab-separated
            return HeaderRecord(line=number, column=1, columns=tuple(text.split("\t")))
        tree = self._parse(number, text, "header")
        if isinstance(tree, SyntaxProblem):
            return tree
        return HeaderRecord(line=number, column=1, columns=tuple(str(token) for token in tree.children))

    def _fast_row(self, text: str) -> list[Any] | None:
        """The values of the row ``text``, when the derived regex proves it valid and its numbers convert, else None."""
        match = self._row_regex.fullmatch(text) if self.fast else None
        if match is None:
            return None
        try:
            values = [convert(field) for convert, field in zip(self._row_converters, match.groups(), strict=True)]
        except OverflowError:
            return None
        if math.inf in values:
            return None
        return values

    def _row_slowly(self, number: int, text: str) -> LayerRecord | SyntaxProblem:
        """A row the fast path cannot prove valid: counted, then judged by Lark."""
        fields = text.split("\t")
        if len(fields) != len(COLUMNS):
            # Too many: point at the first extra field; too few: at the end, where the next one is missing.
            column = len("\t".join(fields[: len(COLUMNS)])) + 2 if len(fields) > len(COLUMNS) else len(text) + 1
            message = f"expected {len(COLUMNS)} tab-separated fields, found {len(fields)}"
            return SyntaxProblem(number, column, COLUMN_COUNT_CODE, message)
        tree = self._parse(number, text, "row")
        if isinstance(tree, SyntaxProblem):
            return tree
        values: dict[str, Any] = {}
        for field in cast("list[Tree[Token]]", tree.children):  # the row rule's children are its field rules
            token = cast("Token", field.children[0])  # a field rule is one terminal
            try:
                value = _CONVERTERS[token.type](token.value)
            except OverflowError:
                return self._unusable_number(number, token, "a 64-bit integer")
            if value == math.inf:  # the grammar cannot see that a number's exponent overflows a double
                return self._unusable_number(number, token, "a 64-bit float")
            values[str(field.data)] = value
        return LayerRecord(line=number, column=1, **values)

    def _unusable_number(self, number: int, token: Token, overflowed: str) -> SyntaxProblem:
        message = f"expected {self.grammar.describe({token.type})}, found {quote(token.value)}, which overflows {overflowed}"
        return SyntaxProblem(number, token.column or 1, SYNTAX_CODE, message)

    def _parse(self, number: int, text: str, start: str) -> Tree[Token] | SyntaxProblem:
        try:
            tree: Tree[Token] = self.grammar.parse(text, start)
        except GrammarSyntaxError as error:
            return SyntaxProblem(number, error.column, SYNTAX_CODE, error.message)
        return tree
