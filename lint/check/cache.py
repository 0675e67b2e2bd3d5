"""A cache of per-file results, so that an unchanged file is not parsed again.

An entry is keyed by the file's content hash and everything else its result depends on: tlint's
version, the Python that wrote the entry, the text of its code, rules and grammars, the
effective configuration for the file, and what was asked of it.  The path is not part of the key and
is not stored (findings are written relative to "this file"), so a moved or re-cloned tree still hits.
A file's content hash is remembered by its path and stat, so an unchanged file is not even read.  A
run's findings are cached too, keyed by its files' entries, names and ranks and the run's layout; and
the differ's profile of a side, keyed by its files' digests and names (``load_blob``).

Entries are what tlint wrote itself, so they are read back without validation: compact JSON arrays
rebuilt into models directly; a foreign or damaged file is a miss.  A file's rank summary (the bulk of
an entry) is a second JSON line, read only when its run's findings are not cached themselves.  Every
write goes to a temporary file first and is renamed into place, so concurrent tlint processes see an
old entry or a new one, never half of one.

Entries live in the on-disk store (:mod:`lint.store.disk`: its directory, atomic writes and pruning;
a hit refreshes an entry's time, so that it is the last to be pruned).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from lint.models.report import FileResult, Finding, Severity
from lint.read.source import Source
from lint.store.disk import CONTENTS, ENTRIES, code_fingerprint, in_root, touch, write

S = TypeVar("S")


class Packable(Protocol):
    """A rank summary, as every run format's summary module makes one (its descriptor's ``runs``)."""

    def packed(self) -> list[Any]: ...


@dataclass(frozen=True)
class StoredSummary:
    """Where an entry keeps its file's rank summary (the bulk of the entry): read only when its run's
    findings are not cached themselves, so that a warm check reads no more than each entry's first line."""

    path: str
    offset: int

    def read(self) -> bytes:
        with open(self.path, "rb") as stream:
            stream.seek(self.offset)
            return stream.read()


Outcome = tuple[FileResult, list[Finding], Counter[str], StoredSummary | None]  # the last: see summary()


def key(source: Source, settings: str, *, remembered_only: bool = False, detected: tuple[str, Stamp] | None = None) -> str | None:
    """The cache key of ``source`` under ``settings`` (a string naming them), or None when it cannot be read.

    ``remembered_only``: None, rather than reading and hashing the file, when its digest is not remembered
    for its current stat() (the caller leaves the hashing to the worker that reads the file anyway).
    ``detected``: the format detected in the file and its stamp then, remembered with its digest.
    """
    content = _content_digest(source.path, remembered_only, detected)
    if content is None:
        return None
    digest = hashlib.sha256(code_fingerprint().encode())
    digest.update(settings.encode() + b"\0" + content.encode())
    return digest.hexdigest()


def settings_text(settings: dict[str, Any]) -> str:
    return json.dumps(settings, sort_keys=True, default=str)


Stamp = list[int]  # what stat() says of a file: size, mtime, ctime and inode; any write changes it


def _remembered(path: Path) -> tuple[Stamp | None, str, dict[str, Any]]:
    """The file's stamp (None when it cannot be stat'ed), where what is remembered of it is kept, and what
    is remembered for that same stamp ({} when nothing, or only for an earlier version of the file)."""
    name = hashlib.sha256(os.fsencode(os.path.abspath(path))).hexdigest()  # the stamp tells a replaced file
    memo = in_root(CONTENTS, name[:2], name)
    try:
        status = os.stat(path)
    except OSError:
        return None, memo, {}
    stamp = [status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino]
    try:
        with open(memo, "rb") as stream:
            remembered = json.loads(stream.read())
        if isinstance(remembered, dict) and remembered.get("stamp") == stamp:
            return stamp, memo, remembered
    except _DAMAGED:
        pass
    return stamp, memo, {}


