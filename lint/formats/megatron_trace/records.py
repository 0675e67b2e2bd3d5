"""Records of a ``megatron-trace`` file (docs/formats/megatron-trace.md)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, overload

if TYPE_CHECKING:  # pydantic validates and dumps records only at the boundary (lint.models.dump)
    from pydantic import GetCoreSchemaHandler
    from pydantic_core import CoreSchema

from lint.models.common import LineRecord, Record

# Bytes per element, as the trace's consumer computes message sizes (with or without "torch.").
DTYPE_SIZES: dict[str, int] = {
    "float64": 8,
    "double": 8,
    "int64": 8,
    "long": 8,
    "uint64": 8,
    "complex64": 8,
    "complex128": 16,
    "float32": 4,
    "float": 4,
    "int32": 4,
    "int": 4,
    "uint32": 4,
    "float16": 2,
    "half": 2,
    "bfloat16": 2,
    "int16": 2,
    "short": 2,
    "uint16": 2,
    "int8": 1,
    "uint8": 1,
    "bool": 1,
    "float8_e4m3fn": 1,
    "float8_e5m2": 1,
    "float8_e4m3fnuz": 1,
    "float8_e5m2fnuz": 1,
}

COMPUTE_OPS = frozenset({"get_batch", "forward_step", "loss_func", "backward_step", "optimizer_step"})
P2P_OPS = frozenset({"recv_forward", "send_forward", "recv_backward", "send_backward"})
# Gradient reductions of the finalize phase: data-parallel, embedding group (``ep``), position-embedding
# group (``pep``), and - in moe_mg - the expert parameters' data-parallel group under either name.
GRADIENT_OPS = frozenset({"dp_allreduce", "ep_allreduce", "pep_allreduce", "ep_dp_allreduce", "exp_dp_allreduce"})
COMM_OPS = P2P_OPS | GRADIENT_OPS | {"tp_allreduce", "tp_load_batch_broadcast", "ddp_grad_comm"}
KNOWN_OPS = COMPUTE_OPS | COMM_OPS
# Steps the 1F1B schedule runs once per micro-batch on a stage (schedules.py): which of them a rank runs
# depends on its stage, but a rank that runs one runs it for every micro-batch.
MICRO_BATCH_STEPS = frozenset({"get_batch", "forward_step", "loss_func", "backward_step"})  # the compute steps
MICRO_BATCH_OPS = P2P_OPS | MICRO_BATCH_STEPS
MG_STATES = frozenset({"warmup", "steady", "cooldown", "help", "finalize"})


# Collective kinds per op, as the writer sets group_kind (compute ops carry none).
GROUP_KIND_OF_OP = {
    "recv_forward": "pp",
    "send_forward": "pp",
    "recv_backward": "pp",
    "send_backward": "pp",
    "dp_allreduce": "dp",
    "ep_allreduce": "ep",
    "pep_allreduce": "pep",
    "ddp_grad_comm": "dp",
    "ep_dp_allreduce": "ep_dp",
    "exp_dp_allreduce": "exp_dp",
}

# A batched p2p call: the writer times the send and copies its timestamp and duration to the receive
# (``cmd_recv.no_trace_update(cmd_send.duration, cmd_send.time_stamp)`` in schedules.py), which it
# writes on the next line.
BATCHED_P2P = {"send_forward": "recv_backward", "send_backward": "recv_forward"}


# Every spelling the trace may use, with and without the "torch." prefix.
_SIZE_OF = {**DTYPE_SIZES, **{f"torch.{name}": size for name, size in DTYPE_SIZES.items()}}
KNOWN_DTYPES = frozenset(_SIZE_OF)


def dtype_size(dtype: str | None) -> int | None:
    """Bytes per element of ``dtype`` ('torch.float32' or 'float32'), None when unknown."""
    return _SIZE_OF.get(dtype) if dtype is not None else None


def tensor_bytes(shape: tuple[int, ...] | None, dtype: str | None) -> int | None:
    """prod(shape) * sizeof(dtype): the message size the consumer derives; None when either is missing."""
    size = dtype_size(dtype)
    if shape is None or size is None:
        return None
    return math.prod(shape) * size


class SubOperation(Record):
    """One traced call inside an op: ``trace_src_func=…,duration=…,timestamp=…[,key=value]…``."""

    __slots__ = ("trace_src_func", "duration", "timestamp", "input__shape", "input__dtype", "func_name", "group", "comm_func", "extra")

    def __init__(
        self,
        trace_src_func: str,
        duration: float,
        timestamp: float,
        input__shape: tuple[int, ...] | None = None,
        input__dtype: str | None = None,
        func_name: str | None = None,
        group: str | None = None,
        comm_func: str | None = None,
        extra: dict[str, str] | None = None,
    ) -> None:
        self.trace_src_func = trace_src_func
        self.duration = duration
        self.timestamp = timestamp
        self.input__shape = input__shape
        self.input__dtype = input__dtype
        self.func_name = func_name
        self.group = group
        self.comm_func = comm_func
        self.extra = extra

    @property
    def nbytes(self) -> int | None:
        return tensor_bytes(self.input__shape, self.input__dtype)

    @property
    def start(self) -> float:
        return self.timestamp - self.duration


class SubCall:
    """What a sub-operation calls, without its timing: the same in every step that runs the same code
    (compared by identity: the parser shares one per distinct call)."""

    __slots__ = ("trace_src_func", "input__shape", "input__dtype", "func_name", "group", "comm_func", "extra")

    def __init__(
        self,
        trace_src_func: str,
        input__shape: tuple[int, ...] | None,
        input__dtype: str | None,
        func_name: str | None,
        group: str | None,
        comm_func: str | None,
        extra: dict[str, str] | None,
    ) -> None:
        self.trace_src_func = trace_src_func
        self.input__shape = input__shape
        self.input__dtype = input__dtype
        self.func_name = func_name
        self.group = group
        self.comm_func = comm_func
        self.extra = extra


class SubOperations(Sequence[SubOperation]):
    """An op's sub-operations, kept as their calls plus two columns of times.

    Steps of one file repeat the same calls with new times, so the parser shares one ``calls`` tuple
    (and one ``derived`` dict) between them: rules that look only at the calls work once per distinct
    list (:func:`per_calls`, which keeps its results in ``derived``) and rules on times compare the
    columns.  Iterating yields full :class:`SubOperation` objects, built on first use.
    """

    __slots__ = ("_built", "calls", "derived", "durations", "timestamps")

    def __init__(
        self,
        calls: tuple[SubCall, ...] = (),
        durations: tuple[float, ...] = (),
        timestamps: tuple[float, ...] = (),
        derived: dict[Callable[[SubOperations], Any], Any] | None = None,
    ) -> None:
        self.calls = calls
        self.durations = durations
        self.timestamps = timestamps
        self.derived = derived  # shared by the lists that make the same calls (None: not shared)
        self._built: list[SubOperation] | None = None

    @classmethod
    def of(cls, subs: Iterable[SubOperation]) -> SubOperations:
        subs = list(subs)
        calls = tuple(SubCall(s.trace_src_func, s.input__shape, s.input__dtype, s.func_name, s.group, s.comm_func, s.extra) for s in subs)
        return cls(calls, tuple(s.duration for s in subs), tuple(s.timestamp for s in subs))

    def _list(self) -> list[SubOperation]:
        if self._built is None:
            self._built = [
                SubOperation(
                    c.trace_src_func, d, t, c.input__shape, c.input__dtype, c.func_name, c.group, c.comm_func, dict(c.extra) if c.extra is not None else None
                )
                for c, d, t in zip(self.calls, self.durations, self.timestamps, strict=True)
            ]
        return self._built

    def __len__(self) -> int:
        return len(self.calls)

    def __bool__(self) -> bool:
        return bool(self.calls)

    def __iter__(self) -> Iterator[SubOperation]:
        return iter(self._list())

    @overload
    def __getitem__(self, index: int) -> SubOperation: ...
    @overload
    def __getitem__(self, index: slice) -> list[SubOperation]: ...
    def __getitem__(self, index: int | slice) -> SubOperation | list[SubOperation]:
        return self._list()[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SubOperations | list):
            return self._list() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        """Validated and dumped as the list of sub-operations it stands for (lint.models.dump)."""
        from pydantic_core import core_schema

        as_list = handler.generate_schema(list[SubOperation])
        return core_schema.no_info_after_validator_function(
            cls.of,
            as_list,
            serialization=core_schema.plain_serializer_function_ser_schema(list, return_schema=as_list),
        )

    def __repr__(self) -> str:
        return repr(self._list())


NO_SUB_OPERATIONS = SubOperations(derived={})

T = TypeVar("T")


def per_calls(compute: Callable[[tuple[SubCall, ...]], T]) -> Callable[[SubOperations], T]:
    """``compute(calls)`` remembered with the calls: a function of what the sub-operations call runs once
    per distinct list, not once per step (the result lives in the list's shared ``derived`` dict, as long
    as the parser remembers that list).  A closure, not an object with ``__call__``: rules call it on
    every record, and calling a function costs less."""

    def derive(subs: SubOperations) -> T:
        derived = subs.derived
        if derived is None:
            return compute(subs.calls)
        found = derived.get(derive, _MISSING)
        if found is _MISSING:
            found = derived[derive] = compute(subs.calls)
        return found  # type: ignore[no-any-return]

    return derive


_MISSING: Any = object()


class OpRecord(LineRecord, Record):
    """One ``rank:R:op(...)`` line in layout V0, V1, V2 or V3, or a ``stage:S:op(...)`` line of a stage-keyed
    scheduling plan (layout SP), which names no rank: ``rank`` is None there.  Its fields come in the order
    of the V1 layout's, which the parser builds positionally."""

    kind: ClassVar[str] = "op"
    __slots__ = (
        "line",
        "column",
        "variant",
        "rank",
        "op",
        "stage_id",
        "batch_id",
        "mg_state",
        "duration",
        "description",
        "group_kind",
        "input__shape",
        "input__dtype",
        "timestamp",
        "sub_operations",
        "cmd_uid",
        "op_semantics",
        "finalize_base_duration_ms",
    )

    def __init__(
        self,
        line: int,
        column: int,
        variant: str,
        rank: int | None,
        op: str,
        stage_id: int,
        batch_id: int | None,
        mg_state: str | None,
        duration: float | None,
        description: str | None,
        group_kind: str | None,
        input__shape: tuple[int, ...] | None = None,
        input__dtype: str | None = None,
        timestamp: float | None = None,
        sub_operations: SubOperations | None = None,
        cmd_uid: str | None = None,
        op_semantics: str | None = None,
        finalize_base_duration_ms: float | None = None,
    ) -> None:
        self.line = line
        self.column = column
        self.variant = variant
        self.rank = rank
        self.op = op
        self.stage_id = stage_id
        self.batch_id = batch_id
        self.mg_state = mg_state
        self.duration = duration
        self.description = description
        self.group_kind = group_kind
        self.input__shape = input__shape
        self.input__dtype = input__dtype
        self.timestamp = timestamp
        self.sub_operations = sub_operations if sub_operations is not None else SubOperations()
        self.cmd_uid = cmd_uid
        self.op_semantics = op_semantics
        self.finalize_base_duration_ms = finalize_base_duration_ms

    @property
    def nbytes(self) -> int | None:
        return tensor_bytes(self.input__shape, self.input__dtype)

    @property
    def is_placeholder(self) -> bool:
        """``timestamp=0`` with ``duration=0`` (simulation output) or a V3 metadata placeholder."""
        return (self.timestamp == 0 and not self.duration) or self.op_semantics == "metadata_placeholder"

    @property
    def start(self) -> float | None:
        if self.timestamp is None or self.duration is None:
            return None
        return self.timestamp - self.duration


