"""The framing of a Chakra execution trace, read without the protobuf runtime.

A trace is a stream of length-delimited protobuf records: a varint byte count, then that many bytes
(chakra ``src/third_party/utils/protolib.py`` ``encodeMessage``, which writes ``_VarintBytes(size)``
and the message; read back by ASTRA-sim's feeder, astra-sim/chakra ``src/feeder_v3/protobuf_util.h``
``ProtobufUtils::readMessage``/``readVarint32``).  The first record is a ``GlobalMetadata``, every later
one a ``Node``.

:func:`frames` cuts a stream into records and says where the framing breaks, with the byte offset and
the record's index, as a syntax error gives a line and column.  :func:`fields` walks one record's
top-level fields (number and wire type), which is all detection needs: a file is told apart from text by
its structure, with no protobuf import.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple, Protocol

# readVarint32 gives up after five bytes (``shift > 28``): a longer prefix ends the feeder's reading.
MAX_PREFIX_BYTES = 5
MAX_LENGTH = 2**32 - 1
_CHUNK = 1 << 20

VARINT, FIXED64, DELIMITED, START_GROUP, END_GROUP, FIXED32 = range(6)


class Readable(Protocol):
    def read(self, size: int, /) -> bytes: ...


class Frame(NamedTuple):
    record: int  # 0 for the first record (the GlobalMetadata), n for the n-th node
    offset: int  # byte offset of the record's length prefix
    payload: bytes


class Broken(NamedTuple):
    """Where the framing breaks: nothing after ``offset`` can be read as records."""

    record: int
    offset: int
    message: str


def frames(stream: Readable) -> Iterator[Frame | Broken]:
    """The records of ``stream``, then a :class:`Broken` where the framing breaks, if it does; the stream is
    read a chunk at a time, so memory holds a chunk and one record."""
    reader = _Reader(stream)
    index = 0
    while reader.ensure(1):
        buffer, pos = reader.buffer, reader.pos
        first = buffer[pos]
        if first < 0x80 and pos + 1 + first <= len(buffer):  # a one-byte prefix and the record in the buffer: most records
            reader.pos = pos + 1 + first
            yield Frame(index, reader.offset - 1 - first, buffer[pos + 1 : reader.pos])
            index += 1
            continue
        start = reader.offset
        length = 0
        shift = 0
        count = 0  # bytes of the prefix so far
        while True:
            if not reader.ensure(count + 1):
                yield Broken(index, start, f"the file ends inside the length prefix of record {index} ({count} byte(s) of a varint)")
                return
            byte = reader.buffer[reader.pos + count]
            count += 1
            length |= (byte & 0x7F) << shift
            if byte < 0x80:
                break
            shift += 7
            if count >= MAX_PREFIX_BYTES:
                yield Broken(
                    index,
                    start,
                    f"the length prefix of record {index} runs past {MAX_PREFIX_BYTES} bytes: no record is that long (the feeder stops reading here)",
                )
                return
        if length > MAX_LENGTH:
            yield Broken(index, start, f"record {index} declares {length} bytes, more than a 32-bit length (the feeder stops reading here)")
            return
        if not reader.ensure(count + length):
            have = len(reader.buffer) - reader.pos - count
            yield Broken(index, start, f"record {index} declares {length} bytes but the file ends after {have}: the file is truncated")
            return
        body = reader.pos + count
        yield Frame(index, start, reader.buffer[body : body + length])
        reader.pos = body + length
        index += 1


class _Reader:
    """A stream's bytes in a buffer that is refilled a chunk at a time."""

    def __init__(self, stream: Readable) -> None:
        self._read = stream.read
        self.buffer = b""
        self.pos = 0
        self._base = 0  # offset of buffer[0] in the stream

    @property
    def offset(self) -> int:
        return self._base + self.pos

    def ensure(self, count: int) -> bool:
        """Whether ``count`` bytes from ``pos`` on are in the buffer (reading more as needed)."""
        while len(self.buffer) - self.pos < count:
            chunk = self._read(max(_CHUNK, count - (len(self.buffer) - self.pos)))
            if not chunk:
                return False
            self._base += self.pos
            self.buffer = self.buffer[self.pos :] + chunk
            self.pos = 0
        return True


def fields(payload: bytes) -> list[tuple[int, int]] | None:
    """The (field number, wire type) of each top-level field of one record, or None when its bytes are no
    protobuf message (a field that runs past the end, a group, a field number 0)."""
    found: list[tuple[int, int]] = []
    pos = 0
    size = len(payload)
    while pos < size:
        key, pos = _varint(payload, pos)
        if key is None:
            return None
        number, wire = key >> 3, key & 7
        if number == 0:
            return None
        if wire == VARINT:
            value, pos = _varint(payload, pos)
            if value is None:
                return None
        elif wire == FIXED64:
            pos += 8
        elif wire == FIXED32:
            pos += 4
        elif wire == DELIMITED:
            length, pos = _varint(payload, pos)
            if length is None:
                return None
            pos += length
        else:
            return None
        if pos > size:
            return None
        found.append((number, wire))
    return found


def delimited_strings(payload: bytes, number: int) -> list[bytes]:
    """The contents of the top-level length-delimited fields ``number`` of a record whose :func:`fields` walk succeeded."""
    found: list[bytes] = []
    pos = 0
    while pos < len(payload):
        key, pos = _varint(payload, pos)
        assert key is not None
        wire = key & 7
        if wire == VARINT:
            _, pos = _varint(payload, pos)
        elif wire == FIXED64:
            pos += 8
        elif wire == FIXED32:
            pos += 4
        else:
            length, pos = _varint(payload, pos)
            assert length is not None
            if key >> 3 == number:
                found.append(payload[pos : pos + length])
            pos += length
    return found


def _varint(data: bytes, pos: int) -> tuple[int | None, int]:
    value = 0
    shift = 0
    while pos < len(data):
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7
        if shift >= 70:
            return None, pos
    return None, pos
