"""A Chakra run: the files ``PREFIX.<npu>.et`` of one folder, one per NPU, and what its run rules compare.

ASTRA-sim 2.0 opens ``PREFIX.<id>.et`` for every NPU of the network (``astra-sim/workload/Workload.cc:29``)
and pairs the collectives of a process group across NPUs by the order each NPU issues them; sends and
receives meet on (tag, source, destination, size).  While a file is read its nodes are reduced to a
:class:`ChakraSummary`; the summaries of a folder's files are assembled into a :class:`ChakraRun`, with the
process groups of its ``comm_group.json`` (``--comm-group FILE``, else ``comm_group.json`` or
``PREFIX.json`` beside the files, as astra-sim/symbolic_tensor_graph writes it).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from lint.formats.chakra_et.records import HeadRecord, NodeRecord
from lint.formats.chakra_et.schema import BROADCAST, COMM_COLL_NODE, COMM_RECV_NODE, COMM_SEND_NODE, COMP_NODE, METADATA_NODE

NAME = "chakra-et"
COMM_GROUP_NAMES = ("comm_group.json",)


class Collective(NamedTuple):
    """One COMM_COLL node as its peers must match it: its process group (pg_name; "" for all NPUs), type and size."""

    group: str
    comm_type: int | None
    size: int | None
    line: int


class PointToPoint(NamedTuple):
    """One COMM_SEND or COMM_RECV node: (tag, source, destination, size) and where it is."""

    tag: int | None
    src: int | None
    dst: int | None
    size: int | None
    line: int


@dataclass
class ChakraSummary:
    """What the run rules and `tlint diff` know of one NPU's file."""

    path: str
    rank: int | None
    collectives: list[Collective] = field(default_factory=list)
    sends: list[PointToPoint] = field(default_factory=list)
    recvs: list[PointToPoint] = field(default_factory=list)
    node_types: Counter[int] = field(default_factory=Counter)
    comm_bytes: Counter[tuple[str, int | None]] = field(default_factory=Counter)  # (group, comm_type) -> bytes
    compute_micros: int = 0
    rejected: int = 0  # sends and receives ASTRA-sim throws at (TL611): the run's matching waits until they are fixed
    process_groups: dict[str, list[int]] = field(default_factory=dict)  # defined by a METADATA_NODE ([] = every NPU)
    schema: str | None = None
    lost: bool = False  # the engine's RankSummary has it: a summary is never lost here

    def packed(self) -> dict[str, Any]:
        """The summary as JSON values, for the cache; not its path, so that a moved file keeps its entry."""
        return {
            "format": NAME,
            "rank": self.rank,  # the file name's (the cache keys a chakra-et file by it too)
            "collectives": [list(found) for found in self.collectives],
            "sends": [list(found) for found in self.sends],
            "recvs": [list(found) for found in self.recvs],
            "node_types": sorted(self.node_types.items()),
            "comm_bytes": [[group, comm_type, count] for (group, comm_type), count in sorted(self.comm_bytes.items(), key=repr)],
            "compute_micros": self.compute_micros,
            "rejected": self.rejected,
            "process_groups": self.process_groups,
            "schema": self.schema,
        }

    @classmethod
    def unpacked(cls, path: str, packed: dict[str, Any]) -> ChakraSummary:
        """The inverse of :meth:`packed`, trusting what tlint wrote itself."""
        return cls(
            path=path,
            rank=packed["rank"],
            collectives=[Collective(*found) for found in packed["collectives"]],
            sends=[PointToPoint(*found) for found in packed["sends"]],
            recvs=[PointToPoint(*found) for found in packed["recvs"]],
            node_types=Counter({int(kind): count for kind, count in packed["node_types"]}),
            comm_bytes=Counter({(group, comm_type): count for group, comm_type, count in packed["comm_bytes"]}),
            compute_micros=packed["compute_micros"],
            rejected=packed["rejected"],
            process_groups=packed["process_groups"],
            schema=packed["schema"],
        )


def unpacked(path: str, packed: dict[str, Any]) -> ChakraSummary:
    """A cached summary (see the cache's ``summary``)."""
    return ChakraSummary.unpacked(path, packed)


class Summarizer:
    """Builds a file's :class:`ChakraSummary` from its records as they stream past (see the engine's ``check_file``)."""

    def __init__(self, path: str) -> None:
        self.summary = ChakraSummary(path, None)

    def check_head(self, head: HeadRecord) -> None:
        self.summary.rank = head.rank
        self.summary.schema = head.stated_schema

    def check_node(self, node: NodeRecord) -> None:
        summary = self.summary
        summary.node_types[node.type] += 1
        if node.type == METADATA_NODE:
            summary.process_groups.update(_process_groups(node.inputs_values))
        elif node.type == COMP_NODE:
            summary.compute_micros += node.duration
        elif node.type == COMM_COLL_NODE:
            group = node.attrs.get("pg_name")
            name = group.value if group is not None and isinstance(group.value, str) else ""
            comm_type = node.integer("comm_type")
            size = node.integer("comm_size")
            summary.collectives.append(Collective(name, comm_type, size, node.line))
            if comm_type != BROADCAST:
                summary.comm_bytes[(name, comm_type)] += size or 0
        elif node.type in (COMM_SEND_NODE, COMM_RECV_NODE):
            send = node.type == COMM_SEND_NODE
            # The own end defaults to the file's NPU (Workload.cc:395, 422).
            src = node.integer("comm_src") if not send or "comm_src" in node.attrs else node.rank
            dst = node.integer("comm_dst") if send or "comm_dst" in node.attrs else node.rank
            if (src if send else dst) != node.rank or None in (src, dst, node.integer("comm_tag"), node.integer("comm_size")):
                summary.rejected += 1  # ASTRA-sim throws at the node itself (TL611)
                return
            found = PointToPoint(node.integer("comm_tag"), src, dst, node.integer("comm_size"), node.line)
            (summary.sends if send else summary.recvs).append(found)
            summary.comm_bytes[("p2p", node.type)] += found.size or 0

    def result(self) -> ChakraSummary:
        return self.summary


