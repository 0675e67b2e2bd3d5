"""A small writer of Chakra execution traces for the tests, encoding the protobuf wire format by hand.

It does not use tlint's schema module (nor the protobuf runtime): the tests read what an independent writer
wrote, field numbers taken from mlcommons/chakra ``schema/protobuf/et_def.proto``.  A node is a dict:
``id``, ``name``, ``type`` (a NodeType name or number), ``ctrl``/``data`` (dependencies), ``duration``,
``attrs`` (name -> value: a bool, int, str or list of bools, whose slot is inferred - bool_val, int64_val
(int32_val for comm_src, comm_dst, comm_tag and comm_priority, as chakra's writers store them), string_val,
bool_list - or ``{slot = "uint64_val", value = 5}``), and ``extra`` (``[field, wire type, value]``
fields of other schemas).
"""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

NODE_TYPES = {
    "INVALID_NODE": 0,
    "METADATA_NODE": 1,
    "MEM_LOAD_NODE": 2,
    "MEM_STORE_NODE": 3,
    "COMP_NODE": 4,
    "COMM_SEND_NODE": 5,
    "COMM_RECV_NODE": 6,
    "COMM_COLL_NODE": 7,
}
SCALARS = ("double", "float", "int32", "int64", "uint32", "uint64", "sint32", "sint64", "fixed32", "fixed64", "sfixed32", "sfixed64", "bool", "string", "bytes")
INT32_ATTRIBUTES = frozenset({"comm_src", "comm_dst", "comm_tag", "comm_priority"})
SLOT_NUMBERS = {f"{scalar}_val": 3 + 2 * index for index, scalar in enumerate(SCALARS)} | {
    f"{scalar}_list": 4 + 2 * index for index, scalar in enumerate(SCALARS)
}


def varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # negative int32/int64: ten bytes of two's complement, as protobuf writes them
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def key(number: int, wire: int) -> bytes:
    return varint(number << 3 | wire)


def delimited(number: int, payload: bytes) -> bytes:
    return key(number, 2) + varint(len(payload)) + payload


def _scalar(scalar: str, value: Any) -> tuple[int, bytes]:
    """(wire type, encoded value) of one scalar."""
    if scalar in ("string", "bytes"):
        data = value.encode() if isinstance(value, str) else bytes(value)
        return 2, varint(len(data)) + data
    if scalar == "double":
        return 1, struct.pack("<d", value)
    if scalar == "float":
        return 5, struct.pack("<f", value)
    if scalar in ("fixed32", "sfixed32"):
        return 5, struct.pack("<i" if scalar[0] == "s" else "<I", value)
    if scalar in ("fixed64", "sfixed64"):
        return 1, struct.pack("<q" if scalar[0] == "s" else "<Q", value)
    if scalar in ("sint32", "sint64"):
        return 0, varint((value << 1) ^ (value >> 63))
    return 0, varint(int(value))


def attribute(name: str, value: Any) -> bytes:
    if isinstance(value, dict):
        slot, value = value["slot"], value.get("value")
    elif isinstance(value, bool):
        slot = "bool_val"
    elif isinstance(value, int):
        slot = "int32_val" if name in INT32_ATTRIBUTES else "int64_val"
    elif isinstance(value, str):
        slot = "string_val"
    else:
        slot = "bool_list"
    out = delimited(1, name.encode())
    if slot is None:
        return out
    number = SLOT_NUMBERS[slot]
    scalar = slot.rsplit("_", 1)[0]
    if slot.endswith("_list"):
        body = b""
        for item in value:
            wire, encoded = _scalar(scalar, item)
            body += key(1, wire) + encoded
        return out + delimited(number, body)
    wire, encoded = _scalar(scalar, value)
    return out + key(number, wire) + encoded


def node(spec: dict[str, Any]) -> bytes:
    kind = spec.get("type", "COMP_NODE")
    out = b""
    if spec.get("id", 0):
        out += key(1, 0) + varint(spec["id"])
    out += delimited(2, spec.get("name", f"node{spec.get('id', 0)}").encode())
    kind_number = NODE_TYPES[kind] if isinstance(kind, str) else kind
    if kind_number:
        out += key(3, 0) + varint(kind_number)
    for number, deps in ((4, spec.get("ctrl", [])), (5, spec.get("data", []))):
        if deps:
            out += delimited(number, b"".join(varint(dep) for dep in deps))
    if spec.get("duration", 0):
        out += key(7, 0) + varint(spec["duration"])
    for name, value in spec.get("attrs", {}).items():
        out += delimited(10, attribute(name, value))
    for number, wire, value in spec.get("extra", []):
        out += key(number, wire) + (varint(value) if wire == 0 else varint(len(value.encode())) + value.encode())
    return out


