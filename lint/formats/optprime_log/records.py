"""Records of an ``optprime-log`` (docs/formats/optprime-log.md); the per-log summary built from them is
:mod:`lint.formats.optprime_log.summary`.

One record per record kind of ``grammars/optprime-log.lark``; several records can share a physical line,
so ``column`` is where the record starts within it.  ``rank`` is the rank the record belongs to: read from
the record where it says so, from a ``[rankN]:`` prefix earlier on the line, or attributed by the parser
where the writer's structure implies it (``layer[...]`` to its timing header, ``special_nodes`` to its
cross-reference header, failure fields to the failure's ``rank :`` line).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, make_dataclass
from typing import Annotated, Any, ClassVar

from pydantic import PlainSerializer

from lint.models.common import LineRecord

# loss and ppl of a failed run are nan or inf: JSON has no such numbers, so they travel as "nan"/"inf".
Reading = Annotated[float, PlainSerializer(lambda v: v if math.isfinite(v) else str(v), return_type=float | str, when_used="json")]

# The printed label of a setting -> the setting it gives, whichever writer printed it.
SETTINGS: dict[str, str] = {
    "> World size: ": "world_size",
    "> World Size: ": "world_size",
    "total process count: ": "world_size",
    "> GAS: ": "gas",
    "num of mbatch: ": "gas",
    "micro batch size: ": "gas",  # eungyeonglee-dev/aicomp demo/pp_train_gpt2.py: the num_mb it passes to Optimus_p
    "> GBS: ": "gbs",
    "batch size: ": "gbs",
    "> MBS: ": "mbs",
    "> TP: ": "tp",
    "> Tensor Parallel Size: ": "tp",
    ">>>> self.tpl.tp_mesh.size(): ": "tp",
    "> DP: ": "dp",
    "> Data Parallel Size: ": "dp",
    "> PP: ": "pp",
    "> Pipeline Parallel Size: ": "pp",
    "> Total parameters in model: ": "parameters",
    "Total parameters in model: ": "parameters",
    "> IR: ": "ir",
    ">> ir_analyze: ": "ir",
    ">> model class name: ": "model_class",
    ">> split method: ": "split_method",
    "Available GPUs per server: ": "gpus_per_server",
    "data_size=": "data_size",
    "nbatches=": "nbatches",
}


def layer_position(layer: str) -> float:
    """Where a timing group is printed: embed first, numeric layers ascending, lm_head last."""
    if layer == "embed":
        return -math.inf
    if layer == "lm_head":
        return math.inf
    return int(layer)


@dataclass(slots=True)
class Record(LineRecord):
    """What every record has: where it starts (1-based line and column) and the rank it belongs to."""

    kind: ClassVar[str]
    line: int
    column: int
    rank: int | None = field(default=None, kw_only=True)


def _marker(kind: str, doc: str) -> type[Record]:
    """The record of a line kind that carries nothing but where it is (and its rank)."""
    name = "".join(word.title() for word in kind.split("_")) + "Record"
    return make_dataclass(name, [], bases=(Record,), slots=True, namespace={"kind": kind, "__doc__": doc, "__module__": __name__})


# -- process prefixes ---------------------------------------------------------------------------


@dataclass(slots=True)
class RankPrefixRecord(Record):
    """``[rank3]:`` (``spaced``: followed by a space, as before Python's own lines)."""

    kind: ClassVar[str] = "rank_prefix"
    spaced: bool


@dataclass(slots=True)
class TeePrefixRecord(Record):
    """``[default0]:``: torchrun ``--tee`` tags a worker's lines with its role and local rank."""

    kind: ClassVar[str] = "tee_prefix"
    role: str
    local_rank: int


@dataclass(slots=True)
class LogRecord(Record):
    """A log header; ``message`` is the text after it, None where that text is a record of its own, the next
    one on the line (``failed (exitcode: …)``, ``Sending process … closing signal …``)."""

    level: str
    message: str | None = field(default=None, kw_only=True)


@dataclass(slots=True)
class SourceLogRecord(LogRecord):
    """A log header naming when and which source line logged."""

    time: str
    source: str
    source_line: int


@dataclass(slots=True)
class TorchLogRecord(SourceLogRecord):
    """PyTorch's Python logging: ``W1224 10:59:12.284000 96784 site-packages/torch/distributed/run.py:793] …``."""

    kind: ClassVar[str] = "torch_log"
    pid: int


@dataclass(slots=True)
class C10LogRecord(SourceLogRecord):
    """c10 (C++) logging: ``[W1224 10:59:21.368045924 ProcessGroupNCCL.cpp:4115] …``."""

    kind: ClassVar[str] = "c10_log"


@dataclass(slots=True)
class PythonLogRecord(LogRecord):
    """Python's default logging layout: ``WARNING:torch.distributed.run:…``."""

    kind: ClassVar[str] = "python_log"
    logger: str


@dataclass(slots=True)
class PythonWarningRecord(Record):
    """Python's warnings: ``/venv/…/dataloader.py:431: UserWarning: …`` (``message``: the text after the header)."""

    kind: ClassVar[str] = "python_warning"
    path: str
    source_line: int
    category: str
    message: str | None = field(default=None, kw_only=True)


# -- configuration and set-up ---------------------------------------------------------------------


@dataclass(slots=True)
class EnvCheckRecord(Record):
    """``[rank:0] torch version 2.3.1 or higher --> OK``."""

    kind: ClassVar[str] = "env_check"
    package: str
    version: str
    status: str


@dataclass(slots=True)
class ConfigRecord(Record):
    """A setting as printed, ``label`` with its separator: ``> GAS: 32``, ``data_size=10334``."""

    kind: ClassVar[str] = "config"
    label: str
    value: int | str

    @property
    def setting(self) -> str:
        return SETTINGS[self.label]


@dataclass(slots=True)
class DeviceModeRecord(Record):
    """``GPU mode is used.`` / ``CPU mode is used.``."""

    kind: ClassVar[str] = "device_mode"
    device: str


@dataclass(slots=True)
class DeviceUseRecord(Record):
    """``>>> Using GPU ... cuda:3`` (``device_index`` 3) or ``>>> Using CPU ...`` (None)."""

    kind: ClassVar[str] = "device_use"
    device_index: int | None


@dataclass(slots=True)
class DeviceMesh:
    """One process group's ``DeviceMesh`` repr, in the ``style`` of the torch version that printed it.

    ``legacy_list`` (torch 2.0-2.2): ranks; ``list`` (2.3): ranks and dim names; ``device_list`` (2.4-2.7): device, ranks, dim names;
    ``shape`` (2.8+): dim names and sizes, device, stride, ranks only in debug mode.  ``ranks`` is
    flattened (an n-d mesh prints nested lists); a size or stride of the CuTe layout (2.10+) may be a
    nested tuple, kept as printed.
    """

    name: str
    style: str
    device: str | None = None
    ranks: tuple[int, ...] | None = None
    dim_names: tuple[str, ...] | None = None
    sizes: tuple[Any, ...] | None = None
    stride: tuple[Any, ...] | None = None

    @property
    def size(self) -> int:
        return len(self.ranks) if self.ranks is not None else math.prod(_flatten(self.sizes or ()))


def _flatten(value: Any) -> list[int]:
    """The ints of a nested tuple or list, in order."""
    if isinstance(value, int):
        return [value]
    return [item for part in value for item in _flatten(part)]


def flat_ints(value: Any) -> tuple[int, ...]:
    return tuple(_flatten(value))


@dataclass(slots=True)
class ProcessGroupsRecord(Record):
    """``> [rank:1] pp group:DeviceMesh(...), tp group:DeviceMesh(...), dp group:DeviceMesh(...)``."""

    kind: ClassVar[str] = "process_groups"
    groups: list[DeviceMesh]


@dataclass(slots=True)
class TpAdjustRecord(Record):
    """``> TP adjust view (HFTracer) …``: ``detail`` is the text after ``> TP adjust view``."""

    kind: ClassVar[str] = "tp_adjust"
    detail: str | None


@dataclass(slots=True)
class TpHeadAdjustRecord(Record):
    """eungyeonglee-dev/aicomp's TP set-up: ``>model_layers_14_self_attn_q_proj ==> node.args[3]:32``.

    ``marker`` tells the projection and whether the head count is before (``>``, ``>>``, ``>>>``) or
    after (``> >``, ``>> >> ``, ``>>> >>>``) the division by the TP size.
    """

    kind: ClassVar[str] = "tp_head_adjust"
    marker: str
    layer_id: int
    projection: str
    arrow: str
    heads: int

    @property
    def adjusted(self) -> bool:
        return " " in self.marker


@dataclass(slots=True)
class SplitPlanRecord(Record):
    """llama-tp-split's plan, as printed: ``label`` with its separator (`` num_stage: ``, `` stage_layers = ``),
    ``value`` the text after it (``2``, ``[[0, 1, 2], [3, 4, 5]]``)."""

    kind: ClassVar[str] = "split_plan"
    label: str
    value: str


@dataclass(slots=True)
class Stage2RankRecord(Record):
    """``stage2rank = {0: [0], 1: [1], …}``."""

    kind: ClassVar[str] = "stage2rank"
    stages: dict[int, tuple[int, ...]]


# -- model split ----------------------------------------------------------------------------------


@dataclass(slots=True)
class ModeBannerRecord(Record):
    """``SEQUENTIAL mode >> [rank:0, local_world_size:8]``."""

    kind: ClassVar[str] = "mode_banner"
    mode: str
    local_world_size: int


@dataclass(slots=True)
class ModeProcessingRecord(Record):
    """``[rank:0, local_rank:0] SEQUENTIAL MODE PROCESSING ...``."""

    kind: ClassVar[str] = "mode_processing"
    local_rank: int
    mode: str


@dataclass(slots=True)
class SplitStatsRecord(Record):
    """``length:1618, modcnt:130, num_stage:8, segment:16``."""

    kind: ClassVar[str] = "split_stats"
    length: int
    modcnt: int
    num_stage: int
    segment: int


@dataclass(slots=True)
class MetadataRangeRecord(Record):
    """Split points, stage -> module: the ``first``/``second`` ranges, or the ``placement`` one (`` # rank = R``)."""

    kind: ClassVar[str] = "metadata_range"
    listing: str
    ranges: tuple[tuple[int, str], ...]


@dataclass(slots=True)
class PartitionerRangesRecord(Record):
    """``[IR.hierarchical_split] metadata_range = [(0, 'model_layers_3_mlp'), …]``: the split points the MILP or
    hierarchical partitioner chose (``post_split``: ``post-split metadata_range``, the stage modules)."""

    kind: ClassVar[str] = "partitioner_ranges"
    partitioner: str
    post_split: bool
    ranges: tuple[tuple[int, str], ...]


@dataclass(slots=True)
class FxGraphHeaderRecord(Record):
    """``>> ------------------ FX graph ----…`` (``split``: the newer ``FX graph (split)``)."""

    kind: ClassVar[str] = "fx_graph_header"
    split: bool


@dataclass(slots=True)
class FxNodeRecord(Record):
    """A node of the split FX graph: ``n.op:…`` (``listing`` graph) or ``-- node.op:…`` (placement)."""

    kind: ClassVar[str] = "fx_node"
    listing: str
    op: str
    name: str
    target: str
    args: str
    input_nodes: tuple[str, ...]


@dataclass(slots=True)
class SplitSummaryRecord(Record):
    """``>> Split graph summary: 2 call_module, 4 call_function, 0 get_attr``."""

    kind: ClassVar[str] = "split_summary"
    call_module: int
    call_function: int
    get_attr: int


@dataclass(slots=True)
class SplitWarningRecord(Record):
    """``>> WARNING: …`` about the split graph."""

    kind: ClassVar[str] = "split_warning"
    message: str


GetitemTableHeaderRecord = _marker("getitem_table_header", "`` ========= getitem_dic =========``.")


@dataclass(slots=True)
class GetitemEntryRecord(Record):
    """`` --- key:getitem_3, values:('submod_0', 3)``: output 3 of module submod_0."""

    kind: ClassVar[str] = "getitem_entry"
    key: str
    module: str
    index: int


@dataclass(slots=True)
class StageWiringRecord(Record):
    """`` ***** stage:7 >>  from_:getitem_21, to_:submod_7``."""

    kind: ClassVar[str] = "stage_wiring"
    stage: int
    source: str
    target: str


@dataclass(slots=True)
class ModulePlacementRecord(Record):
    """`` ### Rank:0, name:submod_0, move submod_0 to cuda:0`` (``device_index`` None: ``to cpu``)."""

    kind: ClassVar[str] = "module_placement"
    module: str
    moved_module: str
    device_index: int | None


CleanModuleMemoryRecord = _marker("clean_module_memory", "`` ### Rank:0, clean_module_memory ...``.")
CrossRefHeaderRecord = _marker("cross_ref_header", "`` *********** rank:6 cross-referenced nodes *****************``.")


@dataclass(slots=True)
class SpecialNodesRecord(Record):
    """``   special_nodes: {'getitem_3': (1, 7), …}``: node -> (producer stage, consumer stage)."""

    kind: ClassVar[str] = "special_nodes"
    nodes: dict[str, tuple[int, int]]


@dataclass(slots=True)
class SeparatorRecord(Record):
    """A decorative run of ``-``, ``*`` or ``=``."""

    kind: ClassVar[str] = "separator"
    text: str


# -- training -------------------------------------------------------------------------------------


@dataclass(slots=True)
class TimingHeaderRecord(Record):
    """``[rank:7 stage:7] transformer-block(module) forward time (no send/recv) - step 1``."""

    kind: ClassVar[str] = "timing_header"
    stage: int
    step: int
    rank: int = field(kw_only=True)  # the header prints it: a block of timings always belongs to a rank


@dataclass(slots=True)
class LayerTimingRecord(Record):
    """``  layer[13]: total=114.492ms, ops=32, avg/op=3.578ms``; ``rank`` and ``step`` are its header's."""

    kind: ClassVar[str] = "layer_timing"
    layer: str
    total_ms: float
    ops: int
    avg_ms: float
    step: int | None = field(default=None, kw_only=True)


@dataclass(slots=True)
class EpochProgressRecord(Record):
    """``| epoch   1 |     1/  323 batches | lr 0.00 | ms/batch 7289.55 | loss 21.49 | ppl 2152814925.50``.

    A script that prints ``elapsed`` (seconds since its previous progress line) instead of ``ms/batch`` leaves
    ``ms_per_batch`` None and fills ``elapsed_s``."""

    kind: ClassVar[str] = "epoch_progress"
    epoch: int
    batch: int
    batches: int
    lr: Reading
    ms_per_batch: Reading | None
    loss: Reading
    ppl: Reading
    elapsed_s: Reading | None = None

    @property
    def finite(self) -> bool:
        return math.isfinite(self.loss) and math.isfinite(self.ppl)


RunCompletedRecord = _marker("run_completed", "``[rank:7, run completed ...``.")


@dataclass(slots=True)
class TimeElapsedRecord(Record):
    """``Time elapsed: 37.576 sec ``."""

    kind: ClassVar[str] = "time_elapsed"
    seconds: float


RankNoticeRecord = _marker("rank_notice", "`` rank=0 ...``.")
BarrierRecord = _marker("barrier", "``[rank:0 >> barrier ...``.")
RankBannerRecord = _marker("rank_banner", "`` >> rank:0 ----------------``.")


@dataclass(slots=True)
class LastLayerRecord(Record):
    """``rank: 0, #### last layer id:7``."""

    kind: ClassVar[str] = "last_layer"
    layer_id: int


# -- failure --------------------------------------------------------------------------------------


@dataclass(slots=True)
class TracebackFrameRecord(Record):
    """``  File "/x/driver.py", line 233, in train``: a frame of a traceback (``function`` None: a SyntaxError's)."""

    kind: ClassVar[str] = "traceback_frame"
    path: str
    source_line: int
    function: str | None

    @property
    def in_library(self) -> bool:
        """A frame of an installed package or of Python itself, not of the training script or opt_prime."""
        return any(part in self.path for part in ("site-packages", "dist-packages", "/lib/python")) or self.path.startswith("<")


@dataclass(slots=True)
class ExceptionIgnoredRecord(Record):
    """``Exception ignored in: <function …>``: the traceback that follows did not stop the program."""

    kind: ClassVar[str] = "exception_ignored"
    ignored_in: str


TracebackRecord = _marker("traceback", "``Traceback (most recent call last):`` of a worker (``rank`` from ``[rankN]: ``) or of torchrun.")


@dataclass(slots=True)
class ExceptionRecord(Record):
    """The line that ends a traceback: ``RuntimeError: …`` (``message`` None: the name alone)."""

    kind: ClassVar[str] = "exception"
    name: str
    message: str | None

    @property
    def child_failed(self) -> bool:
        return self.name.rsplit(".", 1)[-1] == "ChildFailedError"


@dataclass(slots=True)
class ChildFailedRecord(Record):
    """torchrun: ``failed (exitcode: 1) local_rank: 0 (pid: 96790) of binary: /usr/bin/python3``."""

    kind: ClassVar[str] = "child_failed"
    exitcode: int
    local_rank: int
    pid: int
    binary: str


@dataclass(slots=True)
class ClosingSignalRecord(Record):
    """torchrun: ``Sending process 96790 closing signal SIGTERM``."""

    kind: ClassVar[str] = "closing_signal"
    pid: int
    signal: str


@dataclass(slots=True)
class DeathSignalRecord(Record):
    """torchrun: ``Received Signals.SIGTERM death signal, shutting down workers`` (``signal`` as printed)."""

    kind: ClassVar[str] = "death_signal"
    signal: str


@dataclass(slots=True)
class UsageErrorRecord(Record):
    """argparse's ``driver.py: error: argument --mode: invalid choice: …`` (ArgumentParser.error, then exit code 2)."""

    kind: ClassVar[str] = "usage_error"
    program: str
    message: str


@dataclass(slots=True)
class FailureTitleRecord(Record):
    """``run.py FAILED``: the title of torchrun's failure report."""

    kind: ClassVar[str] = "failure_title"
    script: str


@dataclass(slots=True)
class FailureSectionRecord(Record):
    """``Failures:`` or (``root_cause``) ``Root Cause (first observed failure):``."""

    kind: ClassVar[str] = "failure_section"
    root_cause: bool


NoOtherFailuresRecord = _marker("no_other_failures", "``  <NO_OTHER_FAILURES>``.")


@dataclass(slots=True)
class FailureIndexRecord(Record):
    """``[1]:``: a failure of the report starts."""

    kind: ClassVar[str] = "failure_index"
    index: int


@dataclass(slots=True)
class FailureRankRecord(Record):
    """``  rank      : 1 (local_rank: 1)``."""

    kind: ClassVar[str] = "failure_rank"
    local_rank: int


@dataclass(slots=True)
class FailureExitcodeRecord(Record):
    """``  exitcode  : -15 (pid: 96790)`` (torch >= 2.5: ``  exitcode  : -15 (pid: 96790)  (SIGTERM)``)."""

    kind: ClassVar[str] = "failure_exitcode"
    exitcode: int
    pid: int
    exit_signal: str | None = None


@dataclass(slots=True)
class FailureSignalRecord(Record):
    """``  traceback : Signal 15 (SIGTERM) received by PID 96790``."""

    kind: ClassVar[str] = "failure_signal"
    signal_number: int
    signal: str
    pid: int


@dataclass(slots=True)
class FailureFieldRecord(Record):
    """Another field of a failure: ``time``, ``host``, ``error_file`` or a ``traceback`` that is no signal."""

    kind: ClassVar[str] = "failure_field"
    key: str
    value: str | None


@dataclass(slots=True)
class OtherRecord(Record):
    """Text of no known kind: a foreign line, or the rest of a line after a process prefix."""

    kind: ClassVar[str] = "other"
    text: str


RECORD_TYPES: tuple[type[Record], ...] = (
    RankPrefixRecord,
    TeePrefixRecord,
    TpHeadAdjustRecord,
    TorchLogRecord,
    C10LogRecord,
    PythonLogRecord,
    PythonWarningRecord,
    EnvCheckRecord,
    ConfigRecord,
    DeviceModeRecord,
    DeviceUseRecord,
    ProcessGroupsRecord,
    TpAdjustRecord,
    SplitPlanRecord,
    Stage2RankRecord,
    ModeBannerRecord,
    ModeProcessingRecord,
    SplitStatsRecord,
    MetadataRangeRecord,
    PartitionerRangesRecord,
    FxGraphHeaderRecord,
    FxNodeRecord,
    SplitSummaryRecord,
    SplitWarningRecord,
    GetitemTableHeaderRecord,
    GetitemEntryRecord,
    StageWiringRecord,
    ModulePlacementRecord,
    CleanModuleMemoryRecord,
    CrossRefHeaderRecord,
    SpecialNodesRecord,
    SeparatorRecord,
    TimingHeaderRecord,
    LayerTimingRecord,
    EpochProgressRecord,
    RunCompletedRecord,
    TimeElapsedRecord,
    RankNoticeRecord,
    BarrierRecord,
    RankBannerRecord,
    LastLayerRecord,
    TracebackRecord,
    TracebackFrameRecord,
    ExceptionIgnoredRecord,
    ExceptionRecord,
    ChildFailedRecord,
    ClosingSignalRecord,
    DeathSignalRecord,
    UsageErrorRecord,
    FailureTitleRecord,
    FailureSectionRecord,
    NoOtherFailuresRecord,
    FailureIndexRecord,
    FailureRankRecord,
    FailureExitcodeRecord,
    FailureSignalRecord,
    FailureFieldRecord,
    OtherRecord,
)


# The record kinds that are signs of failure -> what each says.
FAILURE_MESSAGES: dict[str, Callable[[Any], str]] = {
    "traceback": lambda r: "Traceback (most recent call last)",
    "exception": lambda r: r.name if r.message is None else f"{r.name}: {r.message}",
    "child_failed": lambda r: f"failed with exitcode {r.exitcode} on local rank {r.local_rank} (pid {r.pid})",
    "closing_signal": lambda r: f"torchrun sent {r.signal} to pid {r.pid}",
    "death_signal": lambda r: f"torchrun received signal {r.signal}",
    "usage_error": lambda r: f"{r.program}: error: {r.message}",
    "failure_title": lambda r: f"{r.script} FAILED",
    "failure_exitcode": lambda r: f"exitcode {r.exitcode} (pid {r.pid})",
    "failure_signal": lambda r: f"signal {r.signal_number} ({r.signal}) received by pid {r.pid}",
}
