"""Reading inputs: bytes to numbered text lines, never failing on what the bytes contain.

Line endings (LF, CRLF, a lone final line without newline) are normalised here; invalid UTF-8 becomes a
finding and the replacement character, so that every format parser sees clean ``(number, text)`` pairs.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from lint.models.common import SyntaxProblem

ENCODING_CODE = "TL003"
HEAD_BYTES = 64 * 1024
HEAD_LINES = 200


class InputError(Exception):
    """A path that cannot be read at all (missing, a directory without permission, ...)."""


@dataclass
class Source:
    """One input file and what reading it found wrong with its bytes."""

    path: Path
    display: str
    problems: list[SyntaxProblem] = field(default_factory=list)

    def open(self) -> BinaryIO:
        try:
            return open(self.path, "rb")
        except OSError as error:
            raise InputError(f"{self.display}: cannot read: {error.strerror or error}") from None

    def head(self) -> list[str]:
        """The first lines (at most HEAD_BYTES), decoded leniently: enough to detect the format."""
        with self.open() as stream:
            data = stream.read(HEAD_BYTES)
        if b"\0" in data:
            return []  # binary: no text format applies
        text = data.decode("utf-8", "replace").removeprefix("\ufeff")
        lines = text.split("\n")
        if len(data) == HEAD_BYTES and len(lines) > 1:
            lines.pop()  # the last line may be cut in the middle
        return [line.removesuffix("\r") for line in lines[:HEAD_LINES]]

    def lines(self) -> Iterator[tuple[int, str]]:
        """Every line as (1-based number, text without its line ending), streamed."""
        with self.open() as stream:
            number = 0
            for number, raw in enumerate(stream, 1):
                if raw.endswith(b"\n"):
                    raw = raw[:-2] if raw.endswith(b"\r\n") else raw[:-1]
                elif raw.endswith(b"\r"):
                    raw = raw[:-1]
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError as error:
                    text = self._undecodable(number, raw, error)
                if number == 1:
                    text = text.removeprefix("\ufeff")
                yield number, text

    def _undecodable(self, number: int, raw: bytes, error: UnicodeDecodeError) -> str:
        column = len(raw[: error.start].decode("utf-8", "replace")) + 1
        self.problems.append(
            SyntaxProblem(number, column, ENCODING_CODE, f"invalid UTF-8 byte 0x{raw[error.start]:02x}; the file must be UTF-8 text")
        )
        return raw.decode("utf-8", "replace")


def printable_path(name: str) -> str:
    """A path as reports show it.  A file name's bytes that are not UTF-8 reach Python as lone surrogates,
    which no UTF-8 output can encode; they become U+FFFD (the file is still opened by its real name)."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def expand(paths: list[str]) -> tuple[list[Source], list[str]]:
    """Files named by ``paths`` (directories walked, hidden entries skipped) and the errors found."""
    sources: list[Source] = []
    errors: list[str] = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            _walk(path, sources, errors)
        elif path.is_file():
            sources.append(Source(path, printable_path(name)))
        elif path.exists() or path.is_symlink():
            errors.append(f"{printable_path(name)}: not a regular file or directory")
        else:
            errors.append(f"{printable_path(name)}: no such file or directory")
    return sources, errors


def _walk(root: Path, sources: list[Source], errors: list[str]) -> None:
    def report(error: OSError) -> None:
        errors.append(f"{printable_path(str(error.filename))}: cannot read directory: {error.strerror}")

    for directory, dirnames, filenames in os.walk(root, onerror=report):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for filename in sorted(filenames):
            if not filename.startswith("."):
                path = Path(directory) / filename
                sources.append(Source(path, printable_path(str(path))))


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