def _content_digest(path: Path, remembered_only: bool = False, detected: tuple[str, Stamp] | None = None) -> str | None:
    """The SHA-256 of the file's bytes, remembered by its path and stat(): an unchanged file is not read again.

    With ``detected``, the format detected in the file is remembered too (see :func:`detected_format`),
    when the file has not changed since: in the same write as its digest.
    """
    stamp, memo, remembered = _remembered(path)
    if stamp is None:
        return None
    learned = {}
    if detected is not None and detected[1] == stamp:
        learned = {"format": [code_fingerprint(), detected[0]]}
    if isinstance(remembered.get("digest"), str):
        if learned and remembered.get("format") != learned["format"]:
            write(memo, json.dumps({**remembered, **learned}).encode())
        return str(remembered["digest"])
    if remembered_only:
        return None
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as stream:
            for block in iter(lambda: stream.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return None
    write(memo, json.dumps({**remembered, **learned, "stamp": stamp, "digest": digest.hexdigest()}).encode())
    return digest.hexdigest()


def detected_format(path: Path) -> tuple[str | None, Stamp | None]:
    """The format detected in the file by this same code when its stamp was what it is now (None when not
    remembered), and that stamp (None when the file cannot be stat'ed).  Detection reads the first 64 kB
    of the file: on a run of hundreds of unchanged ranks, most of what a check served from the cache costs."""
    stamp, _, remembered = _remembered(path)
    detected = remembered.get("format")
    if isinstance(detected, list) and len(detected) == 2 and detected[0] == code_fingerprint() and isinstance(detected[1], str):
        return detected[1], stamp
    return None, stamp


def _entry_path(entry: str) -> str:
    return in_root(ENTRIES, entry[:2], entry)


def load(entry: str, display: str) -> Outcome | None:
    """The outcome stored under ``entry``, its paths made ``display``; None on a miss or a damaged entry."""
    path = _entry_path(entry)
    try:
        with open(path, "rb") as stream:
            outcome = stream.readline()
            summary_offset = stream.tell()
            no_summary = stream.read(5) == b"null"
        (parsed, format_name, consumer, reason), findings, not_shown = json.loads(outcome)
        result = FileResult(display, format_name, parsed, consumer, reason)
        found = [_finding(packed, display) for packed in findings]
        counts = Counter(dict(not_shown))
    except _DAMAGED:
        return None
    touch(path)
    return result, found, counts, None if no_summary else StoredSummary(path, summary_offset)


def summary(display: str, stored: StoredSummary, unpacked: Callable[[str, list[Any]], S]) -> S | None:
    """The rank summary of a loaded entry (its path made ``display``), rebuilt by its format's ``unpacked``;
    None when it is damaged or gone."""
    try:
        return unpacked(display, json.loads(stored.read()))
    except _DAMAGED:
        return None


def store(entry: str, display: str, result: FileResult, findings: list[Finding], not_shown: Counter[str], summary: Packable | None) -> None:
    """Write the entry; a cache that cannot be written is skipped, never an error."""
    outcome = [[result.parsed, result.format, result.consumer, result.consumer_reason], [_packed(finding, display) for finding in findings], dict(not_shown)]
    # Two lines: compact JSON never holds a raw newline.
    write(_entry_path(entry), _json(outcome) + b"\n" + _json(None if summary is None else summary.packed()))


# What reading an entry that another program (or a failing disk) damaged may raise; json recurses, so
# thousands of `[` exhaust the stack.
_DAMAGED = (OSError, ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError)


def _json(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def _packed(finding: Finding, display: str | None) -> list[Any]:
    """A finding as plain values; its path left out when it is the file's own (``display``)."""
    f = finding
    where = None if f.path == display else f.path
    return [f.code, f.name, f.severity.value, where, f.line, f.column, f.rank, f.message]


def _finding(packed: list[Any], display: str | None) -> Finding:
    code, name, severity, where, line, column, rank, message = packed
    return Finding(
        code=code,
        name=name,
        severity=Severity(severity),
        path=display if where is None else where,
        line=line,
        column=column,
        rank=rank,
        message=message,
        fingerprint=None,
    )


def run_key(parts: list[str]) -> str:
    """The key of a run's findings: ``parts`` name its files' entries and everything else they depend on."""
    digest = hashlib.sha256(code_fingerprint().encode() + b"\0run")
    for part in parts:
        digest.update(b"\0" + part.encode())
    return digest.hexdigest()


def load_findings(entry: str) -> list[Finding] | None:
    """The run findings stored under ``entry``; None on a miss or a damaged entry."""
    path = _entry_path(entry)
    try:
        with open(path, "rb") as stream:
            found = [_finding(packed, None) for packed in json.loads(stream.read())]
    except _DAMAGED:
        return None
    touch(path)
    return found


def store_findings(entry: str, findings: list[Finding]) -> None:
    write(_entry_path(entry), _json([_packed(finding, None) for finding in findings]))


def load_blob(entry: str) -> bytes | None:
    """What :func:`store_blob` stored under ``entry`` (a key from :func:`run_key`), or None; the caller
    validates it (a damaged entry is a miss)."""
    path = _entry_path(entry)
    try:
        with open(path, "rb") as stream:
            data = stream.read()
    except OSError:
        return None
    touch(path)
    return data


def store_blob(entry: str, data: bytes) -> None:
    """Keep ``data`` (what tlint derived from files, as the differ's profile of a side) under ``entry``."""
    write(_entry_path(entry), data)