def _process_groups(values: str) -> dict[str, list[int]]:
    """The process groups a METADATA_NODE of chakra's PyTorch converter defines, read as ASTRA-sim reads them
    (``Workload::issue_pytorch_pg_metadata``, ``Workload.cc:101-134``: the text without its first and last two
    characters, a JSON list of ``{"pg_name", "ranks"}``; what does not parse is skipped, as there)."""
    if not values:
        return {}
    try:
        document = json.loads(values[2 : len(values) - 2])
    except (json.JSONDecodeError, RecursionError):
        return {}
    found: dict[str, list[int]] = {}
    for item in document if isinstance(document, list) else ():
        if isinstance(item, dict) and isinstance(item.get("pg_name"), str) and isinstance(item.get("ranks"), list):
            found[item["pg_name"]] = [rank for rank in item["ranks"] if isinstance(rank, int)]
    return found


@dataclass
class CommGroups:
    """The process groups of a run's ``comm_group.json``: ``{"<id>": [npu, ...]}`` (Workload.cc:73-98)."""

    path: str
    groups: dict[str, list[int]]
    problem: str | None = None  # why the file cannot be read as ASTRA-sim reads it


@dataclass
class ChakraRun:
    """The files of one Chakra run, by NPU."""

    label: str
    ranks: dict[int, ChakraSummary]
    duplicates: list[ChakraSummary]
    asked: frozenset[str]
    comm_groups: CommGroups | None
    part = "NPU"  # what stage_of groups the ranks into, as the engine's note on withheld findings says

    def stage_of(self, rank: int) -> int:
        """Every NPU is its own part of the run: a file's syntax error holds back only the findings about it."""
        return rank

    def defined(self, group: str) -> list[int] | None:
        """The NPUs a process group is defined with: by a METADATA_NODE of the traces (``[]``: every NPU), else by
        comm_group.json; None when neither defines it."""
        for summary in self.ranks.values():
            if group in summary.process_groups:
                return summary.process_groups[group] or sorted(self.ranks)
        if self.comm_groups is not None:
            for key, members in self.comm_groups.groups.items():
                if key == group or (key.strip().lstrip("+-").isdecimal() and group.strip().lstrip("+-").isdecimal() and int(key) == int(group)):
                    return members
        return None

    def members(self, group: str) -> list[int]:
        """The NPUs of process group ``group``: every file's for the default group ("" or "0", Workload.cc:597),
        the group's definition, else the NPUs whose files name it."""
        if group in ("", "0"):
            return sorted(self.ranks)
        if (defined := self.defined(group)) is not None:
            return sorted(npu for npu in defined if npu in self.ranks)
        return sorted(rank for rank, summary in self.ranks.items() if any(found.group == group for found in summary.collectives))


def read_comm_groups(path: Path) -> CommGroups:
    """A comm_group.json as ASTRA-sim reads it: its keys through ``std::stoi``, its values lists of NPU ids."""
    shown = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        return CommGroups(shown, {}, f"cannot be read: {error}")
    try:
        document = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as error:
        return CommGroups(shown, {}, f"is no JSON: {error}")
    if not isinstance(document, dict):
        return CommGroups(shown, {}, "is no JSON object of group ids")
    groups: dict[str, list[int]] = {}
    for key, value in document.items():
        if not isinstance(value, list) or not all(isinstance(npu, int) and not isinstance(npu, bool) for npu in value):
            return CommGroups(shown, groups, f"gives group {key!r} {json.dumps(value)[:80]}, not a list of NPU ids")
        groups[key] = value
    return CommGroups(shown, groups)


def find_comm_groups(directory: Path, stem: str, given: Path | None) -> CommGroups | None:
    """The run's comm_group.json: the one given, else ``comm_group.json`` or ``<stem>json`` beside the files."""
    if given is not None:
        return read_comm_groups(given)
    for name in (*COMM_GROUP_NAMES, f"{stem}json"):
        candidate = directory / name
        if candidate.is_file():
            return read_comm_groups(candidate)
    return None


def assemble(
    label: str, directory: Path, stem: str, files: list[tuple[ChakraSummary, int]], asked: frozenset[str], comm_group: Path | None
) -> ChakraRun | None:
    """The run of these (summary, NPU named by the file) pairs, or None for fewer than two files."""
    ranks: dict[int, ChakraSummary] = {}
    duplicates: list[ChakraSummary] = []
    for summary, named in sorted(files, key=lambda pair: pair[0].path):
        rank = summary.rank if summary.rank is not None else named
        summary.rank = rank
        if rank in ranks:
            duplicates.append(summary)
        else:
            ranks[rank] = summary
    if len(ranks) < 2:
        return None
    return ChakraRun(label, ranks, duplicates, asked, find_comm_groups(directory, stem, comm_group))
