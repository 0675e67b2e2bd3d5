"""A Chakra run: the files ``PREFIX.<npu>.et`` of one folder, one per NPU, and what its run rules compare.

ASTRA-sim 2.0 opens ``PREFIX.<id>.et`` for every NPU of the network (``astra-sim/workload/Workload.cc:29``)
and pairs the collectives of a process group across NPUs by the order each NPU issues them; sends and
receives meet on (tag, source, destination, size).  While a file is read its nodes are reduced to a
:class:`RankSummary`; the summaries of a folder's files are assembled into a :class:`Run`, with the
process groups of its ``comm_group.json`` (``--comm-group FILE``, else ``comm_group.json`` or
``PREFIX.json`` beside the files, as astra-sim/symbolic_tensor_graph writes it).
"""

from __future__ import annotations

import json
from collections import Counter
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, Self

from pydantic import Field

from lint.formats.chakra_et.records import HeadRecord, NodeRecord
from lint.formats.chakra_et.schema import BROADCAST, COMM_COLL_NODE, COMM_RECV_NODE, COMM_SEND_NODE, COMP_NODE, METADATA_NODE
from lint.models.errors import InputError
from lint.runs import model as runs
from lint.store.files import open_regular

if TYPE_CHECKING:
    from lint.runs.discovery import RunKey

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


class RankSummary(runs.RankSummary):
    """What the run rules and `tlint diff` know of one NPU's file (its rank is the file name's NPU)."""

    collectives: tuple[Collective, ...] = ()
    sends: tuple[PointToPoint, ...] = ()
    recvs: tuple[PointToPoint, ...] = ()
    node_types: dict[int, int] = Field(default_factory=dict)
    comm_bytes: dict[tuple[str, int | None], int] = Field(default_factory=dict)  # (group, comm_type), or ("p2p", node type) -> bytes
    compute_micros: int = 0
    rejected: int = 0  # sends and receives ASTRA-sim throws at (TL611): the run's matching waits until they are fixed
    process_groups: dict[str, list[int]] = Field(default_factory=dict)  # defined by a METADATA_NODE ([] = every NPU)
    stated_schema: str | None = None

    def packed(self) -> list[Any]:
        """The summary as JSON values, for the cache; not its path, so that a moved file keeps its entry."""
        return [
            self.rank,
            [list(found) for found in self.collectives],
            [list(found) for found in self.sends],
            [list(found) for found in self.recvs],
            sorted(self.node_types.items()),
            [[group, comm_type, count] for (group, comm_type), count in sorted(self.comm_bytes.items(), key=repr)],
            self.compute_micros,
            self.rejected,
            self.process_groups,
            self.stated_schema,
        ]

    @classmethod
    def unpacked(cls, path: str, packed: list[Any]) -> RankSummary:
        """The inverse of :meth:`packed`, trusting what tlint wrote itself."""
        rank, collectives, sends, recvs, node_types, comm_bytes, compute, rejected, groups, schema = packed
        return cls.model_construct(
            path=path,
            rank=rank,
            stage=None,
            line_of_rank=1,
            collectives=tuple(Collective(*found) for found in collectives),
            sends=tuple(PointToPoint(*found) for found in sends),
            recvs=tuple(PointToPoint(*found) for found in recvs),
            node_types={int(kind): count for kind, count in node_types},
            comm_bytes={(group, comm_type): count for group, comm_type, count in comm_bytes},
            compute_micros=compute,
            rejected=rejected,
            process_groups=groups,
            stated_schema=schema,
        )


def summaries_shared() -> AbstractContextManager[None]:
    """Chakra summaries share nothing between ranks: the scope the engine opens for them is empty."""
    return nullcontext()