def metadata(spec: dict[str, Any]) -> bytes:
    out = delimited(1, spec["version"].encode()) if spec.get("version") else b""
    for name, value in spec.get("attrs", {}).items():
        out += delimited(2, attribute(name, value))
    return out


def trace(spec: dict[str, Any]) -> bytes:
    """A trace file: its GlobalMetadata (``metadata``, default version 0.0.4; false for none), its ``nodes``, and
    ``tail`` bytes (Python escapes) after them."""
    records = []
    if spec.get("metadata", {}) is not False:
        records.append(metadata(spec.get("metadata", {"version": "0.0.4"})))
    records.extend(node(found) for found in spec.get("nodes", []))
    data = b"".join(varint(len(record)) + record for record in records)
    tail: str = spec.get("tail", "")
    return data + tail.encode("latin-1").decode("unicode_escape").encode("latin-1")


def write(files: dict[str, Any], directory: Path) -> list[Path]:
    """Each file of a case: a trace spec, or the JSON of a comm_group file (a dict of lists) or its raw text."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, spec in files.items():
        path = directory / name
        if name.endswith(".json"):
            path.write_text(spec if isinstance(spec, str) else json.dumps(spec), encoding="utf-8")
            continue
        path.write_bytes(trace(spec))
        paths.append(path)
    return paths


def collective(node_id: int, comm_type: int = 0, size: int = 1048576, **attrs: Any) -> dict[str, Any]:
    """A COMM_COLL node as ASTRA-sim's microbenchmark generator writes one."""
    return {
        "id": node_id,
        "name": f"coll{node_id}",
        "type": "COMM_COLL_NODE",
        "attrs": {"is_cpu_op": False, "comm_type": comm_type, "comm_size": size, **attrs},
    }


# The fixtures of tests/fixtures/chakra/ (golden dumps in tests/golden/chakra-et/): a data-parallel trace as chakra's
# Text converter writes one, with the workload it embeds, and an NPU's send and receive cut short at the end.
_WORKLOAD = "DATA\n2\nconv1\t-1\t100\tNONE\t0\t120\tNONE\t0\t130\tALLREDUCE\t4096\t1\nfc\t-1\t200\tNONE\t0\t220\tNONE\t0\t230\tALLREDUCE\t8192\t1\n"
FIXTURES: dict[str, Any] = {
    "dp.0.et": {
        "metadata": {"attrs": {"schema": "1.0.2-chakra.0.0.4", "input_file": _WORKLOAD}},
        "nodes": [
            {"id": 0, "name": "COMP_NODE_conv1_FWD", "duration": 100},
            {"id": 1, "name": "COMP_NODE_fc_FWD", "duration": 200, "data": [0]},
            {"id": 2, "name": "COMP_NODE_fc_BWD_WG", "duration": 230, "data": [1]},
            {
                "id": 3,
                "name": "COMM_COLL_NODE_fc_ALLREDUCE",
                "type": "COMM_COLL_NODE",
                "data": [2],
                "attrs": {"comm_type": 0, "comm_size": 8192, "involved_dim": [True]},
            },
            {"id": 4, "name": "COMP_NODE_fc_BWD_IG", "duration": 220, "data": [2]},
            {"id": 5, "name": "COMP_NODE_conv1_BWD_WG", "duration": 130, "data": [4]},
            {
                "id": 6,
                "name": "COMM_COLL_NODE_conv1_ALLREDUCE",
                "type": "COMM_COLL_NODE",
                "data": [5],
                "attrs": {"comm_type": 0, "comm_size": {"slot": "uint64_val", "value": 4096}},
            },
        ],
    },
    "send_recv.1.et": {
        "nodes": [
            {"id": 1, "type": "COMM_RECV_NODE", "attrs": {"comm_src": 0, "comm_tag": 3, "comm_size": 64}},
            {
                "id": 2,
                "type": "COMM_SEND_NODE",
                "data": [1],
                "attrs": {"comm_dst": 2, "comm_tag": 4, "comm_size": 64, "is_cpu_op": {"slot": "int32_val", "value": 0}},
            },
        ],
        "tail": "\\x30\\x08",
    },
}
