"""A cache of per-file results, so that an unchanged file is not parsed again.

An entry is keyed by the file's content hash and everything else its result depends on: tlint's
version, the Python that wrote the entry, the text of its code, rules and grammars, the
effective configuration for the file, and what was asked of it.  The path is not part of the key and
is not stored (findings are written relative to "this file"), so a moved or re-cloned tree still hits.
A file's content hash is remembered by its path and stat, so an unchanged file is not even read.  A
run's findings are cached too, keyed by its files' entries, names and ranks and the run's layout; and
the differ's profile of a side, keyed by its files' digests and names (``load_blob``).

Entries are compact JSON arrays rebuilt into records directly; each line of an entry carries a checksum
of its text and key, and its values are checked for their types on the way: a damaged, edited or foreign
entry is a miss (the file is checked again), never a crash of a reporter or a finding lost.  A file's rank summary (the bulk of
an entry) is a second JSON line, read only when its run's findings are not cached themselves.  Every
write goes to a temporary file first and is renamed into place, so concurrent tlint processes see an
old entry or a new one, never half of one.

Entries live in the on-disk store (:mod:`lint.store.disk`: its directory, atomic writes and pruning;
a hit refreshes an entry's time, so that it is the last to be pruned).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO, Protocol, TypeVar

from lint.models.common import Record
from lint.models.report import FileResult, Finding, Severity
from lint.read.source import InputError, Source
from lint.store.digest import hasher, hex_digest
from lint.store.disk import CONTENTS, ENTRIES, code_fingerprint, in_root, touch, write
from lint.store.files import open_regular

S = TypeVar("S")


class Packable(Protocol):
    """A rank summary, as every run format's summary module makes one (its descriptor's ``runs``)."""

    def packed(self) -> list[Any]: ...


class StoredSummary(Record):
    """Where an entry keeps its file's rank summary (the bulk of the entry): read only when its run's
    findings are not cached themselves, so that a warm check reads no more than each entry's first line."""

    __slots__ = ("path", "offset", "entry")

    def __init__(self, path: str, offset: int, entry: str) -> None:
        self.path = path
        self.offset = offset
        self.entry = entry  # the entry's key, which its checksum covers

    def read(self) -> bytes:
        with _open_entry(self.path) as stream:
            stream.seek(self.offset)
            return _unsealed(self.entry, stream.read())


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
    return hex_digest(code_fingerprint().encode(), settings.encode(), content.encode())


def settings_text(settings: dict[str, Any]) -> str:
    return json.dumps(settings, sort_keys=True, default=str)


Stamp = list[int]  # what stat() says of a file: size, mtime, ctime and inode; any write changes it


def _remembered(path: Path) -> tuple[Stamp | None, str, dict[str, Any]]:
    """The file's stamp (None when it cannot be stat'ed), where what is remembered of it is kept, and what
    is remembered for that same stamp ({} when nothing, or only for an earlier version of the file)."""
    name = hex_digest(os.fsencode(os.path.abspath(path)))  # the stamp tells a replaced file
    memo = in_root(CONTENTS, name[:2], name)
    try:
        status = os.stat(path)
    except OSError:
        return None, memo, {}
    stamp = [status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino]
    try:
        with _open_entry(memo) as stream:
            remembered = json.loads(stream.read())
        if isinstance(remembered, dict) and remembered.get("stamp") == stamp:
            return stamp, memo, remembered
    except _DAMAGED:
        pass
    return stamp, memo, {}