class DdpGradCommRecord(LineRecord, Record):
    """A V3 ``rank:R:ddp_grad_comm(...)`` record: one DDP gradient bucket's communication (built by keyword)."""

    kind: ClassVar[str] = "ddp_grad_comm"
    op: ClassVar[str] = "ddp_grad_comm"
    variant: ClassVar[str] = "V3"
    __slots__ = (
        "line",
        "column",
        "rank",
        "comm_uid",
        "iter",
        "stage_id",
        "mg_state",
        "group_kind",
        "comm_func",
        "buffer_id",
        "bucket_id",
        "bucket_offset",
        "bucket_numel",
        "bucket_numel_unpadded",
        "param_count",
        "trigger_cmd_uid",
        "trigger_op",
        "trigger_batch_id",
        "trigger_timestamp_ms",
        "launch_timestamp_ms",
        "launch_source",
        "timing_domain",
        "metadata_only",
        "status",
        "completion_observed_timestamp_ms",
        "completion_source",
        "wait_cmd_uid",
        "wait_start_timestamp_ms",
        "wait_end_timestamp_ms",
        "logical_stream_role",
        "grad_dtype",
        "data_parallel_world_size",
        "duration",
        "timestamp",
        "sub_operations",
    )

    def __init__(
        self,
        *,
        line: int,
        column: int,
        rank: int,
        comm_uid: str,
        iter: int,
        stage_id: int,
        mg_state: str | None,
        group_kind: str | None,
        comm_func: str | None,
        buffer_id: int | None,
        bucket_id: int | None,
        bucket_offset: int | None,
        bucket_numel: int | None,
        bucket_numel_unpadded: int | None,
        param_count: int | None,
        trigger_cmd_uid: str | None,
        trigger_op: str | None,
        trigger_batch_id: int | None,
        trigger_timestamp_ms: float | None,
        launch_timestamp_ms: float | None,
        launch_source: str | None,
        timing_domain: str | None,
        metadata_only: bool,
        status: str | None,
        completion_observed_timestamp_ms: float | None,
        completion_source: str | None,
        wait_cmd_uid: str | None,
        wait_start_timestamp_ms: float | None,
        wait_end_timestamp_ms: float | None,
        logical_stream_role: str | None,
        grad_dtype: str | None,
        data_parallel_world_size: int | None,
        duration: float | None,
        timestamp: float,
        sub_operations: SubOperations | None = None,
    ) -> None:
        self.line = line
        self.column = column
        self.rank = rank
        self.comm_uid = comm_uid
        self.iter = iter
        self.stage_id = stage_id
        self.mg_state = mg_state
        self.group_kind = group_kind
        self.comm_func = comm_func
        self.buffer_id = buffer_id
        self.bucket_id = bucket_id
        self.bucket_offset = bucket_offset
        self.bucket_numel = bucket_numel
        self.bucket_numel_unpadded = bucket_numel_unpadded
        self.param_count = param_count
        self.trigger_cmd_uid = trigger_cmd_uid
        self.trigger_op = trigger_op
        self.trigger_batch_id = trigger_batch_id
        self.trigger_timestamp_ms = trigger_timestamp_ms
        self.launch_timestamp_ms = launch_timestamp_ms
        self.launch_source = launch_source
        self.timing_domain = timing_domain
        self.metadata_only = metadata_only
        self.status = status
        self.completion_observed_timestamp_ms = completion_observed_timestamp_ms
        self.completion_source = completion_source
        self.wait_cmd_uid = wait_cmd_uid
        self.wait_start_timestamp_ms = wait_start_timestamp_ms
        self.wait_end_timestamp_ms = wait_end_timestamp_ms
        self.logical_stream_role = logical_stream_role
        self.grad_dtype = grad_dtype
        self.data_parallel_world_size = data_parallel_world_size
        self.duration = duration
        self.timestamp = timestamp
        self.sub_operations = sub_operations if sub_operations is not None else SubOperations()


