"""The four input formats: content detection and one streaming parser each."""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator
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


def detect(head: list[str]) -> str | None:
    """The format whose writer produced these first lines, or None."""
    for name in FORMAT_NAMES:
        if _module(name).detect(head):
            return name
    return None


@cache
def parser(name: str) -> Parser:
    """The (stateless, reusable) parser of format ``name``; grammars are built on first use."""
    return _module(name).Parser()
