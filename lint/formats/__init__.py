"""The four input formats: content detection and one streaming parser each."""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any, Protocol

# Detection order: the formats with the most distinctive first lines come first.
FORMAT_MODULES: dict[str, str] = {
    "megatron-trace": "lint.formats.megatron_trace",
    "neusight-tsv": "lint.formats.neusight_tsv",
    "simai-workload": "lint.formats.simai_workload",
    "optprime-log": "lint.formats.optprime_log",
}
FORMAT_NAMES: tuple[str, ...] = tuple(FORMAT_MODULES)
INT64_MAX = 2**63 - 1


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


def _module(name: str) -> Any:
    return importlib.import_module(FORMAT_MODULES[name])


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
    for name in FORMAT_NAMES:  # the first format that recognises the lines wins, as their order says
        evidence[name] = _module(name).detect(head)
        if evidence[name]:
            return Detection(name)
    if not any(text.strip() for text in head):
        return Detection(None, why="the file is empty" if head in ([], [""]) else "the file holds only blank lines")
    closest = max(FORMAT_NAMES, key=lambda name: evidence[name].share)
    if not evidence[closest].share:
        return Detection(None, why=f"no line looks like a record of {', '.join(FORMAT_NAMES)}")
    return Detection(None, closest, evidence[closest].seen)


def detect(head: list[str]) -> str | None:
    """The format whose writer produced these first lines, or None."""
    return identify(head).format


@cache
def parser(name: str) -> Parser:
    """The (stateless, reusable) parser of format ``name``; grammars are built on first use."""
    built: Parser = _module(name).Parser()
    return built