class _LayerCalls(dict):  # type: ignore[type-arg]
    """(func_name, trace_src_func) -> whether that traced call is a transformer layer's collective.

    Not a layer's: the loss (``crossEntropy_fwd_*``), the embedding (``embedding_fwd``, and the
    output layer's input-gradient all-reduce, ``embedding_bwd_async``/``embedding_bwd*`` in older writer
    versions), and a ``_reduce`` without ``func``: ``_CopyToModelParallelRegion.backward`` in
    ``megatron/core/tensor_parallel/mappings.py`` - the LM head's input gradient on the last stage,
    identity in forward.  Layer collectives always pass a ``func`` (``linear_fwd``, ``normlinear_bwd``).
    """

    def __missing__(self, call: tuple[str | None, str]) -> bool:
        func_name, source = call
        is_layer = (
            not (func_name or "").startswith(("crossEntropy", "embedding"))
            and not source.startswith("embedding")
            and not (func_name is None and source == "_reduce")
        )
        self[call] = is_layer
        return is_layer


_layer_calls = _LayerCalls()


def _is_layer_collective(call: SubCall) -> bool:
    return call.group == "tp" and call.comm_func == "allreduce" and _layer_calls[call.func_name, call.trace_src_func]


def _layer_indices(calls: tuple[SubCall, ...]) -> tuple[int, ...]:
    return tuple(index for index, call in enumerate(calls) if _is_layer_collective(call))


