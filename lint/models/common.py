"""Records and scalar types every format shares."""

from __future__ import annotations

import re
import typing
from typing import TYPE_CHECKING, Any, ClassVar, Self, TypeVar

if TYPE_CHECKING:  # pydantic validates and dumps records only at the boundary (lint.models.dump)
    from pydantic import GetCoreSchemaHandler
    from pydantic_core import CoreSchema

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


class Record:
    """Base of tlint's records: plain classes that list their fields in ``__slots__`` and set them in an
    ``__init__`` of their own; compared (``==``) and shown (``repr``) by those fields, which ``__match_args__``
    lists as a dataclass's does (the slots of every Record class they derive from, the bases' first).

    Not dataclasses: ``@dataclass`` compiles generated source for every class at import (about 2 M
    instructions each on Python 3.11), and its module imports inspect, ast, dis and tokenize (43 M): a third
    of the start-up of a check of one small file, which every pre-commit call pays (docs/performance.md).
    """

    __slots__ = ()
    __match_args__: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = vars(cls).get("__slots__", ())
        setattr(cls, "__match_args__", (*cls.__match_args__, *((own,) if isinstance(own, str) else own)))  # noqa: B010  # mypy takes it for read-only

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and all(getattr(self, name) == getattr(other, name) for name in self.__match_args__)

    # Defining __eq__ leaves a class no __hash__: a record is mutable, and no key, as a dataclass without
    # frozen=True; one never changed once made may be (``__hash__ = Record.hash_of_fields``).

    def hash_of_fields(self) -> int:
        """The ``__hash__`` of a record never changed once made (``__hash__ = Record.hash_of_fields``): a key."""
        return hash((type(self), *(getattr(self, name) for name in self.__match_args__)))

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        """Validated and dumped (lint.models.dump) as a dataclass of the parameters of its ``__init__`` would be."""
        import inspect  # pydantic has imported it already

        from pydantic_core import core_schema

        hints = typing.get_type_hints(cls.__init__)
        parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
        fields = {
            parameter.name: core_schema.typed_dict_field(handler.generate_schema(hints[parameter.name]), required=parameter.default is parameter.empty)
            for parameter in parameters
        }
        as_dict = core_schema.typed_dict_schema(fields, extra_behavior="forbid")
        return core_schema.no_info_before_validator_function(
            lambda value: {name: getattr(value, name) for name in fields} if isinstance(value, cls) else value,
            core_schema.no_info_after_validator_function(lambda values: cls(**values), as_dict),
            serialization=core_schema.plain_serializer_function_ser_schema(
                lambda record: {name: getattr(record, name) for name in fields}, return_schema=as_dict
            ),
        )

    def replace(self, **changes: Any) -> Self:
        """A copy of this record with ``changes`` to its fields (those ``__match_args__`` lists; nothing else is copied)."""
        copy = object.__new__(type(self))
        for name in self.__match_args__:
            object.__setattr__(copy, name, changes.pop(name) if name in changes else getattr(self, name))
        if changes:
            raise TypeError(f"{type(self).__name__} has no field {next(iter(changes))!r}")
        return copy

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{name}={getattr(self, name)!r}' for name in self.__match_args__)})"


class LineRecord:
    """A record that keeps the text of the line it was read from (``line_text``, set by its parser), so that a
    finding about one of its fields can point at that field: its format's parser finds where the field is
    (``column_of``), from the same derived regexes that read it, when a rule names the field
    (:func:`lint.rule.at`).  A slot, not a field: not compared, shown or dumped, and free until a finding asks."""

    __slots__ = ("line_text",)
    line_text: str


class SyntaxProblem(Record):
    """A line (or part of one) that the format's grammar rejects; the engine turns it into a finding."""

    kind: ClassVar[str] = "syntax"
    __slots__ = ("line", "column", "code", "message", "rank", "again")

    def __init__(self, line: int, column: int, code: str, message: str, rank: int | None = None, again: bool = False) -> None:
        self.line = line
        self.column = column
        self.code = code
        self.message = message
        self.rank = rank
        # The same problem as on the line before, of one cause (every row of a table one field short): the
        # finding on the first line of the run names the others instead of one finding per line.
        self.again = again

    def follows(self, field: int, previous: Cause | None) -> Cause:
        """Marks this problem ``again`` when ``previous``, the cause of the line before's problem (None: that line
        had none), is its own; returns its cause, for the next line's.  A cause is the code, the field of its
        line the problem is in, and the message but for the value found there, which changes from line to line
        (a writer that prints every compute time as a float)."""
        cause = (self.code, field, re.sub(_FOUND_VALUE, "found …", self.message))
        self.again = cause == previous
        return cause


Cause = tuple[str, int, str]  # see SyntaxProblem.follows

_FOUND_VALUE = r"""found (?:'[^']*'|"[^"]*")"""  # a value as lint.parse.grammar.quote shows it (compiled on first use)


# The message of a problem on a line that the fast path rejects once its file's Diagnoses are spent
# (lint.parse.grammar.Grammar.diagnosing): the engine counts such lines instead of showing each.
NOT_DIAGNOSED = "not diagnosed: past the syntax errors explained in one file"


class Diagnoses:
    """How many more texts Lark may reject, and so explain, in the file being read (lint.parse.grammar.Grammar.diagnosing);
    whoever shows the findings ``stop``s it once an explanation could no longer be shown."""

    __slots__ = ("left",)

    def __init__(self, left: int) -> None:
        self.left = left

    def stop(self) -> None:
        self.left = 0


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
