"""What a format's diff adapter is handed to read one side of `tlint diff`, and the helpers adapters share."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from lint.read.source import Source


class DiffInputError(Exception):
    """A side that cannot be compared: missing, unreadable, or of no or of several formats."""


class UnreadableSide(DiffInputError):
    """A side whose contents give nothing to compare: no file of a known format, or no record of its format
    that could be read.  Its check says why (syntax errors, TL005), so the diff is inconclusive, not an input
    error; ``format_name`` is the format it was read as, where one was detected or forced."""

    def __init__(self, message: str, format_name: str | None = None) -> None:
        super().__init__(message)
        self.format_name = format_name


@dataclass(frozen=True)
class Reading:
    """How an adapter reads its side's files, as the differ (:mod:`lint.diff.sides`) provides it: the differ
    owns the engine and the backends, which stand above the formats.

    ``records(source, format)``: a file's records, its lines with syntax errors left out (the side's check
    reports them).
    ``each(work, shared, items)``: ``work(shared, item)`` of every item, in order, on the chosen backend
    (worker processes or a Dask cluster; ``work`` and ``shared`` travel to them).
    ``read_summary(source, format)``: the rank summary of a file of a run format, and whether it was read
    without a syntax error (no rule runs; the side's check reports the error).
    """

    rank_regex: re.Pattern[str]
    records: Callable[[Source, str], list[object]]
    each: Callable[[Callable[[Any, Any], Any], Any, list[Any]], Iterator[Any]]
    read_summary: Callable[[Source, str], tuple[Any, bool]]


def single_source(path: str, sources: list[Source], format_name: str) -> Source:
    """The one file a one-file format needs; a directory of several is ambiguous."""
    if len(sources) > 1:
        raise DiffInputError(f"{path}: holds {len(sources)} {format_name} files; name one")
    return sources[0]
