"""Records of a ``simai-workload`` file (docs/formats/simai-workload.md), and the whole workload as one document."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import ClassVar

from lint.models.common import new_alike

KINDS = frozenset(
    {
        "DATA",
        "HYBRID_TRANSFORMER",
        "HYBRID_TRANSFORMER_FWD_IN_BCKWD",
        "HYBRID_DLRM",
        "HYBRID_DLRM_ENHANCED",
        "MODEL",
        "HYBRID_DATA_MODEL",
        "HYBRID_MODEL_DATA",
        "HYBRID_CUSTOMIZED",
        "MICRO",
        "DISTRIBUTED_INFERENCE",
    }
)
# Kinds that only a variant of ASTRA-sim 1.0 decodes (its own `Workload::decode_parallelsim`), with that
# variant; their rows are the 12 columns of every other kind.  A file of such a kind is read by the
# simulator it was written for, so it is not an unknown kind.
VARIANT_KINDS: dict[str, str] = {
    # astra-sim/tutorials asplos2022, isca2022 and mlsys2022 exercise_4/astra-sim/workload/Workload.cc:
    # data parallelism with its collectives reordered (`iterate_data_parallel_reorder`).
    "DATA_REORDER": "the ASTRA-sim bundled with astra-sim/tutorials exercise 4",
    # Yassawe/astra-sim-csnl astra-sim/workload/Workload.cc: data parallelism without, or with only
    # forward, compute-communication overlap.
    "DATA_NO_OVERLAP": "the ASTRA-sim fork Yassawe/astra-sim-csnl",
    "DATA_FORWARD_OVERLAP": "the ASTRA-sim fork Yassawe/astra-sim-csnl",
}
# The kind whose rows carry a 13th column: each layer's own parallelism.
CUSTOMIZED = "HYBRID_CUSTOMIZED"

# Header key (as written, without its colon) -> Header field.
SETTING_FIELDS: dict[str, str] = {
    "model_parallel_NPU_group": "tp",
    "ep": "ep",
    "pp": "pp",
    "vpp": "vpp",
    "ga": "ga",
    "all_gpus": "all_gpus",
    "pp_comm": "pp_comm",
    "DLRM_LAST_BOTTOM_LAYER": "dlrm_last_bottom_layer",
}
# The header keys only AICB and SimAI write: ASTRA-sim 1.0 reads the header by position, and knows of
# model_parallel_NPU_group, checkpoints and checkpoint_initiates alone (its `Workload::initialize_workload`).
SIMAI_ONLY_KEYS = frozenset({"ep", "pp", "vpp", "ga", "all_gpus", "pp_comm", "mode", "DLRM_LAST_BOTTOM_LAYER"})
# Header field -> key as written.
SETTING_KEYS = {field_name: key for key, field_name in SETTING_FIELDS.items()}
CHECKPOINT_KEYS = ("checkpoints", "checkpoint_initiates")

# Collective families, longest first: ASTRA-sim 1.0's ALLREDUCEALLTOALL starts with ALLREDUCE.
COMM_FAMILIES = ("ALLREDUCEALLTOALL", "ALLREDUCE", "ALLGATHER", "REDUCESCATTER", "ALLTOALL")
# The suffixes SimAI gives a group: none (TP for fwd/ig, DP for wg), _EP and _DP_EP; any other means no group.
GROUP_SUFFIXES = ("", "_EP", "_DP_EP")
EXPERT_SUFFIXES = ("_EP", "_DP_EP")
# The three comm columns of a row, by the prefix of their column names.
PHASES = ("fwd", "ig", "wg")

# The kind and keys of every header AICB's SimAI generators write (aliyun/aicb
# workload_generator/SimAI_training_workload_generator.py and SimAI_inference_workload_generator.py,
# SIMAI_workload.dump_file): the kind, model_parallel_NPU_group first, then some of these keys, and
# always `checkpoints: 0 checkpoint_initiates: 0` (AICB never checkpoints a layer).
AICB_KIND = "HYBRID_TRANSFORMER_FWD_IN_BCKWD"
AICB_KEYS = frozenset({"model_parallel_NPU_group", "ep", "pp", "vpp", "ga", "all_gpus", "mode", "checkpoints", "checkpoint_initiates", "pp_comm"})

# Header values keep the form they were written in: `pp_comm: 2621440.0` stays a float.
HeaderNumber = int | float


@dataclass(slots=True)
class Header:
    """Line 1: the workload's parallelism kind and the settings SimAI or ASTRA-sim 1.0 read from it.

    A key that is absent is None.  A key written twice keeps its last value (SimAI overwrites);
    ``key_order`` lists every key as written, repeats included.
    """

    kind: ClassVar[str] = "header"
    line: int
    column: int
    parallelism: str
    tp: HeaderNumber | None = None
    ep: HeaderNumber | None = None
    pp: HeaderNumber | None = None
    vpp: HeaderNumber | None = None
    ga: HeaderNumber | None = None
    all_gpus: HeaderNumber | None = None
    pp_comm: HeaderNumber | None = None
    pp_comm_colon: bool | None = None  # False for the hand-edited `pp_comm 0`
    checkpoints: tuple[int, ...] | None = None
    checkpoint_initiates: tuple[int, ...] | None = None
    # DLRM kinds: `DLRM_LAST_BOTTOM_LAYER: n` (SimAI) or the integer right after the kind (ASTRA-sim 1.0).
    dlrm_last_bottom_layer: HeaderNumber | None = None
    unknown: dict[str, str] = field(default_factory=dict)
    key_order: tuple[str, ...] = ()
    # Every word of the line after the kind, as written: ASTRA-sim 1.0 reads them by position, not by key.
    words: tuple[str, ...] = field(default=(), compare=False)
    # The line starts with a UTF-8 byte-order mark, which both consumers read as part of the kind.
    byte_order_mark: bool = False

    @property
    def known_kind(self) -> bool:
        """A kind SimAI, ASTRA-sim 1.0 or one of the variants in ``VARIANT_KINDS`` decodes."""
        return self.parallelism in KINDS or self.parallelism in VARIANT_KINDS

    @property
    def from_aicb(self) -> bool:
        """The header is one AICB writes: its kind, ``model_parallel_NPU_group`` first, only AICB's keys,
        and no checkpointed layer.  Checks of what AICB always writes apply only to such files.

        ``pp_comm`` written without its colon still counts: SimAI's own example of AICB output had the key
        added by hand that way, and SimAI reads both forms (``Workload::initialize_workload``)."""
        return (
            self.parallelism == AICB_KIND
            and self.key_order[:1] == ("model_parallel_NPU_group",)
            and set(self.key_order) <= AICB_KEYS
            and self.checkpoints == ()
            and self.checkpoint_initiates == ()
        )

    @property
    def reads_parallel_sizes(self) -> bool:
        """SimAI reads the parallel sizes from the header only for the transformer kinds
        (``Workload::initialize_workload``); for every other kind the keys have no effect."""
        return self.parallelism in ("HYBRID_TRANSFORMER", "HYBRID_TRANSFORMER_FWD_IN_BCKWD")

    def read(self, field_name: str) -> int | None:
        """A setting as SimAI reads it: its conversion to an integer stops at the '.' of `2621440.0`."""
        value = getattr(self, field_name)
        return None if value is None else int(value)


@dataclass(frozen=True, slots=True)
class Comm:
    """One comm column pair of a layer row: ``{phase}_comm_type`` and ``{phase}_comm_size``."""

    phase: str
    type: str
    size: int

    @property
    def family(self) -> str | None:
        """The collective the type names, or None for NONE and BROADCAST, which move nothing."""
        return _family_and_suffix(self.type)[0]

    @property
    def suffix(self) -> str:
        """What follows the family: SimAI picks the collective's group from it."""
        return _family_and_suffix(self.type)[1]

    @property
    def is_tp_collective(self) -> bool:
        """An activation collective of the tensor-parallel group: no suffix on a forward or input-gradient column."""
        return _is_tp_collective(self.phase, self.type)

    def __str__(self) -> str:
        return f"{self.phase}_comm_type {self.type} with {self.phase}_comm_size {self.size}"


