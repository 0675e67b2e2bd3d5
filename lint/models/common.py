"""Records and scalar types every format shares."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar, TypeVar

T = TypeVar("T")

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
