"""Reading inputs: bytes to numbered text lines, never failing on what the bytes contain.

Compressed files (gzip, bzip2, xz, zstd) are recognised by their magic bytes, not their names, and
decompressed as a stream.  Line endings (LF, CRLF, a lone final line without newline) are normalised
here; invalid UTF-8, NUL bytes and truncated compressed streams become findings, so that every format
parser sees clean ``(number, text)`` pairs.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
from collections.abc import Iterable, Iterator
from functools import cache
from itertools import chain
from operator import itemgetter, methodcaller
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, TypeAlias

from lint.models.common import Record, SyntaxProblem
from lint.models.errors import InputError as InputError  # raised by the readers; its home is below them
from lint.store.files import open_regular

if TYPE_CHECKING:
    from typing_extensions import Buffer  # collections.abc.Buffer from Python 3.12

ENCODING_CODE = "TL003"
TRUNCATED_CODE = "TL004"
CONSOLE_JUNK_CODE = "TL006"
LIMIT_CODE = "TL007"
MIB = 1 << 20
# The longest line read: longer ones are reported (TL007) and passed over without being kept.  No writer prints
# one near it (the longest line of the real files is under 8 kB; a megatron op of a thousand sub-operations
# is a few hundred kB), and a line's work is bounded by it: a check never holds gigabytes of one line.
MAX_LINE_BYTES = 4 * MIB
# Compressed data may expand this many times (traces compress 15 to 25 times), past the first EXPANSION_GRACE
# bytes: a few kilobytes of gzip, xz or zstd can decompress to terabytes.
MAX_EXPANSION = 200
EXPANSION_GRACE = 64 * MIB
# Standard input is copied to a temporary file of at most this size (it is read twice); a larger input is named.
STDIN_MAX_BYTES = 1024 * MIB
HEAD_BYTES = 64 * 1024
_HEAD_CHUNK = 4096
STDIN = "-"

# First bytes of each compressed format, long enough that no text file starts that way by chance
# (a text line may well start with "BZh"; not with "BZh9" followed by bzip2's block or end marker).
# The patterns are compiled when a file first starts like one (few do): compiling them costs every start-up.
_MAGIC = (
    (b"\x1f\x8b\x08", rb"\x1f\x8b\x08", "gzip"),
    (b"BZh", rb"BZh[1-9](?:1AY&SY|\x17rE8P\x90)", "bzip2"),
    (b"\xfd7zXZ\x00", rb"\xfd7zXZ\x00", "xz"),
    (b"\x28\xb5\x2f\xfd", rb"\x28\xb5\x2f\xfd", "zstd"),
)


# An open file, or a reader that decompresses one as it is read.
ByteStream: TypeAlias = BinaryIO | io.BufferedIOBase


class _ZstdReader(io.RawIOBase):
    """A zstd stream as a raw file, which - unlike zstandard's reader - notices a truncated frame.

    zstandard's decompressobj has no bound on what one call returns, and a zstd block of a few bytes may
    stand for 128 KiB: the compressed data is fed 256 bytes at a time, so that one call gives at most ~8 MiB
    (what the expansion guard of ``Source.lines`` and ``Source.open`` then judges), never the gigabytes a few
    kB can hold."""

    def __init__(self, raw: BinaryIO) -> None:
        import zstandard

        self._raw = raw
        self._decompressor = zstandard.ZstdDecompressor()
        self._frame = self._decompressor.decompressobj()
        self._pending = b""
        self._offset = 0  # in _pending: what was handed out already
        self._finished = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Buffer) -> int:
        while self._offset == len(self._pending) and not self._finished:
            chunk = self._raw.read(_ZSTD_INPUT)
            if not chunk:
                self._finished = True
                if not self._frame.eof:
                    raise EOFError("the zstd stream ends in the middle of a frame")
                break
            self._pending, self._offset = self._frame.decompress(chunk), 0
            while self._frame.eof and self._frame.unused_data:  # the next frame of a multi-frame file
                rest = self._frame.unused_data
                self._frame = self._decompressor.decompressobj()
                self._pending += self._frame.decompress(rest)
        with memoryview(buffer) as view:
            count = min(len(view), len(self._pending) - self._offset)
            view[:count] = self._pending[self._offset : self._offset + count]
        self._offset += count
        return count


_ZSTD_INPUT = 256  # compressed bytes per decompress call (see _ZstdReader)


def _decompressed(raw: BinaryIO, compression: str | None) -> ByteStream:
    """The bytes of ``raw`` decompressed; each decompressor's module imported only for a file that needs it."""
    if compression == "gzip":
        import gzip

        return gzip.GzipFile(fileobj=raw)
    if compression == "bzip2":
        import bz2

        return bz2.BZ2File(raw)
    if compression == "xz":
        import lzma

        return lzma.LZMAFile(raw)
    if compression == "zstd":
        return io.BufferedReader(_ZstdReader(raw))
    return raw