@dataclass(slots=True)
class LayerCount:
    """Line 2: the number of layer rows the consumers will read (extra rows are ignored, missing ones break it).

    ``rest``: what follows the number on its line (``57.0``, ``57 layers``), and ``rest_column`` where:
    SimAI converts the line with ``std::stoi``, which ignores it; ASTRA-sim 1.0 reads the number with ``>>``
    and the rest as the first words of the rows.
    """

    kind: ClassVar[str] = "layer_count"
    line: int
    column: int
    count: int
    rest: str = ""
    rest_column: int = 0


@dataclass(slots=True)
class WrappedRow:
    """A layer row written over several lines (``line`` to ``last_line``), which both consumers read as one row:
    they read the rows word by word with ``>>``, which passes over line ends.  Its LayerRow follows it."""

    kind: ClassVar[str] = "wrapped_row"
    line: int
    column: int
    last_line: int
    name: str  # of the layer


@dataclass(slots=True)
class TrailingText:
    """A line after the declared layer rows that is not a layer row (notes, a table of results), or what
    follows the columns of the last declared row (then ``line`` is ``last_read`` and ``column`` where it starts).

    SimAI (``Workload::initialize_workload``) and ASTRA-sim 1.0 read the header, the row count and
    exactly that many rows token by token, then close the file: nothing after them is ever read.
    """

    kind: ClassVar[str] = "trailing_text"
    line: int
    column: int
    text: str
    last_read: int  # the line of the last declared row (the count line when it declares 0)
    declared: int