class Summarizer:
    """Builds a file's :class:`RankSummary` from its records as they stream past (see the engine's ``check_file``);
    ``timed`` is the megatron summary's notion: a Chakra summary keeps its compute time either way."""

    def __init__(self, path: str, *, timed: bool = True) -> None:
        self.path = path
        self.rank: int | None = None
        self.schema: str | None = None
        self.collectives: list[Collective] = []
        self.sends: list[PointToPoint] = []
        self.recvs: list[PointToPoint] = []
        self.node_types: Counter[int] = Counter()
        self.comm_bytes: Counter[tuple[str, int | None]] = Counter()
        self.compute_micros = 0
        self.rejected = 0
        self.process_groups: dict[str, list[int]] = {}

    def check_head(self, head: HeadRecord) -> None:
        self.rank = head.rank
        self.schema = head.stated_schema

    def check_node(self, node: NodeRecord) -> None:
        self.node_types[node.type] += 1
        if node.type == METADATA_NODE:
            self.process_groups.update(_process_groups(node.inputs_values))
        elif node.type == COMP_NODE:
            self.compute_micros += node.duration
        elif node.type == COMM_COLL_NODE:
            group = node.attrs.get("pg_name")
            name = group.value if group is not None and isinstance(group.value, str) else ""
            comm_type = node.integer("comm_type")
            size = node.integer("comm_size")
            self.collectives.append(Collective(name, comm_type, size, node.line))
            if comm_type != BROADCAST:
                self.comm_bytes[(name, comm_type)] += size or 0
        elif node.type in (COMM_SEND_NODE, COMM_RECV_NODE):
            send = node.type == COMM_SEND_NODE
            # The own end defaults to the file's NPU (Workload.cc:395, 422).
            src = node.integer("comm_src") if not send or "comm_src" in node.attrs else node.rank
            dst = node.integer("comm_dst") if send or "comm_dst" in node.attrs else node.rank
            if (src if send else dst) != node.rank or None in (src, dst, node.integer("comm_tag"), node.integer("comm_size")):
                self.rejected += 1  # ASTRA-sim throws at the node itself (TL611)
                return
            found = PointToPoint(node.integer("comm_tag"), src, dst, node.integer("comm_size"), node.line)
            (self.sends if send else self.recvs).append(found)
            self.comm_bytes[("p2p", node.type)] += found.size or 0

    def result(self) -> RankSummary:
        return RankSummary(
            path=self.path,
            rank=self.rank,
            stage=None,
            line_of_rank=1,
            collectives=tuple(self.collectives),
            sends=tuple(self.sends),
            recvs=tuple(self.recvs),
            node_types=dict(self.node_types),
            comm_bytes=dict(self.comm_bytes),
            compute_micros=self.compute_micros,
            rejected=self.rejected,
            process_groups=self.process_groups,
            stated_schema=self.schema,
        )


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


class Run(runs.Run[RankSummary]):
    """The files of one Chakra run, by NPU, with the run's process groups (``completed`` finds its comm_group.json)."""

    comm_groups: CommGroups | None = None
    part: ClassVar[str] = "NPU"

    def completed(self, key: RunKey, sources: runs.RunSources) -> Self:
        return self.model_copy(update={"comm_groups": find_comm_groups(Path(key.directory), key.stem, sources.comm_group)})

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
                if key == group or (numeric(key) and numeric(group) and int(key) == int(group)):
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


def numeric(name: str) -> bool:
    """Whether ``std::stoi`` reads the whole name as a number (it would read "12abc" as 12: a writer's mistake all the same)."""
    return name.strip().lstrip("+-").isdecimal()


def read_comm_groups(path: Path) -> CommGroups:
    """A comm_group.json as ASTRA-sim reads it: its keys through ``std::stoi``, its values lists of NPU ids."""
    shown = str(path)
    try:
        with open_regular(path, shown) as stream:  # a FIFO or a device given as --comm-group is refused, not waited for
            text = stream.read().decode("utf-8")
    except InputError as error:
        return CommGroups(shown, {}, f"cannot be read: {str(error).removeprefix(f'{shown}: ')}")
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