def _damaged() -> tuple[type[Exception], ...]:
    """What a damaged compressed stream raises while it is read (asked only when something was raised)."""
    import lzma
    import zlib

    import zstandard

    return (EOFError, OSError, zlib.error, lzma.LZMAError, zstandard.ZstdError)


class Decompressed:
    """A compressed file's bytes, decompressed as they are read, under the guard the lines of a text file are read
    with: :meth:`read` raises :class:`Expanded` where they expand more than MAX_EXPANSION times the compressed
    bytes read, past EXPANSION_GRACE.  It decompresses at most _PIECE bytes at a time, so that a request for
    gigabytes (a Chakra record may declare 4 GB) is judged as it grows, not once it has all been made."""

    def __init__(self, raw: BinaryIO, stream: ByteStream) -> None:
        self._raw = raw
        self._stream = stream
        self._expanded = 0  # bytes decompressed so far

    def read(self, size: int = -1, /) -> bytes:
        pieces = []
        left = size if size >= 0 else sys.maxsize
        while left and (piece := self._stream.read(min(left, _PIECE))):
            pieces.append(piece)
            left -= len(piece)
            self._expanded += len(piece)
            _within_expansion(self._expanded, self._raw)
        return b"".join(pieces)

    def close(self) -> None:
        """Closes the decompressor and the file under it (a decompressor given a file object leaves it open)."""
        with self._raw:
            self._stream.close()

    def __enter__(self) -> Decompressed:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


_PIECE = MIB  # decompressed bytes per read of the stream under a Decompressed


def _within_expansion(expanded: int, raw: BinaryIO) -> None:
    """Raises Expanded when ``expanded`` bytes came from too few compressed ones (``raw``'s position)."""
    if expanded > EXPANSION_GRACE and expanded > MAX_EXPANSION * (consumed := raw.tell()):
        raise Expanded(expanded, consumed)


class Expanded(Exception):
    """Compressed data expanded past MAX_EXPANSION: reading stops (:meth:`Source.damage` gives the finding)."""

    def __init__(self, expanded: int, consumed: int) -> None:
        super().__init__(f"{expanded:,} bytes from {consumed:,}")
        self.expanded = expanded
        self.consumed = consumed