@dataclass(slots=True)
class LayerRow:
    """One layer: forward, input-gradient and weight-gradient compute and communication.

    Compute times are ns in SimAI (cycles in ASTRA-sim 1.0), comm sizes are bytes.  ``parallelism`` is
    the 13th column of HYBRID_CUSTOMIZED rows; ``extra_columns`` holds the tokens past the expected
    columns of a row reported as too long, which SimAI would misread as the start of the next row.

    ``alike``: see :func:`lint.models.common.new_alike`.
    """

    kind: ClassVar[str] = "layer_row"
    line: int
    column: int
    name: str
    placeholder: int
    fwd_compute: int
    fwd_comm_type: str
    fwd_comm_size: int
    ig_compute: int
    ig_comm_type: str
    ig_comm_size: int
    wg_compute: int
    wg_comm_type: str
    wg_comm_size: int
    wg_update_time: int
    parallelism: str | None = None
    extra_columns: tuple[str, ...] = ()
    alike: int = field(default_factory=new_alike, compare=False, repr=False)  # not dumped (lint.models.dump)

    def comms(self) -> tuple[Comm, ...]:
        """The forward, input-gradient and weight-gradient communication, in column order."""
        return _comms(self.fwd_comm_type, self.fwd_comm_size, self.ig_comm_type, self.ig_comm_size, self.wg_comm_type, self.wg_comm_size)


# Cached: every rule asks each row for its comms, and a workload repeats the same few layers over and
# over.  Bounded, so that a file of endlessly new values cannot grow memory.
@lru_cache(maxsize=4096)
def _comms(fwd_type: str, fwd_size: int, ig_type: str, ig_size: int, wg_type: str, wg_size: int) -> tuple[Comm, ...]:
    return Comm(PHASES[0], fwd_type, fwd_size), Comm(PHASES[1], ig_type, ig_size), Comm(PHASES[2], wg_type, wg_size)


@lru_cache(maxsize=1024)
def _is_tp_collective(phase: str, comm_type: str) -> bool:
    family, suffix = _family_and_suffix(comm_type)
    return phase != "wg" and suffix == "" and family in ("ALLREDUCE", "ALLGATHER", "REDUCESCATTER")


@lru_cache(maxsize=1024)
def _family_and_suffix(comm_type: str) -> tuple[str | None, str]:
    family = next((family for family in COMM_FAMILIES if comm_type.startswith(family)), None)
    return family, comm_type[len(family) :] if family else ""
