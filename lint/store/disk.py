"""The on-disk store under the cache directory: where it is, atomic writes, memos, size and pruning.

What is kept there - a check's per-file results (:mod:`lint.check.cache`) and what start-up derives from
tlint's own files (grammars' rules, the rule catalog: :func:`recall`, :func:`remember`), and the
configuration file as last parsed (:mod:`lint.check.config_memo`) - is written
through :func:`write`: to a temporary file first, renamed into place, so that concurrent tlint processes
see an old file or a new one, never half of one.  The store is bounded: after each check the least
recently used files are removed until it holds at most ``$TLINT_CACHE_MAX_MB`` (default 512) megabytes.
It lives in ``$TLINT_CACHE_DIR``, else ``$XDG_CACHE_HOME/tlint``, else ``~/.cache/tlint``.
"""

from __future__ import annotations

import contextlib
import os
import sys
from functools import cache
from importlib.util import find_spec
from pathlib import Path

from lint import __version__
from lint.models.errors import InputError
from lint.store.digest import hasher
from lint.store.files import open_regular
from lint.store.resources import grammar_path, rules_dir

LAYOUT = "v2"  # the directory of this entry format: an older tlint's entries are never read
DEFAULT_MAX_MB = 512
MAX_MB_VARIABLE = "TLINT_CACHE_MAX_MB"
ENTRIES, CONTENTS, MEMOS = "entries", "contents", "memos"


def cache_dir() -> Path:
    return Path(_cache_dir_text())


def _cache_dir_text() -> str:
    if os.environ.get("TLINT_CACHE_DIR"):
        return os.environ["TLINT_CACHE_DIR"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tlint")


def _root() -> Path:
    return Path(in_root())


def in_root(*parts: str) -> str:
    """A path in the cache as text: a warm check makes a few of them per file, which as Paths would cost
    more than reading the entries."""
    return os.path.join(_cache_dir_text(), LAYOUT, *parts)


@cache
def code_fingerprint() -> str:
    """tlint's and Python's versions and the text of all of tlint's code, rules and grammars.

    All of it, not only the rules: an edited parser, engine or cache format must not be served old
    entries, in a development checkout as much as after an upgrade.  Hashing it all on every start costs
    more than a small check: the digest is remembered by the files' stat() (size, times, inode), which
    any edit changes, and computed again only when one of them changed.  The files are listed as text, not
    as Paths: sorting some 300 Paths alone cost a tenth of a small check's own work.
    """
    package = str(Path(__file__).parents[1])
    code = sorted({*_named(package, ".py", below=True), *_named(str(rules_dir()), ".py"), *_named(str(grammar_path("x").parent), ".lark")})
    stamps = hasher()
    stamps.update(f"code fingerprint\0{__version__} {sys.version}".encode())
    for path in code:
        try:
            status = os.stat(path)
        except OSError:
            return _code_digest(code)  # reading it says what is wrong, where it matters
        stamps.update(f"\0{path}\0{status.st_size} {status.st_mtime_ns} {status.st_ctime_ns} {status.st_ino}".encode())
    remembered = recall(stamps.hexdigest())
    if remembered is not None and len(remembered) == 64:
        return remembered.decode("ascii", errors="replace")
    digest = _code_digest(code)
    remember(stamps.hexdigest(), digest.encode())
    return digest


def _named(directory: str, suffix: str, below: bool = False) -> list[str]:
    """The files of ``directory`` (and of every folder below it, not through links) whose names end in ``suffix``."""
    found: list[str] = []
    for folder, _, names in os.walk(directory) if below else [(directory, [], _listed(directory))]:
        found.extend(os.path.join(folder, name) for name in names if name.endswith(suffix))
    return found


def _listed(directory: str) -> list[str]:
    try:
        return os.listdir(directory)
    except OSError:
        return []


def _code_digest(code: list[str]) -> str:
    digest = hasher()
    digest.update(f"{__version__} {sys.version}".encode())
    for path in code:
        with open(path, "rb") as text:
            digest.update(os.fsencode(os.path.join(*path.split(os.sep)[-2:])) + b"\0" + text.read())
    return digest.hexdigest()


def lark_version() -> bytes:
    """The text of Lark's package module (its ``__version__`` is in it), on which what is remembered of a grammar
    depends beside tlint's code: reading it costs far less than importing Lark, which a check whose lines all
    take the fast path does not otherwise need."""
    spec = find_spec("lark")
    try:
        if spec is not None and spec.origin is not None:
            return Path(spec.origin).read_bytes()
    except OSError:
        pass
    import lark

    return lark.__version__.encode()


def recall(key: str) -> bytes | None:
    """What :func:`remember` stored under ``key`` (a hex digest naming everything it depends on), or None.

    For what start-up derives from tlint's own files (a grammar's rules as data): the caller checks what it
    reads and derives it again from scratch on a miss, so a damaged memo costs time, never a wrong result.
    """
    try:
        with open_regular(in_root(MEMOS, key[:2], key), key) as stream:
            return stream.read()
    except (OSError, InputError):
        return None


def remember(key: str, data: bytes) -> None:
    """Store ``data`` under ``key`` for :func:`recall`; a cache that cannot be written is skipped."""
    write(in_root(MEMOS, key[:2], key), data)


def touch(path: str) -> None:
    """Mark the entry recently used: the last to be evicted."""
    with contextlib.suppress(OSError):
        os.utime(path)


def write(path: str, data: bytes) -> None:
    """Write atomically (a concurrent reader sees the old file or the new one); errors are skipped."""
    directory = os.path.dirname(path)
    try:
        os.makedirs(directory, exist_ok=True)
        import tempfile

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
    for top in (ENTRIES, CONTENTS, MEMOS):
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
        import shutil

        shutil.rmtree(entry.path, ignore_errors=True)
    with contextlib.suppress(OSError):
        directory.rmdir()  # only when nothing else is left in it
    return bool(ours)


def _is_legacy(name: str) -> bool:
    """The directories of the first entry format: ``contents`` and two-hex-digit shards."""
    return name == CONTENTS or (len(name) == 2 and all(c in "0123456789abcdef" for c in name))