def _content_digest(path: Path, remembered_only: bool = False, detected: tuple[str, Stamp] | None = None) -> str | None:
    """The digest of the file's bytes, remembered by its path and stat(): an unchanged file is not read again.

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
    digest = hasher()
    try:
        with open_regular(path, str(path)) as stream:
            for block in iter(lambda: stream.read(1 << 20), b""):
                digest.update(block)
    except (OSError, InputError):
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
        with _open_entry(path) as stream:
            outcome = _unsealed(entry, stream.readline().removesuffix(b"\n"))
            summary_offset = stream.tell()
            no_summary = stream.read(_SEAL + 5)[_SEAL:] == b"null"
        (parsed, format_name, consumer, reason), findings, not_shown = json.loads(outcome)
        if not (
            isinstance(parsed, bool) and all(text is None or isinstance(text, str) for text in (format_name, consumer, reason)) and isinstance(not_shown, dict)
        ):
            raise TypeError("not a file's outcome")
        result = FileResult(display, format_name, parsed, consumer, reason)
        found = [_finding(packed, display) for packed in findings]
        counts = Counter({code: _integer(count) for code, count in not_shown.items()})
    except _DAMAGED:
        return None
    touch(path)
    return result, found, counts, None if no_summary else StoredSummary(path, summary_offset, entry)


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
    write(_entry_path(entry), _sealed(entry, _json(outcome)) + b"\n" + _sealed(entry, _json(None if summary is None else summary.packed())))


# Each line of an entry starts with a checksum of its text and its key: a line damaged on disk, edited by hand,
# or copied from another entry does not match it, and is a miss.  (Not a signature: whoever may write the cache
# may write a matching checksum, as they may replace tlint itself.)
_SEAL = 33  # 32 hexadecimal digits and a space


def _sealed(entry: str, payload: bytes) -> bytes:
    return _checksum(entry, payload) + b" " + payload


def _unsealed(entry: str, line: bytes) -> bytes:
    """The payload of a sealed ``line`` of ``entry``; ValueError when its checksum does not match."""
    seal, payload = line[: _SEAL - 1], line[_SEAL:]
    if line[_SEAL - 1 : _SEAL] != b" " or seal != _checksum(entry, payload):
        raise ValueError("a cache entry whose checksum does not match")
    return payload


def _checksum(entry: str, payload: bytes) -> bytes:
    return hex_digest(entry.encode(), payload)[: _SEAL - 1].encode()


def _open_entry(path: str) -> BinaryIO:
    """An entry opened for reading: OSError for a missing one, InputError (a miss too) for one that is no file."""
    return open_regular(path, path)


# What reading an entry that another program (or a failing disk) damaged may raise; json recurses, so
# thousands of `[` exhaust the stack.
_DAMAGED = (OSError, InputError, ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError)


def _json(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def _packed(finding: Finding, display: str | None) -> list[Any]:
    """A finding as plain values; its path left out when it is the file's own (``display``)."""
    f = finding
    where = None if f.path == display else f.path
    return [f.code, f.name, f.severity.value, where, f.line, f.column, f.rank, f.message]


def _finding(packed: list[Any], display: str | None) -> Finding:
    """A finding from its stored values, checked for their types (TypeError, ValueError): the reporters trust them."""
    code, name, severity, where, line, column, rank, message = packed
    if not (all(isinstance(text, str) for text in (code, name, message)) and (where is None or isinstance(where, str))):
        raise TypeError("not a finding")
    line, column, rank = (None if value is None else _integer(value) for value in (line, column, rank))
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


def _integer(value: Any) -> int:
    if type(value) is not int:  # not a bool, not a float: what tlint wrote
        raise TypeError("not an integer")
    return value


def run_key(parts: list[str]) -> str:
    """The key of a run's findings: ``parts`` name its files' entries and everything else they depend on."""
    return hex_digest(code_fingerprint().encode(), b"run", *(part.encode() for part in parts))


def load_findings(entry: str) -> list[Finding] | None:
    """The run findings stored under ``entry``; None on a miss or a damaged entry."""
    path = _entry_path(entry)
    try:
        with _open_entry(path) as stream:
            found = [_finding(packed, None) for packed in json.loads(_unsealed(entry, stream.read()))]
    except _DAMAGED:
        return None
    touch(path)
    return found


def store_findings(entry: str, findings: list[Finding]) -> None:
    write(_entry_path(entry), _sealed(entry, _json([_packed(finding, None) for finding in findings])))


def load_blob(entry: str) -> bytes | None:
    """What :func:`store_blob` stored under ``entry`` (a key from :func:`run_key`), or None when it is missing or
    its checksum does not match; the caller validates what it holds (a damaged entry is a miss)."""
    path = _entry_path(entry)
    try:
        with _open_entry(path) as stream:
            data = _unsealed(entry, stream.read())
    except (OSError, InputError, ValueError):
        return None
    touch(path)
    return data


def store_blob(entry: str, data: bytes) -> None:
    """Keep ``data`` (what tlint derived from files, as the differ's profile of a side) under ``entry``."""
    write(_entry_path(entry), _sealed(entry, data))