class Source(Record):
    """One input file and what reading it found wrong with its bytes."""

    __slots__ = ("path", "display", "problems", "compression", "named", "head_damage", "console", "head_bytes", "keeps_bom")

    def __init__(self, path: Path, display: str, *, named: bool = False) -> None:
        self.path = path
        self.display = display
        self.problems: list[SyntaxProblem] = []
        self.compression: str | None = None
        self.named = named  # named by the user (not met while walking a directory or expanding a glob)
        self.head_damage: SyntaxProblem | None = None  # the compressed data broke within the head (see head())
        # A console capture several processes and threads print into (its format's descriptor says so): bytes
        # that are no text are the console's damage, not a writer's (TL006 instead of TL003).
        self.console = False
        # The bytes head() read, and whether they are the whole file: what a binary format is detected from.
        self.head_bytes: tuple[bytes, bool] | None = None
        # The format's consumers read a UTF-8 byte-order mark as text (its descriptor's ``keeps_bom``): lines() keeps
        # it at the start of line 1 for the parser to judge; otherwise it is dropped there.  head() always drops it.
        self.keeps_bom = False

    def _open_raw(self) -> BinaryIO:
        return open_regular(self.path, self.display)

    def open(self) -> BinaryIO | Decompressed:
        """The file's bytes, decompressed when its first bytes are a compression format's magic: then reading
        raises :class:`Expanded` where they expand past the bound (see :meth:`damaged_stream`)."""
        raw, stream = self._opened()
        return raw if stream is raw else Decompressed(raw, stream)

    def _opened(self) -> tuple[BinaryIO, ByteStream]:
        """The file as stored, and its bytes (decompressed when its first bytes are a compression format's magic)."""
        raw = self._open_raw()
        start = raw.read(10)
        raw.seek(0)
        self.compression = next((name for prefix, magic, name in _MAGIC if start.startswith(prefix) and re.match(magic, start, re.S)), None)
        return raw, _decompressed(raw, self.compression)

    def head(self) -> list[str]:
        """The first lines (at most HEAD_BYTES), decoded leniently: enough to detect the format.  A detector
        weighs the first ``lint.formats.descriptor.HEAD_LINES`` of them; the others are there for one that looks past a preamble.

        NUL bytes or other binary junk are kept: inside a trace they are damage for the parser to report at
        their line, and a file that is binary throughout is recognised by no format.
        """
        data = b""
        with self.open() as stream:
            try:
                # Small reads of a compressed stream: a damaged one loses only the chunk it breaks in, so a
                # truncated file whose readable part is short is still detected (and lines() then reports the damage).
                size = _HEAD_CHUNK if self.compression is not None else HEAD_BYTES
                while len(data) < HEAD_BYTES and (chunk := stream.read(min(size, HEAD_BYTES - len(data)))):
                    data += chunk
            except _damaged() as error:
                if self.compression is None:
                    raise InputError(f"{self.display}: cannot read: {error}") from None
                self.head_damage = self.damage(data.count(b"\n") + 1, error)
        self.head_bytes = (data, len(data) < HEAD_BYTES and self.head_damage is None)
        text = data.decode("utf-8", "replace").removeprefix("\ufeff")
        lines = text.split("\n")
        if len(data) == HEAD_BYTES and len(lines) > 1:
            lines.pop()  # the last line may be cut in the middle
        return [line.removesuffix("\r") for line in lines]

    def lines(self) -> Iterator[tuple[int, str]]:
        """Every line as (1-based number, text without its line ending), streamed."""
        return chain.from_iterable(self._runs_of_lines())

    def _runs_of_lines(self) -> Iterator[Iterable[tuple[int, str]]]:
        """The numbered lines, in runs.  An uncompressed file is read a block at a time: the lines of a block
        without NUL bytes whose lines all decode as UTF-8 are made at once, without Python code per line; the
        lines of the other blocks are looked at one by one.  A line longer than MAX_LINE_BYTES is counted, not
        kept, and reported instead of read."""
        raw, stream = self._opened()
        with raw, stream:
            if self.compression is not None:
                yield self._decompressed_lines(stream, raw)
                return
            number = 0
            started: list[bytes] = []  # the line the blocks so far end in, in parts: a line may be longer than a block
            started_size = 0
            while block := stream.read(_BLOCK):
                end = block.rfind(b"\n") + 1
                if not end:
                    started_size += len(block)
                    started = [] if started_size > MAX_LINE_BYTES else [*started, block]  # too long: only counted
                    continue
                first_end = block.index(b"\n")  # where the line the blocks so far end in ends
                if started_size + first_end > MAX_LINE_BYTES:
                    number += 1
                    self._too_long(number, started_size + first_end)
                    whole = block[first_end + 1 : end]  # the lines after it, in this block
                else:
                    whole = b"".join((*started, block[:end])) if started else block[:end]
                started = [block[end:]]
                started_size = len(block) - end
                if not whole:
                    continue
                raws = list(map(_WITHOUT_NEWLINE, io.BytesIO(whole)))  # found by memchr, unlike bytes.split's loop
                lines = None if b"\0" in whole else _utf8_lines(raws, crlf=b"\r" in whole)
                if lines is None:
                    yield self._checked_lines(raws, number)
                else:
                    if number == 0 and not self.keeps_bom:
                        lines[0] = lines[0].removeprefix("\ufeff")
                    yield enumerate(lines, number + 1)
                number += len(raws)
            if started_size > MAX_LINE_BYTES:
                self._too_long(number + 1, started_size)
            elif last := b"".join(started):
                yield self._checked_lines([last], number)

    def _checked_lines(self, raws: list[bytes], before: int) -> Iterator[tuple[int, str]]:
        for number, raw in enumerate(raws, before + 1):
            yield number, self._text(number, raw)

    def _decompressed_lines(self, stream: ByteStream, raw: BinaryIO) -> Iterator[tuple[int, str]]:
        """The lines of a compressed stream, each read up to MAX_LINE_BYTES; reading stops where the data has
        expanded more than MAX_EXPANSION times the bytes read of ``raw`` (past EXPANSION_GRACE), as it stops
        where the data is damaged."""
        number = 0
        expanded = 0  # bytes decompressed so far
        judged = EXPANSION_GRACE  # how many had been when the expansion was last judged (past the grace, each _BLOCK)
        try:
            while line := stream.readline(MAX_LINE_BYTES + 1):
                number += 1
                expanded += len(line)
                if len(line) > MAX_LINE_BYTES:  # the line goes on: counted to its end, not kept
                    length = len(line)
                    while not line.endswith(b"\n") and (line := stream.readline(_BLOCK)):
                        length += len(line)
                        expanded += len(line)
                        _within_expansion(expanded, raw)
                    self._too_long(number, length - line.endswith(b"\n"))
                    continue
                if expanded > judged:
                    _within_expansion(expanded, raw)
                    judged = expanded + _BLOCK
                yield number, self._text(number, line)
        except _damaged() as error:
            self.problems.append(self.damage(number + 1, error))
        except Expanded as stopped:  # in line ``number``, not yielded
            self.problems.append(self.damage(number, stopped))

    def _too_long(self, number: int, length: int) -> None:
        message = (
            f"line {number} is {length:,} bytes long, over the {MAX_LINE_BYTES // MIB} MiB tlint reads of a line: it was not checked "
            "(no writer prints such a line: binary data, or lines run together without their newlines)"
        )
        self.problems.append(SyntaxProblem(number, 1, LIMIT_CODE, message))

    def _text(self, number: int, raw: bytes) -> str:
        """Line ``number`` without its ending (a newline, CR LF, or a last line's CR), its damage noted."""
        if raw.endswith(b"\n"):
            raw = raw[:-2] if raw.endswith(b"\r\n") else raw[:-1]
        elif raw.endswith(b"\r"):
            raw = raw[:-1]
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            text = self._undecodable(number, raw, error)
        if b"\0" in raw:
            self._nul(number, text)
        return text.removeprefix("\ufeff") if number == 1 and not self.keeps_bom else text

    def damaged_stream(self) -> tuple[type[Exception], ...]:
        """What reading this file's bytes (``open()``) raises where its compressed data is damaged, or expands past
        the bound: nothing for a file stored as it is (``except source.damaged_stream()`` then catches nothing)."""
        return (*_damaged(), Expanded) if self.compression is not None else ()

    def damage(self, number: int, error: Exception) -> SyntaxProblem:
        """The finding for compressed data that breaks off, or expands past the bound, at line (or record) ``number``."""
        if isinstance(error, Expanded):
            message = (
                f"the {self.compression} data expands more than {MAX_EXPANSION}-fold ({error}): reading stopped after line {number - 1}, "
                "and what follows was not checked (no trace compresses so well: a decompression bomb?)"
            )
            return SyntaxProblem(number, 1, LIMIT_CODE, message)
        where = f"after line {number - 1}" if number > 1 else "before its first line"
        return SyntaxProblem(number, 1, TRUNCATED_CODE, f"the {self.compression} data is damaged or ends early {where}: {error}")

    def _nul(self, number: int, text: str) -> None:
        self._not_text(number, text.index("\0") + 1, "a NUL byte", "no writer's text holds one (blocks of NULs are what a crash or an unfinished copy leaves)")

    def _undecodable(self, number: int, raw: bytes, error: UnicodeDecodeError) -> str:
        column = len(raw[: error.start].decode("utf-8", "replace")) + 1
        self._not_text(number, column, f"invalid UTF-8 byte 0x{raw[error.start]:02x}", "the file must be UTF-8 text")
        return raw.decode("utf-8", "replace")

    def _not_text(self, number: int, column: int, found: str, why: str) -> None:
        if self.console:
            message = (
                f"{found} in the console output: torchrun --tee prints the workers' lines from several threads, which can write out memory instead of text"
            )
            self.problems.append(SyntaxProblem(number, column, CONSOLE_JUNK_CODE, message))
        else:
            self.problems.append(SyntaxProblem(number, column, ENCODING_CODE, f"{found}; {why}"))


