"""Records and scalar types every format shares."""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import count
from typing import ClassVar, TypeVar

T = TypeVar("T")
K = TypeVar("K")
V = TypeVar("V")

INT64_MAX = 2**63 - 1
UINT64_MAX = 2**64 - 1


def fits_int64(digits: str) -> bool:
    """Whether a run of digits fits an int64, as the writers' ranks, ids and tensor sizes do (cheap when short)."""
    if len(digits) < 19:
        return True
    significant = digits.lstrip("0")
    return len(significant) < 19 or (len(significant) == 19 and int(significant) <= INT64_MAX)


def int64(digits: str) -> int:
    """The value of an integer field; OverflowError beyond an int64, which no writer produces and which
    Python would not even convert past 4300 digits."""
    if len(digits) >= 19 and not fits_int64(digits):
        raise OverflowError(digits)
    return int(digits)


class LineRecord:
    """A record that keeps the text of the line it was read from (``line_text``, set by its parser), so that a
    finding about one of its fields can point at that field: its format's parser finds where the field is
    (``column_of``), from the same derived regexes that read it, when a rule names the field
    (:func:`lint.rule.at`).  A slot, not a field: not compared, shown or dumped, and free until a finding asks."""

    __slots__ = ("line_text",)
    line_text: str


@dataclass(slots=True)
class SyntaxProblem:
    """A line (or part of one) that the format's grammar rejects; the engine turns it into a finding."""

    kind: ClassVar[str] = "syntax"
    line: int
    column: int
    code: str
    message: str
    rank: int | None = None
    # The same problem as on the line before, of one cause (every row of a table one field short): the
    # finding on the first line of the run names the others instead of one finding per line.
    again: bool = False

    def follows(self, field: int, previous: Cause | None) -> Cause:
        """Marks this problem ``again`` when ``previous``, the cause of the line before's problem (None: that line
        had none), is its own; returns its cause, for the next line's.  A cause is the code, the field of its
        line the problem is in, and the message but for the value found there, which changes from line to line
        (a writer that prints every compute time as a float)."""
        cause = (self.code, field, _FOUND_VALUE.sub("found …", self.message))
        self.again = cause == previous
        return cause


Cause = tuple[str, int, str]  # see SyntaxProblem.follows


_FOUND_VALUE = re.compile(r"""found (?:'[^']*'|"[^"]*")""")  # a value as lint.parse.grammar.quote shows it


class RowKeyed(dict[K, V]):
    """What was made of the rows of a file, kept while it pays: once the rows rarely repeat
    (:func:`rarely_repeat`) it is emptied and keeps nothing more."""

    def __init__(self) -> None:
        super().__init__()
        self.distinct = 0  # distinct rows met (remembered, or that would have been)
        self.remembering = True

    def worth_remembering(self, line: int) -> bool:
        """Counts one more distinct row, met by ``line``: whether remembering rows still pays."""
        self.distinct += 1
        if self.remembering and rarely_repeat(self.distinct, line):
            self.remembering = False
            self.clear()
        return self.remembering


class TextMemo(dict[str | None, T]):
    """Values remembered by a (possibly long) text, emptied when it holds too many entries or characters:
    a file of endlessly new lines, sub-operation lists or field values must not grow memory."""

    def __init__(self, entries: int = 4096, characters: int = 8_000_000) -> None:
        super().__init__()
        self.entries = entries
        self.characters = characters
        self.held = 0  # characters of the keys held

    def remember(self, key: str | None, value: T) -> T:
        self.held += len(key or "")
        if len(self) >= self.entries or self.held > self.characters:
            self.clear()
            self.held = len(key or "")
        self[key] = value
        return value


def rarely_repeat(distinct: int, line: int) -> bool:
    """Whether rows rarely repeat in a file in which ``distinct`` different rows were met by line ``line``:
    then remembering what was made of a row (or keying by ``alike``) costs more than it saves.  Decided once
    a memo of rows would be full (4096 rows, see :class:`TextMemo`), when they are more than half of the
    lines read: a file that repeats rows at a longer period would not hit the memo anyway."""
    return distinct >= 4096 and 2 * distinct > line


class RowMemo(TextMemo[T], RowKeyed[str | None, T]):
    """A :class:`TextMemo` of the rows of a table, by their text, that stops remembering (and stays
    empty) in a file whose rows rarely repeat (:class:`RowKeyed`): there a lookup never pays."""

    def remember_row(self, text: str, value: T, line: int) -> T:
        return self.remember(text, value) if self.worth_remembering(line) else value


_alike_numbers = count()


def new_alike() -> int:
    """A number no row has yet: the ``alike`` of a row record.

    Rows the parser read from the same text share one ``alike``; rows of different texts never do (a
    parser may also give one text several numbers, when its memo of texts is full).  A workload repeats a
    few dozen rows a hundred thousand times: rules remember what they concluded about a row by this number
    (:class:`lint.formats.megatron_trace.rulekit.PerAlikeRow`) and judge each distinct row once.  It is not part of the row's
    content: not compared, shown or dumped.
    """
    return next(_alike_numbers)
