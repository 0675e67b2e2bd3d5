"""The records of a Chakra execution trace, as rules see them.

Positions: a finding's line is the record's number (1 is the ``GlobalMetadata``, 2 the first node), its
message gives the byte offset; a binary file has no lines and columns, and the record number is what a
user finds again with ``protoc --decode_raw`` or Chakra's jsonizer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

from lint.formats.chakra_et.schema import COLLECTIVES, NODE_TYPES


@dataclass(frozen=True, slots=True)
class Attr:
    """One ``AttributeProto``: which slot of its ``oneof value`` is set (None: none), and its value (a tuple for
    the ``*_list`` slots)."""

    slot: str | None
    value: Any


@dataclass(slots=True)
class HeadRecord:
    """What the first record says about the whole file: its GlobalMetadata, or that it has none.

    ``layout`` names a historical layout when the file is written in one (see :mod:`lint.formats.chakra_et`).
    """

    kind: ClassVar[str] = "head"
    line: int
    offset: int
    metadata: bool  # the first record is a GlobalMetadata (else it is a node, which the feeder reads as one)
    version: str
    attrs: dict[str, Attr]
    layout: str | None = None
    rank: int | None = None  # the NPU the file's name gives (``PREFIX.<npu>.et``), None for another name
    column: None = None

    @property
    def stated_schema(self) -> str | None:
        """The schema the file states: GlobalMetadata ``version``, else its ``schema`` attribute."""
        if self.version:
            return self.version
        schema = self.attrs.get("schema")
        return schema.value if schema is not None and isinstance(schema.value, str) else None

    @property
    def input_file(self) -> str | None:
        """The text workload Chakra's Text converter embeds (``input_file``), None when there is none."""
        found = self.attrs.get("input_file")
        return found.value if found is not None and isinstance(found.value, str) else None


@dataclass(slots=True)
class NodeRecord:
    """One ``Node``; ``attrs`` keeps the first attribute of each name, as the feeder's lookups find it."""

    kind: ClassVar[str] = "node"
    line: int
    offset: int
    id: int
    name: str
    type: int
    ctrl_deps: tuple[int, ...]
    data_deps: tuple[int, ...]
    duration: int
    attrs: dict[str, Attr]
    unknown: tuple[tuple[int, int], ...] = ()  # (field number, wire type) the schema does not read
    rank: int | None = None  # as HeadRecord.rank
    inputs_values: str = ""  # METADATA_NODE: the process groups PyTorch's converter stores there
    column: None = None

    @property
    def index(self) -> int:
        """The record's position in the file (0 is the GlobalMetadata's place, 1 the first node after it)."""
        return self.line - 1

    @property
    def type_name(self) -> str:
        return NODE_TYPES.get(self.type, f"node type {self.type}")

    @property
    def where(self) -> str:
        """How a message names the node: ``node 40 "allreduce" (record 12, byte 1234)``."""
        return self.located().where

    def located(self) -> Located:
        """What locates the node in a finding, without the rest of the record (what a file-wide analysis keeps)."""
        return Located(self.id, self.name, self.line, self.offset, self.rank)

    def integer(self, name: str) -> int | None:
        """An integer attribute as FeederV3 reads it (any integer slot, implicitly converted); None when absent or not an integer."""
        found = self.attrs.get(name)
        if found is None or found.slot is None or not isinstance(found.value, int):
            return None
        return int(found.value)

    def flag(self, name: str) -> bool:
        """A boolean attribute as FeederV3 reads it: any integer or bool slot, false when absent."""
        found = self.attrs.get(name)
        return bool(found.value) if found is not None and isinstance(found.value, int) else False


class Located(NamedTuple):
    """A node as a finding names it: its id and name, its record (``line``) and byte offset, its file's NPU."""

    id: int
    name: str
    line: int
    offset: int
    rank: int | None

    @property
    def where(self) -> str:
        return f'node {self.id} "{_short(self.name)}" (record {self.line - 1}, byte {self.offset})'


def article(word: str) -> str:
    """``a`` or ``an`` before a word as it is read aloud (an ALL_REDUCE, a BROADCAST, an 8-byte ...)."""
    return "an" if word[:1].upper() in "AEIOU8" else "a"


def collective_name(number: int | None) -> str:
    return "no comm_type" if number is None else COLLECTIVES.get(number, f"comm_type {number}")


def _short(name: str) -> str:
    return name if len(name) <= 60 else name[:57] + "..."