_BLOCK = 1 << 16  # larger blocks fall out of the CPU cache before their lines are parsed: slower


_WITHOUT_NEWLINE = itemgetter(slice(None, -1))
_WITHOUT_CR = methodcaller("removesuffix", b"\r")


def _utf8_lines(raws: list[bytes], crlf: bool) -> list[str] | None:
    """Lines without their newline as text, a CR before the newline removed; None when one is not UTF-8."""
    try:
        return list(map(bytes.decode, map(_WITHOUT_CR, raws) if crlf else raws))
    except UnicodeDecodeError:
        return None


def spool_stdin() -> Source:
    """Standard input, copied to a temporary file: it is read twice (detection, then checking).  InputError
    when it holds more than STDIN_MAX_BYTES (``tlint check - < /dev/zero`` must end)."""
    return Source(_spooled(sys.stdin.buffer), STDIN, named=True)


@cache
def _spooled(stream: BinaryIO) -> Path:
    """Copied once: named twice (`tlint diff - -`), standard input is the same text both times, not a second,
    empty, file.  The copy is removed however tlint ends: at exit, on an error or Ctrl-C while copying, and on
    SIGTERM or SIGHUP, which end tlint as Ctrl-C does instead of killing it."""
    import atexit
    import tempfile

    _exit_cleanly_on_termination()
    spool = tempfile.NamedTemporaryFile(prefix="tlint-stdin-", delete=False)  # noqa: SIM115 - removed as said
    atexit.register(_remove, spool.name, os.getpid())
    try:
        with spool:
            copied = 0
            while chunk := stream.read(_BLOCK * 16):
                copied += len(chunk)
                if copied > STDIN_MAX_BYTES:
                    raise InputError(
                        f"{STDIN}: standard input holds more than {STDIN_MAX_BYTES // MIB:,} MiB, more than tlint copies of it: name the file instead"
                    )
                spool.write(chunk)
    except BaseException:
        _remove(spool.name)
        raise
    return Path(spool.name)


