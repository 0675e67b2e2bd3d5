"""The input formats: one package each, and the views of their descriptors.

Each format is a package here (``lint.formats.<name>``) whose ``__init__`` holds its descriptor
(:class:`~lint.formats.descriptor.Format`); everything here that is per format (detection order, parsers,
run formats, diff adapters, the ``[tool.tlint.runs]`` keys) is read from those descriptors, so a format
whose package is added is everywhere at once.
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager
from functools import cache
from typing import Any, Protocol, cast

from lint.formats.descriptor import Evidence, Format
from lint.models.common import Record
from lint.models.consumers import Consumer, Judged


def _discovered() -> tuple[Format, ...]:
    """The descriptor of every format package here (a folder with an ``__init__.py``), in detection order.

    Listed with os.scandir, not pkgutil, whose import costs more than a check of one small file spends here."""
    with os.scandir(__path__[0]) as entries:
        packages = sorted(entry.name for entry in entries if entry.is_dir() and os.path.isfile(os.path.join(entry.path, "__init__.py")))
    found = [importlib.import_module(f"{__name__}.{name}").FORMAT for name in packages]
    return tuple(sorted(found, key=lambda described: described.order))


FORMATS: tuple[Format, ...] = _discovered()
# The names in detection order, fixed at import for what is declared once (``--trace-format`` choices, the
# ``formats`` of the rules that apply to every format).
FORMAT_NAMES: tuple[str, ...] = tuple(f.name for f in FORMATS)


class Parser(Protocol):
    def parse(self, lines: Iterable[tuple[int, str]]) -> Iterator[Any]: ...


def named(name: str) -> Format:
    """The descriptor of format ``name`` (KeyError for no such format)."""
    return _find("name", name)


def names() -> tuple[str, ...]:
    """The format names in detection order."""
    return tuple(f.name for f in FORMATS)


def consumers() -> dict[str, Consumer]:
    """Every consumer a format names (lint.models.consumers), by name."""
    return {consumer.name: consumer for found in FORMATS for consumer in found.consumers}


def consumer_reads(consumer: str, format_name: str) -> bool:
    """Whether consumer ``consumer`` reads files of ``format_name``."""
    return any(found.name == consumer for found in named(format_name).consumers)


def run_formats() -> frozenset[str]:
    """The formats whose files form multi-rank runs."""
    return frozenset(f.name for f in FORMATS if f.runs)


def diff_adapter(name: str) -> str:
    """The module that reads a side of format ``name`` for `tlint diff`."""
    return named(name).diff_adapter


def stating_layout(key: str) -> Format:
    """The format of the files ``[tool.tlint.runs]`` names under ``key`` as statements of a run's layout."""
    return _find("states_layout", key)


def _find(attribute: str, value: str) -> Format:
    """The descriptor whose ``attribute`` is ``value`` (KeyError for none)."""
    for found in FORMATS:
        if getattr(found, attribute) == value:
            return found
    raise KeyError(value)


def layout_keys() -> tuple[str, ...]:
    """The ``[tool.tlint.runs]`` keys that name a file stating a run's layout."""
    return tuple(f.states_layout for f in FORMATS if f.states_layout is not None)


def _module(name: str) -> _FormatModule:
    module: _FormatModule = importlib.import_module(named(name).parser)
    return module


class _FormatModule(Protocol):
    """What every format's parser module (its descriptor's ``parser``) defines; a binary format's also has
    ``detect_bytes(head, complete) -> Evidence``, and its ``Parser`` a ``read(source)``."""

    Parser: Callable[[], Parser]

    def detect(self, lines: list[str], /) -> Evidence: ...


class _ConsumedFormatModule(_FormatModule, Protocol):
    """The parser module of a format with consumers."""

    def judged_for(self, lines: list[str], /) -> Judged: ...


def judged_for(name: str, head: list[str]) -> Judged | None:
    """The consumer a file of format ``name`` shows it is written for, from its first lines (``Source.head``),
    and why; None for a format without consumers."""
    if not named(name).consumers:
        return None
    return cast(_ConsumedFormatModule, _module(name)).judged_for(head)


class Detection(Record):
    """The format of a file, or why none: ``closest`` is the format it resembles most, ``why`` what was seen."""

    __slots__ = ("format", "closest", "why")

    def __init__(self, format: str | None, closest: str | None = None, why: str = "") -> None:
        self.format = format
        self.closest = closest
        self.why = why

    def explanation(self) -> str:
        if self.closest is None:
            return f"not a known trace format: {self.why}"
        return f"not a known trace format: closest is {self.closest}, but {self.why}"


def identify(head: list[str], raw: tuple[bytes, bool] | None = None) -> Detection:
    """The format whose writer produced these first lines (and first bytes ``raw``: the head's bytes, and
    whether they are the whole file); or, when none did, the closest one and why.

    Binary formats are asked after every text format declined: a binary format is told by its structure, and
    a text file is no such structure.  Without ``raw`` they recognise nothing."""
    evidence: dict[str, Evidence] = {}
    order = names()
    for name in order:  # the first format that recognises the lines wins, as their order says
        if named(name).binary:
            continue
        evidence[name] = _module(name).detect(head)
        if evidence[name]:
            return Detection(name)
    for name in order:
        if named(name).binary:
            evidence[name] = _module(name).detect_bytes(*raw) if raw is not None else Evidence(False, 0.0, "")  # type: ignore[attr-defined]
            if evidence[name]:
                return Detection(name)
    if not any(text.strip() for text in head):
        return Detection(None, why="the file is empty" if head in ([], [""]) else "the file holds only blank lines")
    closest = max(order, key=lambda name: evidence[name].share)
    if not evidence[closest].share:
        text = [name for name in order if not named(name).binary]  # a binary format has no lines to look like
        return Detection(None, why=f"no line looks like a record of {', '.join(text[:-1])} or {text[-1]}")
    return Detection(None, closest, evidence[closest].seen)


def detect(head: list[str], raw: tuple[bytes, bool] | None = None) -> str | None:
    """The format whose writer produced these first lines (and bytes: see :func:`identify`), or None."""
    return identify(head, raw).format


@cache
def rank_name(name: str) -> re.Pattern[str] | None:
    """How the files of a run of format ``name`` name their rank, when the format has a naming of its own (its
    descriptor's ``rank_name``): used unless ``--rank-regex`` says otherwise."""
    pattern = named(name).rank_name
    return re.compile(pattern) if pattern is not None else None


class Summarizing(Protocol):
    """Streams one file's records into its rank summary: ``check_<kind>`` per record kind, then ``result()``."""

    def result(self) -> Any: ...


class SummaryModule(Protocol):
    """What the ``summary`` module of a run format (its descriptor's ``runs``) defines."""

    Summarizer: Callable[..., Summarizing]  # (path, *, timed) -> a summarizer of one file
    RankSummary: Any  # its summaries' class, with ``unpacked(path, packed)`` (the inverse of ``packed()``)
    Run: Any  # its runs' class, a lint.runs.model.Run of its summaries

    def summaries_shared(self) -> AbstractContextManager[None]: ...


def summaries(name: str) -> SummaryModule:
    """The ``summary`` module of run format ``name``."""
    module: SummaryModule = importlib.import_module(named(name).summary)
    return module


@cache
def parser(name: str) -> Parser:
    """The (stateless, reusable) parser of format ``name``; grammars are built on first use."""
    module = _module(name)
    shared: Callable[[], Parser] = getattr(module, "shared_parser", module.Parser)  # a detector that parses shares it
    return shared()
