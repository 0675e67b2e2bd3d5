"""``chakra-et`` detection and reading: Chakra execution traces, the per-NPU input of ASTRA-sim 2.0 (``PREFIX.<npu>.et``).

A binary format: a varint-framed ``GlobalMetadata`` record, then one ``Node`` per record (mlcommons/chakra
``schema/protobuf/et_def.proto``).  There is no text to parse, so the framing reader
(:mod:`~lint.formats.chakra_et.wire`) and the schema (:mod:`~lint.formats.chakra_et.schema`, read with the
protobuf runtime) play the grammar's part: a break in the framing, or a record that is no message of the
schema, is a syntax finding (TL601) at the record, with its byte offset.

Detection looks at the structure of the first records, not at the ``.et`` suffix: the first record must
walk as a GlobalMetadata or a Node (field numbers and wire types of the schema, or of the historical
layouts below, in ascending order) and at least half of the later complete records in the head as Nodes.
What every writer emits rules out text: each serialises its messages with protobuf's ``SerializeToString``
(chakra ``protolib.encodeMessage``), which writes the fields in the order of their numbers, and every node
a writer emits has a type (NodeType 0 is INVALID_NODE; the proto2 layouts declare it ``required``), whose
key is the byte 0x18.  A head of printable text - no byte below 0x20 but tab, line and page breaks - holds
no such node: it is no trace, however its bytes happen to frame (a line of text starts with a "length",
and its characters walk as keys of fields 4 to 15).

Historical layouts (docs/formats/chakra-et.md): before October 2023 the schema was proto2 and numbered
differently.  ``eg_def`` 0.0.1 (January 2023) kept a node's properties in fields 5-20 (``num_ops`` 12,
``comm_type`` 13, ``involved_dim`` 14, ``comm_src`` 16 ... ``comm_priority`` 20); 0.0.2 and 0.0.3
(June-September 2023) moved them into ``AttributeProto attribute = 11`` and the strings ``inputs`` ...
``output_types`` into fields 5-10.  The current reader skips those fields and reads their enum numbers
with today's meaning (0.0.1's COMP_NODE 3 is today's MEM_STORE_NODE): such a file is recognised, named,
and reported once (TL603).
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lint.formats.chakra_et import ASTRA_SIM_2, FORMAT, wire
from lint.formats.chakra_et.records import Attr, HeadRecord, NodeRecord
from lint.formats.chakra_et.schema import METADATA_FIELDS, METADATA_NODE, NODE_FIELDS
from lint.formats.descriptor import Evidence
from lint.models.common import SyntaxProblem
from lint.models.consumers import Judged

if TYPE_CHECKING:
    from lint.read.source import Source

NAME = "chakra-et"
FRAMING_CODE = "TL601"

# The historical layouts, by the fields that only they use (see the module's docstring).
EG_DEF_001 = "the eg_def 0.0.1 layout of January 2023 (proto2; a node's properties in fields 5-20)"
PROTO2_002 = "the 0.0.2/0.0.3 layout of June-September 2023 (proto2; attributes in field 11, strings in fields 5-10)"


def judged_for(lines: list[str], /) -> Judged:
    """Every Chakra trace is judged for ASTRA-sim 2.0, its one consumer (lint.models.consumers)."""
    return Judged(ASTRA_SIM_2.name, "inferred: ASTRA-sim 2.0 is the consumer of Chakra execution traces")


def detect(lines: list[str], /) -> Evidence:
    """A binary format has no lines to recognise: :func:`detect_bytes` judges its first bytes."""
    return Evidence(False, 0.0, "")


def detect_bytes(head: bytes, complete: bool) -> Evidence:
    """Whether ``head`` (the file's first bytes; ``complete`` when it is the whole file) is a Chakra trace: its
    first record must walk as a GlobalMetadata or a Node, at least half of its complete records as nodes, and at
    most half of them be empty (a zeroed file is a run of empty records)."""
    records = 0
    shaped = 0  # a damaged record among the first ones is the parser's to report: half of them suffice
    empty = 0  # records of no field: a zeroed file is nothing but these
    for frame in wire.frames(io.BytesIO(head)):
        if isinstance(frame, wire.Broken):  # after a first record, the damage is the parser's to report
            if frame.record == 0:
                return Evidence(False, 0.0, f"its framing breaks at byte {frame.offset}")
            break
        records += 1
        empty += not frame.payload
        found = wire.fields(frame.payload)
        if found is not None and (_node_shape(found, frame.payload) or (frame.record == 0 and _is_metadata(found))):
            shaped += 1
        elif frame.record == 0:
            return Evidence(False, 0.0, "its first record is neither a GlobalMetadata nor a Node")
    if not records:
        return Evidence(False, 0.0, "it holds no record")
    if 2 * empty > records:
        return Evidence(False, 0.0, f"{empty} of its first {records} records are empty (zeroed bytes)")
    if 2 * shaped >= records and _CONTROL_BYTE.search(head) is None:  # asked last: a trace has one in its first bytes
        return Evidence(False, 0.0, "its first bytes are text: no node's type key (0x18) nor any other byte below 0x20 but whitespace")
    return Evidence(2 * shaped >= records, shaped / records, f"{shaped} of its first {records} records are Chakra nodes")


# What no text holds and every node a writer emits does (its type's key, 0x18): see the module's docstring.
_CONTROL_BYTE = re.compile(rb"[\x00-\x08\x0e-\x1f]")

# The wire types each field number of a Node has in today's schema or a historical layout (see the module's
# docstring): id, name and type keep theirs in all of them; 4-11 are varints in eg_def 0.0.1 (and 4 and 5, the
# repeated dependencies, unpacked), strings or messages in 0.0.2/0.0.3 and packed or messages today; 12-20 are
# eg_def 0.0.1's scalars.  A field of another number or wire type is no writer's.
_NODE_WIRE_TYPES: dict[int, frozenset[int]] = {
    1: frozenset({wire.VARINT}),
    2: frozenset({wire.DELIMITED}),
    3: frozenset({wire.VARINT}),
    **dict.fromkeys(range(4, 12), frozenset({wire.VARINT, wire.DELIMITED})),
    **dict.fromkeys(range(12, 21), frozenset({wire.VARINT})),
}
_NO_WIRE_TYPE: frozenset[int] = frozenset()


def _in_order(found: list[tuple[int, int]]) -> bool:
    """Whether the fields come in the order of their numbers, as protobuf serialises a message (a repeated field's
    elements one after another)."""
    numbers = [number for number, _ in found]
    return numbers == sorted(numbers)


def _is_metadata(found: list[tuple[int, int]]) -> bool:
    return all(METADATA_FIELDS.get(number, ("", -1))[1] == wire_type for number, wire_type in found) and _in_order(found)


def _node_shape(found: list[tuple[int, int]], payload: bytes) -> bool:
    """Fields of a Node of today's schema or of a historical layout: numbers 1-20 in order, each with a wire type its layouts use."""
    if not all(wire_type in _NODE_WIRE_TYPES.get(number, _NO_WIRE_TYPE) for number, wire_type in found) or not _in_order(found):
        return False
    names = wire.delimited_strings(payload, 2)
    try:
        for name in names:
            name.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def historical_layout(found: list[tuple[int, int]]) -> str | None:
    """The historical layout whose fields a node record uses, None for today's schema."""
    numbers = {number for number, wire_type in found if not (number in NODE_FIELDS and NODE_FIELDS[number][1] == wire_type)}
    if any(number >= 12 for number in numbers) or (11, wire.VARINT) in found:
        return EG_DEF_001
    if (11, wire.DELIMITED) in found or numbers & {6, 7}:
        return PROTO2_002
    return None


_RANK_NAME = re.compile(FORMAT.rank_name or "(?!)")


def rank_of(path: Path) -> int | None:
    """The NPU of a file named as ASTRA-sim opens it (``PREFIX.<npu>.et``: the descriptor's ``rank_name``), None for another name."""
    match = _RANK_NAME.match(path.name)
    return int(match.group("rank")) if match else None


class Parser:
    """Reads a trace's records from its bytes (the descriptor says the format is binary)."""

    def parse(self, lines: Iterable[tuple[int, str]]) -> Iterator[Any]:
        raise TypeError("chakra-et is binary: it is read from the file's bytes (Parser.read)")

    def read(self, source: Source) -> Iterator[Any]:
        line = 0
        try:
            for item in self._read(source):
                line = item.line
                yield item
        except source.damaged_stream() as error:  # compressed data cut short or damaged: what was read stands
            yield source.damage(line + 1, error)

    def _read(self, source: Source) -> Iterator[Any]:
        from google.protobuf.message import DecodeError
        from google.protobuf.unknown_fields import UnknownFieldSet

        from lint.formats.chakra_et.schema import messages

        metadata_message, node_message = messages()
        rank = rank_of(source.path)
        with source.open() as stream:
            framed = wire.frames(stream)
            pending: list[wire.Frame | wire.Broken] = []
            for frame in framed:  # the head and the first node, which tells a historical layout
                pending.append(frame)
                if len(pending) == 2 or isinstance(frame, wire.Broken):
                    break
            if not pending:
                yield SyntaxProblem(
                    1,
                    1,
                    FRAMING_CODE,
                    "an empty file: ASTRA-sim throws 'Failed to read global metadata' (feeder_v3/et_feeder.cpp, build_index_dependancy_cache)",
                )
                return
            yield from self._head(pending, metadata_message, rank)
            first = pending[0]
            if isinstance(first, wire.Broken) or _is_metadata(wire.fields(first.payload) or [(0, -1)]):
                pending.pop(0)  # else a node stands in the metadata's place: it is read as the node it is
            undecodable = -2  # the last record that was no node
            for frame in _chained(pending, framed):
                if isinstance(frame, wire.Broken):
                    yield SyntaxProblem(frame.record + 1, 1, FRAMING_CODE, f"byte {frame.offset}: {frame.message}")
                    return
                if not frame.payload:  # no writer leaves a node without a name or type: zeroed bytes, where nothing more can be told
                    message = f"record {frame.record} at byte {frame.offset} is empty: zeroed bytes (what a crash or an unfinished copy leaves), not a node"
                    yield SyntaxProblem(frame.record + 1, 1, FRAMING_CODE, message)
                    return
                try:
                    message = node_message.FromString(frame.payload)
                except DecodeError as error:
                    # Records one after another that are no nodes are one finding (a file of another writer, forced).
                    yield SyntaxProblem(
                        frame.record + 1,
                        1,
                        FRAMING_CODE,
                        f"record {frame.record} at byte {frame.offset} ({len(frame.payload)} bytes) is no Chakra Node: {error}",
                        again=undecodable == frame.record - 1,
                    )
                    undecodable = frame.record
                    continue
                yield _node(message, frame, rank, UnknownFieldSet)

    def _head(self, pending: list[wire.Frame | wire.Broken], metadata_message: Any, rank: int | None) -> Iterator[Any]:
        from google.protobuf.message import DecodeError

        first = pending[0]
        if isinstance(first, wire.Broken):
            return
        found = wire.fields(first.payload)
        second = pending[1] if len(pending) > 1 else None
        layout = None
        for frame in (first, second):
            if isinstance(frame, wire.Frame) and (walked := wire.fields(frame.payload)) is not None and _node_shape(walked, frame.payload):
                layout = layout or historical_layout(walked)
        if found is None or not _is_metadata(found):
            yield HeadRecord(1, first.offset, metadata=False, version="", attrs={}, layout=layout, rank=rank)
            return
        try:
            metadata = metadata_message.FromString(first.payload)
        except DecodeError as error:
            yield SyntaxProblem(1, 1, FRAMING_CODE, f"record 0 at byte {first.offset} is no Chakra GlobalMetadata: {error}")
            return
        yield HeadRecord(1, first.offset, metadata=True, version=metadata.version, attrs=_attrs(metadata.attr), layout=layout, rank=rank)


def _chained(pending: list[wire.Frame | wire.Broken], rest: Iterator[wire.Frame | wire.Broken]) -> Iterator[wire.Frame | wire.Broken]:
    yield from pending
    if not (pending and isinstance(pending[-1], wire.Broken)):
        yield from rest


def _node(message: Any, frame: wire.Frame, rank: int | None, unknown_fields: Any) -> NodeRecord:
    unknown = tuple((field.field_number, field.wire_type) for field in unknown_fields(message))
    node_type = message.type
    return NodeRecord(
        frame.record + 1,
        frame.offset,
        message.id,
        message.name,
        node_type,
        tuple(message.ctrl_deps),
        tuple(message.data_deps),
        message.duration_micros,
        _attrs(message.attr),
        unknown,
        rank,
        message.inputs.values if node_type == METADATA_NODE else "",
    )


def _attrs(attributes: Iterable[Any]) -> dict[str, Attr]:
    found: dict[str, Attr] = {}
    for attribute in attributes:
        name = attribute.name
        if name in found:
            continue  # the feeder's lookups stop at the first attribute of a name
        slot = attribute.WhichOneof("value")
        if slot is None:
            found[name] = Attr(None, None)
        elif slot.endswith("_list"):
            found[name] = Attr(slot, tuple(getattr(attribute, slot).values))
        else:
            found[name] = Attr(slot, getattr(attribute, slot))
    return found
