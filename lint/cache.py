"""A cache of per-file results, so that an unchanged file is not parsed again.

An entry is keyed by the file's content hash and everything else its result depends on: tlint's
version, the Python that wrote the entry, the text of its code, rules and grammars, the
effective configuration for the file, and what was asked of it.  The path is not part of the key and
is not stored (findings are written relative to "this file"), so a moved or re-cloned tree still hits.
A file's content hash is remembered by its path and stat, so an unchanged file is not even read.  A
run's findings are cached too, keyed by its files' entries, names and ranks and the run's layout.

Entries are what tlint wrote itself, so they are read back without validation: compact JSON arrays
rebuilt into models directly; a foreign or damaged file is a miss.  A file's rank summary (the bulk of
an entry) is a second JSON line, read only when its run's findings are not cached themselves.  Every
write goes to a temporary file first and is renamed into place, so concurrent tlint processes see an
old entry or a new one, never half of one.

The cache is bounded: after each check the least recently used files (a hit refreshes an entry's
time) are removed until it holds at most ``$TLINT_CACHE_MAX_MB`` (default 512) megabytes.  It lives
in ``$TLINT_CACHE_DIR``, else ``$XDG_CACHE_HOME/tlint``, else ``~/.cache/tlint``; ``tlint cache dir``
prints that, ``tlint cache info`` its size, ``tlint cache clean`` empties it.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import os
import shutil
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lint import __version__
from lint.models.report import FileResult, Finding
from lint.resources import grammar_path, rules_dir
from lint.rule import Severity
from lint.source import Source

if TYPE_CHECKING:
    from lint.runs.summary import RankSummary

LAYOUT = "v2"  # the directory of this entry format: an older tlint's entries are never read
DEFAULT_MAX_MB = 512
MAX_MB_VARIABLE = "TLINT_CACHE_MAX_MB"
_ENTRIES, _CONTENTS, _MEMOS = "entries", "contents", "memos"


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


def cache_dir() -> Path:
    return Path(_cache_dir_text())


def _cache_dir_text() -> str:
    if os.environ.get("TLINT_CACHE_DIR"):
        return os.environ["TLINT_CACHE_DIR"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tlint")


def _root() -> Path:
    return Path(_in_root())


def _in_root(*parts: str) -> str:
    """A path in the cache as text: a warm check makes a few of them per file, which as Paths would cost
    more than reading the entries."""
    return os.path.join(_cache_dir_text(), LAYOUT, *parts)


@cache
def code_fingerprint() -> str:
    """tlint's and Python's versions and the text of all of tlint's code, rules and grammars.

    All of it, not only the rules: an edited parser, engine or cache format must not be served old
    entries, in a development checkout as much as after an upgrade.
    """
    digest = hashlib.sha256(f"{__version__} {sys.version}".encode())
    package = Path(__file__).parent
    code = {*package.rglob("*.py"), *rules_dir().glob("*.py"), *grammar_path("x").parent.glob("*.lark")}
    for path in sorted(code):
        digest.update(os.fsencode(path.relative_to(path.parents[1])) + b"\0" + path.read_bytes())
    return digest.hexdigest()


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
    memo = _in_root(_CONTENTS, name[:2], name)
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
            _write(memo, json.dumps({**remembered, **learned}).encode())
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
    _write(memo, json.dumps({**remembered, **learned, "stamp": stamp, "digest": digest.hexdigest()}).encode())
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
    return _in_root(_ENTRIES, entry[:2], entry)


def recall(key: str) -> bytes | None:
    """What :func:`remember` stored under ``key`` (a hex digest naming everything it depends on), or None.

    For what start-up derives from tlint's own files (a grammar's rules as data): the caller checks what it
    reads and derives it again from scratch on a miss, so a damaged memo costs time, never a wrong result.
    """
    try:
        with open(_in_root(_MEMOS, key[:2], key), "rb") as stream:
            return stream.read()
    except OSError:
        return None


def remember(key: str, data: bytes) -> None:
    """Store ``data`` under ``key`` for :func:`recall`; a cache that cannot be written is skipped."""
    _write(_in_root(_MEMOS, key[:2], key), data)


def load(entry: str, display: str) -> Outcome | None:
    """The outcome stored under ``entry``, its paths made ``display``; None on a miss or a damaged entry."""
    path = _entry_path(entry)
    try:
        with open(path, "rb") as stream:
            outcome = stream.readline()
            summary_offset = stream.tell()
            no_summary = stream.read(5) == b"null"
        (parsed, format_name), findings, not_shown = json.loads(outcome)
        result = FileResult.model_construct(path=display, format=format_name, parsed=parsed)
        found = [_finding(packed, display) for packed in findings]
        counts = Counter(dict(not_shown))
    except _DAMAGED:
        return None
    _touch(path)
    return result, found, counts, None if no_summary else StoredSummary(path, summary_offset)


def summary(display: str, stored: StoredSummary) -> RankSummary | None:
    """The rank summary of a loaded entry (its path made ``display``); None when it is damaged or gone."""
    from lint.runs.summary import RankSummary  # here: a warm check whose run findings are cached needs none

    try:
        packed = json.loads(stored.read())
        if isinstance(packed, dict):  # a format's own summary, which names its format (a descriptor's ``summary``)
            from lint import formats

            module = formats.named(packed["format"]).summary
            if module is None:
                return None
            found: RankSummary = importlib.import_module(module).unpacked(display, packed)
            return found
        return RankSummary.unpacked(display, packed)
    except _DAMAGED:
        return None


def store(entry: str, display: str, result: FileResult, findings: list[Finding], not_shown: Counter[str], summary: RankSummary | None) -> None:
    """Write the entry; a cache that cannot be written is skipped, never an error."""
    outcome = [[result.parsed, result.format], [_packed(finding, display) for finding in findings], dict(not_shown)]
    # Two lines: compact JSON never holds a raw newline.
    _write(_entry_path(entry), _json(outcome) + b"\n" + _json(None if summary is None else summary.packed()))


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
    return Finding.model_construct(
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


def _touch(path: str) -> None:
    """Mark the entry recently used: the last to be evicted."""
    with contextlib.suppress(OSError):
        os.utime(path)


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
    _touch(path)
    return found


def store_findings(entry: str, findings: list[Finding]) -> None:
    _write(_entry_path(entry), _json([_packed(finding, None) for finding in findings]))


def _write(path: str, data: bytes) -> None:
    """Write atomically (a concurrent reader sees the old file or the new one); errors are skipped."""
    directory = os.path.dirname(path)
    try:
        os.makedirs(directory, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(dir=directory, prefix=".", suffix=".tmp")
    except OSError:
        return
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        os.replace(temporary, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


# -- size ------------------------------------------------------------------------------------------


def max_bytes() -> int:
    """The bound from ``$TLINT_CACHE_MAX_MB`` (megabytes, 10^6 bytes), else the default."""
    try:
        return max(0, int(float(os.environ.get(MAX_MB_VARIABLE, DEFAULT_MAX_MB)) * 10**6))
    except ValueError:
        return DEFAULT_MAX_MB * 10**6


def _files() -> list[tuple[float, int, str]]:
    """(last use, size, path) of every file the cache holds."""
    found = []
    for top in (_ENTRIES, _CONTENTS, _MEMOS):
        try:
            shards = list(os.scandir(_root() / top))
        except OSError:
            continue
        for shard in shards:
            try:
                with os.scandir(shard.path) as files:
                    for file in files:
                        status = file.stat()
                        found.append((status.st_mtime, status.st_size, file.path))
            except OSError:
                continue
    return found


def size() -> tuple[int, int]:
    """(files, bytes) the cache holds."""
    files = _files()
    return len(files), sum(size for _, size, _ in files)


def prune(limit: int | None = None) -> int:
    """Remove the least recently used files until the cache holds at most ``limit`` bytes; returns how many."""
    limit = max_bytes() if limit is None else limit
    files = _files()
    total = sum(size for _, size, _ in files)
    removed = 0
    for _, size_, path in sorted(files):
        if total <= limit:
            break
        with contextlib.suppress(OSError):
            os.unlink(path)  # another process may have removed or replaced it: either way it is gone
        total -= size_
        removed += 1
    return removed


def clean() -> bool:
    """Remove what tlint stored in the cache directory (nothing else: it may be one the user shares); False when empty."""
    directory = cache_dir()
    try:
        ours = [entry for entry in os.scandir(directory) if entry.name == LAYOUT or _is_legacy(entry.name)]
    except OSError:
        return False
    for entry in ours:
        shutil.rmtree(entry.path, ignore_errors=True)
    with contextlib.suppress(OSError):
        directory.rmdir()  # only when nothing else is left in it
    return bool(ours)


def _is_legacy(name: str) -> bool:
    """The directories of the first entry format: ``contents`` and two-hex-digit shards."""
    return name == _CONTENTS or (len(name) == 2 and all(c in "0123456789abcdef" for c in name))
