"""From a path the user named to a :class:`~lint.profile.profile.Profile`: read, detect, hand to the format's adapter.

An adapter is its format package's ``diff`` module (the descriptor's ``diff_adapter``), with
``load(path, sources, reading) -> Profile``; the :class:`~lint.profile.side.Reading` it is handed reads
records and rank summaries for it, on the backend the user chose.

What the comparison rests on is checked as ``tlint check`` checks it (:func:`problems`): the same file and
run rules, the same cache.  A profile is cached too, keyed by its files' contents (the check's digests)
and names, so that a second diff of unchanged inputs reads no file.
"""

from __future__ import annotations

import importlib
import os
import re
from dataclasses import dataclass, field
from functools import partial
from typing import Protocol

from pydantic import ValidationError

from lint import formats
from lint.check import cache
from lint.check.engine import read_summary
from lint.check.executor import Backend, run_each
from lint.diff.wording import problem_line
from lint.models.report import Severity
from lint.profile.profile import Profile
from lint.profile.side import DiffInputError, Reading, UnreadableSide
from lint.read.source import InputError, Source, printable_path
from lint.read.walk import expand
from lint.runs.discovery import DEFAULT_RANK_REGEX, damaged_rank, run_key
from lint.store.digest import hasher

# A warning for `tlint check` (a directory need not hold every rank of a job: TL502's docs), but a diff of a
# run that lacks ranks compares part of a run with the other side: what the diff says rests on a hole.
INCOMPLETE_RUN = frozenset({"TL502"})
SHOWN_PROBLEMS = 10  # of a side's problems, the first are named in the report; the count says how many there are


@dataclass(frozen=True)
class SideOptions:
    trace_format: str | None = None  # force this format instead of detecting it
    rank_regex: re.Pattern[str] = field(default=DEFAULT_RANK_REGEX)
    backend: Backend = field(default_factory=Backend)  # where a run's rank files are read
    use_cache: bool = True  # the check's cache: its findings, and the profiles of unchanged files


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
            format_name = options.trace_format or formats.detect(source.head(), source.head_bytes)
        except InputError as error:
            raise DiffInputError(str(error)) from None
        if format_name is not None:
            by_format.setdefault(format_name, []).append(source)
        else:
            unrecognised.append(source)
    if not by_format:
        raise UnreadableSide(f"{path}: no file of a known format (use --trace-format to force one)")
    if len(by_format) > 1:
        counts = ", ".join(f"{len(sources)} {name}" for name, sources in sorted(by_format.items()))
        raise DiffInputError(f"{path}: holds files of several formats ({counts}); name one file or run")
    ((format_name, found),) = by_format.items()
    if format_name in formats.run_formats():  # a run's damaged rank file is read, so that its side's check reports it
        own = formats.rank_name(format_name)
        pattern = own if own is not None and options.rank_regex is DEFAULT_RANK_REGEX else options.rank_regex
        runs = {named.key for source in found if (named := run_key(source.path, pattern))}
        found += [source for source in unrecognised if damaged_rank(source.path, pattern, runs)]
    entry = _profile_entry(path, format_name, found, options) if options.use_cache else None
    if entry is not None and (cached := _cached_profile(entry, path)) is not None:
        return cached
    adapter: Adapter = importlib.import_module(formats.diff_adapter(format_name))
    reading = Reading(options.rank_regex, records, partial(run_each, backend=options.backend), read_summary)
    try:
        profile = _named(adapter.load(path, found, reading), path)
    except InputError as error:
        raise DiffInputError(str(error)) from None
    except OSError as error:
        raise DiffInputError(f"{path}: cannot read: {error.strerror or error}") from None
    if entry is not None:
        cache.store_blob(entry, profile.model_dump_json().encode())
    return profile


def _profile_entry(path: str, format_name: str, sources: list[Source], options: SideOptions) -> str | None:
    """The cache key of the profile of ``sources``: their contents (digests remembered by the check's cache,
    so that unchanged files are not read), their names and where they sit under ``path``, and how they are
    read; None when a file cannot be read (its reading then says why)."""
    digest = hasher()
    digest.update(f"diff profile\0{format_name}\0{options.rank_regex.pattern}".encode())
    for source in sorted(sources, key=lambda source: source.display):
        try:
            content = cache.key(source, "diff")
        except (InputError, OSError):
            return None
        if content is None:
            return None
        # Where a file sits under the side, and its name: writers state settings in their file names.
        where = os.path.relpath(source.display, path) if source.display != path else os.path.basename(path)
        digest.update(f"\0{where}\0{content}".encode())
    return cache.run_key([digest.hexdigest()])


def _cached_profile(entry: str, path: str) -> Profile | None:
    """The stored profile, named by ``path`` as the user named it now; None on a miss or a damaged entry."""
    data = cache.load_blob(entry)
    if data is None:
        return None
    try:
        profile = Profile.model_validate_json(data)
    except ValidationError:
        return None
    return _named(profile, path)


def _named(profile: Profile, path: str) -> Profile:
    """``profile`` named by ``path`` as the user named it now, printable: a name's bytes that are not UTF-8 (lone
    surrogates to Python) would make its JSON, the cache entry's and the report's, impossible to write."""
    shown = printable_path(path)
    profile.path = shown
    for common in (profile.common, profile.stage_common):
        if common is not None:
            common.path = shown
    return profile


def records(source: Source, format_name: str) -> list[object]:
    """The records of ``source`` that could be read; lines with syntax errors are left out (:func:`problems`
    reports them, and a comparison built on what remains is inconclusive)."""
    found = [item for item in formats.parser(format_name).parse(source.lines()) if getattr(item, "kind", None) != "syntax"]
    if not found:
        raise UnreadableSide(f"{source.display}: no {format_name} record could be read", format_name)
    return found


@dataclass(frozen=True)
class Problems:
    """What ``tlint check`` finds wrong with a side, where it undermines a comparison: its errors, input
    errors, and missing ranks (:data:`INCOMPLETE_RUN`)."""

    count: int = 0
    shown: tuple[str, ...] = ()  # the first few, as `tlint check` prints them
    first: str = ""  # the first, its file named from the side (for a headline)


def problems(path: str, options: SideOptions) -> Problems:
    """The side's problems, checked as ``tlint check PATH`` checks it: its file and run rules, its cache."""
    from lint.check.engine import CheckOptions, check

    report = check([path], CheckOptions(trace_format=options.trace_format, rank_regex=options.rank_regex, backend=options.backend, use_cache=options.use_cache))
    found = [finding for finding in report.findings if finding.severity is Severity.ERROR or finding.code in INCOMPLETE_RUN]
    codes = {finding.code for finding in found}
    lines = [*report.summary.input_errors, *map(problem_line, found)]
    count = len(lines) + sum(hidden for code, hidden in report.summary.not_shown.items() if code in codes)
    first = report.summary.input_errors[0] if report.summary.input_errors else ""
    if found and not first:
        where, side = found[0].path, path.rstrip(os.sep)
        if where == side:
            where = os.path.basename(side)
        elif where is not None and where.startswith(side + os.sep):
            where = where[len(side) + 1 :]
        first = problem_line(found[0], where)
    return Problems(count, tuple(lines[:SHOWN_PROBLEMS]), first)