_layer_indices_of = per_calls(_layer_indices)


def layer_collectives(record: OpRecord) -> tuple[int, ...]:
    """Where the per-layer TP all-reduces of a forward_step or backward_step are among its sub-operations.

    The forward step also reduces the loss (``crossEntropy_fwd_*``) and the last stage's backward step
    starts with the embedding gradient (``embedding_bwd*``); neither belongs to a transformer layer.
    """
    return _layer_indices_of(record.sub_operations)


def _tensors(calls: tuple[SubCall, ...]) -> Counter[tuple[tuple[int, ...] | None, str | None]]:
    return Counter((calls[index].input__shape, calls[index].input__dtype) for index in _layer_indices(calls))


_layer_tensors_of = per_calls(_tensors)


def sub_operation_label(op: str, index: int, trace_src_func: str) -> str:
    """How findings name a sub-operation: its place, the op that holds it, and the one field every writer
    version emits, so that it can be found in the line."""
    return f"sub-operation {index} of {op} (trace_src_func={trace_src_func})"


def layer_tensors(record: OpRecord) -> Counter[tuple[tuple[int, ...] | None, str | None]]:
    """(shape, dtype) -> how many of the record's layer collectives move such a tensor (do not modify it:
    records that make the same calls share it)."""
    return _layer_tensors_of(record.sub_operations)