def _remove(path: str, owner: int | None = None) -> None:
    """Remove ``path``; at exit only in the process that made it (``owner``), not in a forked worker."""
    if owner is None or owner == os.getpid():
        with contextlib.suppress(OSError):
            os.unlink(path)


def _exit_cleanly_on_termination() -> None:
    """SIGTERM and SIGHUP (a closed terminal, a CI job cancelled) raise SystemExit, so that cleanup runs, where
    they would otherwise kill the process; only where nothing else handles them, and in the main thread."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return
    for number in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if number is not None and signal.getsignal(number) == signal.SIG_DFL:
            signal.signal(number, _terminated)


def _terminated(number: int, _frame: object) -> None:
    sys.exit(128 + number)


def printable_path(name: str) -> str:
    """A path as reports show it.  A file name's bytes that are not UTF-8 reach Python as lone surrogates,
    which no UTF-8 output can encode; they become U+FFFD (the file is still opened by its real name)."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def read_lines(path: str, wanted: set[int]) -> dict[int, str]:
    """The ``wanted`` lines of ``path`` in one streaming pass ({} when it cannot be read)."""
    if not wanted or not Path(path).is_file():
        return {}
    found: dict[int, str] = {}
    last = max(wanted)
    try:
        for number, text in Source(Path(path), path).lines():
            if number in wanted:
                found[number] = text
            if number >= last:
                break
    except (InputError, OSError):
        pass
    return found
