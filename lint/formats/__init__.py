"""The input formats: content detection and one streaming parser each, and the views of their descriptors.

Each format is described once, in :mod:`lint.formats.descriptor`; everything here that is per format
(detection order, parsers, run formats, diff adapters) is read from those descriptors when asked, so a
format added there is everywhere at once.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any, Protocol

from lint.formats import descriptor
from lint.formats.descriptor import Format

# The names in detection order, fixed at import for what is declared once (``--trace-format`` choices, the
# ``formats`` of the rules that apply to every format).
FORMAT_NAMES: tuple[str, ...] = tuple(f.name for f in descriptor.FORMATS)
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


class Parser(Protocol):
    def parse(self, lines: Iterable[tuple[int, str]]) -> Iterator[Any]: ...


def named(name: str) -> Format:
    """The descriptor of format ``name`` (KeyError for no such format)."""
    return _find("name", name)


def names() -> tuple[str, ...]:
    """The format names in detection order."""
    return tuple(f.name for f in descriptor.FORMATS)


def run_formats() -> frozenset[str]:
    """The formats whose files form multi-rank runs."""
    return frozenset(f.name for f in descriptor.FORMATS if f.runs)


def diff_adapter(name: str) -> str:
    """The module that reads a side of format ``name`` for `tlint diff`."""
    return named(name).diff_adapter


def stating_layout(key: str) -> Format:
    """The format of the files ``[tool.tlint.runs]`` names under ``key`` as statements of a run's layout."""
    return _find("states_layout", key)


def _find(attribute: str, value: str) -> Format:
    """The descriptor whose ``attribute`` is ``value`` (KeyError for none)."""
    for found in descriptor.FORMATS:
        if getattr(found, attribute) == value:
            return found
    raise KeyError(value)


def layout_keys() -> tuple[str, ...]:
    """The ``[tool.tlint.runs]`` keys that name a file stating a run's layout."""
    return tuple(f.states_layout for f in descriptor.FORMATS if f.states_layout is not None)


def _module(name: str) -> _FormatModule:
    module: _FormatModule = importlib.import_module(named(name).parser)
    return module


@dataclass(frozen=True)
class Evidence:
    """What one format's detector saw in a file's first lines (true when it recognises the format).

    Detection judges the structure of the first records, not the first line alone: a damaged line at the
    top of a trace must be reported by the format's parser, not make the file pass as unknown.
    """

    recognised: bool
    share: float  # of the non-empty first lines, the part shaped like this format's records: ranks the closest format
    seen: str  # what was seen, in words, for a file no format recognises

    def __bool__(self) -> bool:
        return self.recognised

    @classmethod
    def majority(cls, matched: int, lines: int, shape: str, also: str = "") -> Evidence:
        """Recognised when more than half of the ``lines`` non-empty first lines are ``shape``; ``also`` is what
        else the detector saw."""
        return cls(2 * matched > lines, matched / lines if lines else 0.0, f"{also}{matched} of {lines} non-empty lines {shape}")


# The first lines of a file a detector weighs (of the head, ``Source.head``): enough for every format to show
# itself, few enough that a note quoting a few records is not taken for a trace.  An optprime log may look
# further, past a preamble of its launcher's own log lines.
HEAD_LINES = 200


class _FormatModule(Protocol):
    """What every format's parser module (its descriptor's ``parser``) defines."""

    Parser: Callable[[], Parser]

    def detect(self, lines: list[str], /) -> Evidence: ...


# What a file's name says it is: documentation or source code, which no writer of these formats produces, and which
# may well quote a few records (docs/formats/optprime-log.md does).  Such a file is never read as a trace unless
# --trace-format says so: a walk passes it over, and one named on the command line - a shell glob over a run's
# folder (`tlint check corpus/*`) names its README or PROVENANCE.md too - is skipped, not a TL005.
NOT_A_TRACE = frozenset(
    {
        *(".md", ".markdown", ".rst", ".adoc", ".tex", ".html", ".htm", ".ipynb"),  # documentation
        *(".py", ".pyi", ".sh", ".bash", ".lark", ".toml", ".yaml", ".yml", ".cfg", ".ini"),  # code, configuration
        *(".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".cu", ".cuh", ".js", ".ts", ".java", ".go", ".rs"),
        *(".patch", ".diff"),
    }
)


@dataclass(frozen=True)
class Detection:
    """The format of a file, or why none: ``closest`` is the format it resembles most, ``why`` what was seen."""

    format: str | None
    closest: str | None = None
    why: str = ""

    def explanation(self) -> str:
        if self.closest is None:
            return f"not a known trace format: {self.why}"
        return f"not a known trace format: closest is {self.closest}, but {self.why}"


def identify(head: list[str]) -> Detection:
    """The format whose writer produced these first lines; or, when none did, the closest one and why."""
    evidence: dict[str, Evidence] = {}
    order = names()
    for name in order:  # the first format that recognises the lines wins, as their order says
        evidence[name] = _module(name).detect(head)
        if evidence[name]:
            return Detection(name)
    if not any(text.strip() for text in head):
        return Detection(None, why="the file is empty" if head in ([], [""]) else "the file holds only blank lines")
    closest = max(order, key=lambda name: evidence[name].share)
    if not evidence[closest].share:
        return Detection(None, why=f"no line looks like a record of {', '.join(order[:-1])} or {order[-1]}")
    return Detection(None, closest, evidence[closest].seen)


def detect(head: list[str]) -> str | None:
    """The format whose writer produced these first lines, or None."""
    return identify(head).format


@cache
def parser(name: str) -> Parser:
    """The (stateless, reusable) parser of format ``name``; grammars are built on first use."""
    found: Parser = _module(name).Parser()
    return found
