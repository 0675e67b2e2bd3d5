"""The Chakra execution-trace schema, built at run time from its published field numbers.

mlcommons/chakra ``schema/protobuf/et_def.proto`` (proto3, package ``ChakraProtoMsg``; the layout of
schema 0.0.4, unchanged since the "Update the Chakra schema" and "Add version field" commits of October
2023) defines ``GlobalMetadata``, ``Node``, ``AttributeProto`` (a ``oneof value`` of 30 slots),
``IOInfo`` and the ``*List`` wrappers.  Here the same messages are described field by field (name,
number, type) and turned into message classes by the protobuf runtime: no generated code, and the
protobuf import happens only when a Chakra file is read.

The enums are kept as numbers (:data:`NODE_TYPES`, :data:`COLLECTIVES`): a value the schema does not
name must reach the rules as it is, as it reaches ASTRA-sim's C++ reader (proto3 enums are open).
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from google.protobuf.descriptor_pb2 import FileDescriptorProto

PACKAGE = "ChakraProtoMsg"

# enum NodeType
NODE_TYPES: dict[int, str] = {
    0: "INVALID_NODE",
    1: "METADATA_NODE",
    2: "MEM_LOAD_NODE",
    3: "MEM_STORE_NODE",
    4: "COMP_NODE",
    5: "COMM_SEND_NODE",
    6: "COMM_RECV_NODE",
    7: "COMM_COLL_NODE",
}
INVALID_NODE, METADATA_NODE, MEM_LOAD_NODE, MEM_STORE_NODE, COMP_NODE, COMM_SEND_NODE, COMM_RECV_NODE, COMM_COLL_NODE = range(8)
COMM_NODES = frozenset({COMM_SEND_NODE, COMM_RECV_NODE, COMM_COLL_NODE})

# enum CollectiveCommType
COLLECTIVES: dict[int, str] = {
    0: "ALL_REDUCE",
    1: "REDUCE",
    2: "ALL_GATHER",
    3: "GATHER",
    4: "SCATTER",
    5: "BROADCAST",
    6: "ALL_TO_ALL",
    7: "REDUCE_SCATTER",
    8: "REDUCE_SCATTER_BLOCK",
    9: "BARRIER",
}
ALL_REDUCE, REDUCE, ALL_GATHER, GATHER, SCATTER, BROADCAST, ALL_TO_ALL, REDUCE_SCATTER, REDUCE_SCATTER_BLOCK, BARRIER = range(10)

# protobuf's FieldDescriptorProto.Type numbers, by the names the .proto uses.
_TYPES = {
    "double": 1,
    "float": 2,
    "int64": 3,
    "uint64": 4,
    "int32": 5,
    "fixed64": 6,
    "fixed32": 7,
    "bool": 8,
    "string": 9,
    "message": 11,
    "bytes": 12,
    "uint32": 13,
    "enum": 14,
    "sfixed32": 15,
    "sfixed64": 16,
    "sint32": 17,
    "sint64": 18,
}

# The scalar types of AttributeProto's oneof, in field-number order: each has a ``<type>_val`` slot and a
# ``<Type>List`` one after it (double_val = 3, DoubleList double_list = 4, float_val = 5, ...).
ATTRIBUTE_TYPES = (
    "double",
    "float",
    "int32",
    "int64",
    "uint32",
    "uint64",
    "sint32",
    "sint64",
    "fixed32",
    "fixed64",
    "sfixed32",
    "sfixed64",
    "bool",
    "string",
    "bytes",
)
INTEGER_SLOTS = frozenset(f"{name}_val" for name in ATTRIBUTE_TYPES if "int" in name or "fixed" in name)

# Node's fields: number -> (name, wire type).  What the detector and the schema check compare a record with.
NODE_FIELDS: dict[int, tuple[str, int]] = {
    1: ("id", 0),
    2: ("name", 2),
    3: ("type", 0),
    4: ("ctrl_deps", 2),  # packed in proto3; a reader accepts the unpacked (varint) form as well
    5: ("data_deps", 2),
    6: ("start_time_micros", 0),
    7: ("duration_micros", 0),
    8: ("inputs", 2),
    9: ("outputs", 2),
    10: ("attr", 2),
}
METADATA_FIELDS: dict[int, tuple[str, int]] = {1: ("version", 2), 2: ("attr", 2)}


def _file() -> FileDescriptorProto:
    from google.protobuf import descriptor_pb2

    proto = descriptor_pb2.FileDescriptorProto(name="tlint_chakra_et_def.proto", package=PACKAGE, syntax="proto3")
    label_optional, label_repeated = 1, 3

    def message(name: str, *fields: tuple[str, int, str, bool, str | None]) -> descriptor_pb2.DescriptorProto:
        found = proto.message_type.add(name=name)
        for field_name, number, type_name, repeated, of in fields:
            field = found.field.add(name=field_name, number=number, type=_TYPES["message" if of else type_name])
            field.label = label_repeated if repeated else label_optional  # type: ignore[assignment]
            if of:
                field.type_name = f".{PACKAGE}.{of}"
        return found

    attribute = message("AttributeProto", ("name", 1, "string", False, None), ("doc_string", 2, "string", False, None))
    attribute.oneof_decl.add(name="value")
    number = 3
    for scalar in ATTRIBUTE_TYPES:
        list_name = scalar.capitalize() + "List"  # DoubleList, Int32List, Uint64List, Sfixed32List, ...
        message(list_name, ("values", 1, scalar, True, None))
        for field_name, type_name, of in ((f"{scalar}_val", scalar, None), (f"{scalar}_list", "message", list_name)):
            field = attribute.field.add(name=field_name, number=number, type=_TYPES[type_name], label=label_optional)
            field.oneof_index = 0
            if of:
                field.type_name = f".{PACKAGE}.{of}"
            number += 1
    message("GlobalMetadata", ("version", 1, "string", False, None), ("attr", 2, "message", True, "AttributeProto"))
    message("IOInfo", ("values", 1, "string", False, None), ("shapes", 2, "string", False, None), ("types", 3, "string", False, None))
    message(
        "Node",
        ("id", 1, "uint64", False, None),
        ("name", 2, "string", False, None),
        ("type", 3, "int32", False, None),  # enum NodeType on the wire: a varint, kept as its number
        ("ctrl_deps", 4, "uint64", True, None),
        ("data_deps", 5, "uint64", True, None),
        ("start_time_micros", 6, "uint64", False, None),
        ("duration_micros", 7, "uint64", False, None),
        ("inputs", 8, "message", False, "IOInfo"),
        ("outputs", 9, "message", False, "IOInfo"),
        ("attr", 10, "message", True, "AttributeProto"),
    )
    return proto


@cache
def messages() -> tuple[Any, Any]:
    """The message classes (GlobalMetadata, Node), built once per process."""
    from google.protobuf import descriptor_pool, message_factory

    pool = descriptor_pool.DescriptorPool()
    pool.Add(_file())
    metadata = message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{PACKAGE}.GlobalMetadata"))
    node = message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{PACKAGE}.Node"))
    return metadata, node
