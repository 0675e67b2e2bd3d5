"""From a path the user named to a :class:`~lint.profile.profile.Profile`: read, detect, hand to the format's adapter.

An adapter is its format package's ``diff`` module (the descriptor's ``diff_adapter``), with
``load(path, sources, reading) -> Profile``; the :class:`~lint.profile.side.Reading` it is handed reads
records and rank summaries for it, on the backend the user chose.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field
from functools import partial
from typing import Protocol

from lint import formats
from lint.check.engine import read_summary
from lint.check.executor import Backend, run_each
from lint.profile.profile import Profile
from lint.profile.side import DiffInputError, Reading, broken_note
from lint.read.source import InputError, Source
from lint.read.walk import expand
from lint.runs.discovery import DEFAULT_RANK_REGEX, damaged_rank, run_key


@dataclass(frozen=True)
class SideOptions:
    trace_format: str | None = None  # force this format instead of detecting it
    rank_regex: re.Pattern[str] = field(default=DEFAULT_RANK_REGEX)
    backend: Backend = field(default_factory=Backend)  # where a run's rank files are read


class Adapter(Protocol):
    def load(self, path: str, sources: list[Source], reading: Reading) -> Profile: ...


def load_side(path: str, options: SideOptions) -> Profile:
    walked = expand([path])
    if walked.errors:
        raise DiffInputError(walked.errors[0])
    by_format: dict[str, list[Source]] = {}
    unrecognised: list[Source] = []
    for source in walked.sources:
        try:
            format_name = options.trace_format or formats.detect(source.head())
        except InputError as error:
            raise DiffInputError(str(error)) from None
        if format_name is not None:
            by_format.setdefault(format_name, []).append(source)
        else:
            unrecognised.append(source)
    if not by_format:
        raise DiffInputError(f"{path}: no file of a known format (use --trace-format to force one)")
    if len(by_format) > 1:
        counts = ", ".join(f"{len(sources)} {name}" for name, sources in sorted(by_format.items()))
        raise DiffInputError(f"{path}: holds files of several formats ({counts}); name one file or run")
    ((format_name, found),) = by_format.items()
    if format_name in formats.run_formats():  # a run's damaged rank file is read, so that the side is marked broken
        runs = {named.key for source in found if (named := run_key(source.path, options.rank_regex))}
        found += [source for source in unrecognised if damaged_rank(source.path, options.rank_regex, runs)]
    adapter: Adapter = importlib.import_module(formats.diff_adapter(format_name))
    reading = Reading(options.rank_regex, records, partial(run_each, backend=options.backend), read_summary)
    try:
        return adapter.load(path, found, reading)
    except InputError as error:
        raise DiffInputError(str(error)) from None
    except OSError as error:
        raise DiffInputError(f"{path}: cannot read: {error.strerror or error}") from None


def records(source: Source, format_name: str) -> tuple[list[object], list[str]]:
    """The records of ``source``, and a note when lines had to be left out for syntax errors (`tlint check`
    reports them): a comparison built on what remains must say so."""
    found: list[object] = []
    broken: list[object] = []
    for item in formats.parser(format_name).parse(source.lines()):
        (broken if getattr(item, "kind", None) == "syntax" else found).append(item)
    if not found:
        raise DiffInputError(f"{source.display}: no {format_name} record could be read")
    lines = [getattr(item, "line", None) for item in broken] + [problem.line for problem in source.problems]
    return found, [broken_note(source.display, [line for line in lines if line is not None])] if lines else []
