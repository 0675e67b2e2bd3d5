"""Consistent multi-rank Megatron runs in the ``megatron-trace`` format (docs/formats/megatron-trace.md, layout V1).

Every rank's records are what Megatron's ``CMD`` instrumentation writes for a GPT model trained with
the non-interleaved 1F1B schedule (``forward_backward_pipelining_without_interleaving``):

* per iteration: ``min(pp - stage - 1, micro_batches)`` warm-up forwards (``warmup``), the receive
  Megatron issues before its steady loop (``help``), the 1F1B pairs (``steady``), the cool-down
  backwards (``cooldown``), then ``finalize``: DP gradient all-reduce, word-embedding gradient
  all-reduce between the first and the last stage, optimizer step;
* p2p ops appear only where they move data: the first stage neither receives activations nor sends
  gradients, the last stage neither sends activations nor receives gradients;
* ``get_batch`` broadcasts over TP what ``get_batch_on_this_tp_rank`` broadcasts at the rank's
  pipeline position (nothing on middle stages);
* batch ids count per op name within an iteration, from 0, as the writer's ``counter[op] += 1`` does.

A run shaped like seed 000 (tp 2, pp 4, dp 1, 40 layers, hidden 5120, seq 2048, micro-batch 2, one
micro-batch) gives rank 7 the seed's records, timings aside; the tests hold the generator to that.

Time is a per-rank ``perf_counter`` clock counted in hundredths of a millisecond, the writer's
resolution, so that the decimal values in the files meet the ordering invariants exactly.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

from lint.formats.megatron_trace.parser import Parser
from lint.formats.megatron_trace.records import OpRecord, SubOperation, SubOperations
from tests.narrow import typed_parser

Run = dict[int, list[OpRecord]]
"""Every rank's records, in file order (record ``i`` is line ``i + 1`` of the rank's file)."""

TICKS_PER_MS = 100

LOSS_DESCRIPTION = "loss_func, calculate and DP allreduce for the last stage"
DP_DESCRIPTION = "model_chunk.finish_grad_sync(), All-reduce / reduce-scatter across DP replicas"
EMBEDDING_DESCRIPTION = "_allreduce_word_embedding_grads"

# What get_batch_on_this_tp_rank broadcasts, in order, keyed by (first stage, last stage).
_BATCH_BROADCASTS: dict[tuple[bool, bool], tuple[str, ...]] = {
    (True, True): ("tokens", "labels", "loss_mask", "attention_mask", "position_ids"),
    (True, False): ("tokens", "attention_mask", "position_ids"),
    (False, True): ("labels", "loss_mask", "attention_mask"),
    (False, False): (),
}
_RECEIVER_OF = {"send_forward": ("recv_forward", 1), "send_backward": ("recv_backward", -1)}


class Position(NamedTuple):
    stage: int
    dp_index: int
    tp_index: int


@dataclass(frozen=True)
class RunSpec:
    """One training run: parallel layout, GPT model dimensions, schedule length and timing seed."""

    tp: int = 2
    pp: int = 4
    dp: int = 2
    micro_batches: int = 4
    layers: int = 8
    hidden: int = 1024
    seq: int = 256
    micro_batch_size: int = 2
    dtype: str = "torch.float32"
    iterations: int = 1
    vocab: int = 50432
    seed: int = 0
    started: datetime = datetime(2024, 12, 24, 10, 59, 12)  # the time stamp in the file names

    def __post_init__(self) -> None:
        for name in ("tp", "pp", "dp", "micro_batches", "layers", "hidden", "seq", "micro_batch_size", "iterations", "vocab"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")
        for name, divisor in (("layers", "pp"), ("hidden", "tp"), ("vocab", "tp")):
            if getattr(self, name) % getattr(self, divisor):
                raise ValueError(f"{name} must be a multiple of {divisor}")

    @property
    def world_size(self) -> int:
        return self.tp * self.pp * self.dp

    @property
    def layers_per_stage(self) -> int:
        return self.layers // self.pp

    def rank(self, stage: int, dp_index: int, tp_index: int) -> int:
        """Megatron's (and OptimusPrime's stage2rank) order: stage-major, then DP replica, then TP rank."""
        return (stage * self.dp + dp_index) * self.tp + tp_index

    def position(self, rank: int) -> Position:
        stage, within_stage = divmod(rank, self.dp * self.tp)
        return Position(stage, *divmod(within_stage, self.tp))

    def stage_parameters(self, stage: int) -> int:
        """Parameters held by one TP rank of ``stage``: the element count of its ``dp_allreduce``."""
        h = self.hidden
        # A layer: QKV, projection, fc1 and fc2 weights and the QKV and fc1 biases are split over TP;
        # two layernorms (weight and bias) and the projection and fc2 biases are replicated.
        count = self.layers_per_stage * (12 * h * h // self.tp + 7 * h // self.tp + 6 * h)
        word_embedding = self.vocab // self.tp * h
        if stage == 0:
            count += word_embedding + self.seq * h  # position embeddings: as many as the sequence
        if stage == self.pp - 1:
            count += 2 * h  # final layernorm
            if self.pp > 1:
                count += word_embedding  # the last stage's copy of the tied word embedding
        return count


# -- generation ---------------------------------------------------------------------------------


class _Call(NamedTuple):
    """A traced call inside an op, as the tracing decorator records it, and its duration range."""

    trace_src_func: str
    shape: tuple[int, ...]
    dtype: str
    func_name: str
    group: str
    comm_func: str
    duration_ms: tuple[float, float]


class _OpTemplate(NamedTuple):
    group_kind: str | None
    shape: tuple[int, ...] | None
    dtype: str | None
    description: str | None
    calls: tuple[_Call, ...]
    gap_ms: tuple[float, float]  # the op's own work before each call and after the last


def _templates(spec: RunSpec, stage: int) -> dict[str, _OpTemplate]:
    """What each op of ``stage`` records besides its timing; the same on every rank of the stage."""
    first, last = stage == 0, stage == spec.pp - 1
    seq, mbs, hidden, dtype = spec.seq, spec.micro_batch_size, spec.hidden, spec.dtype
    activation = (seq, mbs, hidden)
    layer_collective = (seq * mbs, hidden)
    batch_tensors = {
        "tokens": ((mbs, seq), "torch.int64"),
        "labels": ((mbs, seq), "torch.int64"),
        "loss_mask": ((mbs, seq), "torch.float32"),
        "attention_mask": ((mbs, 1, seq, seq), "torch.bool"),
        "position_ids": ((mbs, seq), "torch.int64"),
    }
    broadcasts = tuple(_Call("_broadcast", *batch_tensors[name], name, "tp", "broadcast", (0.02, 0.12)) for name in _BATCH_BROADCASTS[first, last])
    layer_calls = 2 * spec.layers_per_stage
    forward = (_Call("allreduce", layer_collective, dtype, "linear_fwd", "tp", "allreduce", (0.6, 3.3)),) * layer_calls
    backward = (_Call("normlinear_bwd_async", layer_collective, dtype, "normlinear_bwd", "tp", "allreduce", (4.5, 8.6)),) * layer_calls
    if last:
        # Vocab-parallel cross-entropy reduces in float32 whatever the model's dtype; the output
        # layer's input gradient is all-reduced before the layers' backward.
        forward += tuple(_Call("_reduce", (seq, mbs), "torch.float32", f"crossEntropy_fwd_{i}", "tp", "allreduce", (0.02, 0.05)) for i in (1, 2, 3))
        backward = (_Call("embedding_bwd_async", activation, dtype, "embedding_bwd_async", "tp", "allreduce", (40.0, 130.0)), *backward)
    loss = _Call("allreduce", (1,), "torch.float32", "loss_func", "dp", "allreduce", (0.05, 0.1))
    receive = _OpTemplate("pp", activation, dtype, None, (), (0.5, 40.0))
    send = _OpTemplate("pp", activation, dtype, None, (), (0.5, 5.0))
    return {
        "get_batch": _OpTemplate(None, None, None, None, broadcasts, (0.5, 3.0)),
        "forward_step": _OpTemplate(None, None, None, None, forward, (8.0, 30.0)),
        "loss_func": _OpTemplate(None, None, None, LOSS_DESCRIPTION, (loss,), (0.05, 0.2)),
        "backward_step": _OpTemplate(None, None, None, None, backward, (15.0, 60.0)),
        "recv_forward": receive,
        "recv_backward": receive,
        "send_forward": send,
        "send_backward": send,
        "dp_allreduce": _OpTemplate("dp", (spec.stage_parameters(stage),), dtype, DP_DESCRIPTION, (), (10.0, 40.0)),
        "ep_allreduce": _OpTemplate("ep", (spec.vocab // spec.tp, hidden), dtype, EMBEDDING_DESCRIPTION, (), (100.0, 1300.0)),
        "optimizer_step": _OpTemplate(None, None, None, None, (), (50.0, 120.0)),
    }


def _schedule(spec: RunSpec, stage: int) -> Iterator[tuple[str, str]]:
    """(op, mg_state) of one training iteration of ``stage``, in the order Megatron's 1F1B runs them."""
    first, last = stage == 0, stage == spec.pp - 1
    warmup = min(spec.pp - stage - 1, spec.micro_batches)
    steady = spec.micro_batches - warmup

    def forward(state: str) -> Iterator[tuple[str, str]]:
        yield "get_batch", state
        yield "forward_step", state
        yield ("loss_func", state) if last else ("send_forward", state)

    def backward(state: str) -> Iterator[tuple[str, str]]:
        if not last:
            yield "recv_backward", state
        yield "backward_step", state
        if not first:
            yield "send_backward", state

    for _ in range(warmup):
        if not first:
            yield "recv_forward", "warmup"
        yield from forward("warmup")
    if steady and not first:
        yield "recv_forward", "help"
    for index in range(steady):
        yield from forward("steady")
        yield from backward("steady")
        if index < steady - 1 and not first:
            yield "recv_forward", "steady"
    for _ in range(warmup):
        yield from backward("cooldown")
    yield "dp_allreduce", "finalize"
    if spec.pp > 1 and (first or last):
        yield "ep_allreduce", "finalize"
    yield "optimizer_step", "finalize"


class _Clock:
    """One process's ``perf_counter`` in ticks (1/100 ms), advanced by seeded random durations."""

    def __init__(self, seed: int, rank: int) -> None:
        self._random = random.Random(f"{seed}:{rank}")
        self.now = self._random.randrange(10**11, 5 * 10**11)  # an origin days into the machine's uptime

    def spend(self, range_ms: tuple[float, float]) -> int:
        ticks = self._random.randint(round(range_ms[0] * TICKS_PER_MS), round(range_ms[1] * TICKS_PER_MS))
        self.now += ticks
        return ticks


def rank_records(spec: RunSpec, rank: int) -> Iterator[OpRecord]:
    """Rank ``rank``'s records, streamed, in file order."""
    if not 0 <= rank < spec.world_size:
        raise ValueError(f"rank {rank} is outside a world of {spec.world_size}")
    position = spec.position(rank)
    templates = _templates(spec, position.stage)
    steps = tuple(_schedule(spec, position.stage))
    clock = _Clock(spec.seed, rank)
    line = 0
    for _ in range(spec.iterations):
        batch_ids: Counter[str] = Counter()
        for op, state in steps:
            template = templates[op]
            clock.spend((0.0, 0.3))  # the writer's own bookkeeping between two ops
            start = clock.now
            sub_operations = []
            for call in template.calls:
                clock.spend(template.gap_ms)
                duration = clock.spend(call.duration_ms)
                sub_operations.append(
                    SubOperation(
                        call.trace_src_func,
                        duration / TICKS_PER_MS,
                        clock.now / TICKS_PER_MS,
                        call.shape,
                        call.dtype,
                        call.func_name,
                        call.group,
                        call.comm_func,
                    )
                )
            clock.spend(template.gap_ms)
            line += 1
            yield OpRecord(
                line=line,
                column=1,
                variant="V1",
                rank=rank,
                op=op,
                stage_id=position.stage,
                batch_id=batch_ids[op],
                mg_state=state,
                duration=(clock.now - start) / TICKS_PER_MS,
                description=template.description,
                group_kind=template.group_kind,
                input__shape=template.shape,
                input__dtype=template.dtype,
                timestamp=clock.now / TICKS_PER_MS,
                sub_operations=SubOperations.of(sub_operations),
            )
            batch_ids[op] += 1


def generate_run(spec: RunSpec) -> Run:
    """Every rank's records, as the instrumentation of ``spec``'s run writes them."""
    return {rank: list(rank_records(spec, rank)) for rank in range(spec.world_size)}


# -- writing ------------------------------------------------------------------------------------


def trace_file_name(prefix: str, rank: int, started: datetime) -> str:
    return f"{prefix}_rank{rank}_{started:%Y%m%d%H%M%S}.txt"


def write_records(path: Path, records: Iterable[OpRecord]) -> None:
    """Streams ``records`` to ``path``, one rendered line each."""
    render = typed_parser("megatron-trace", Parser).render
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        for record in records:
            out.write(render(record) + "\n")


def write_run(spec: RunSpec, directory: Path | str, prefix: str = "trace", *, run: Run | None = None) -> list[Path]:
    """One file per rank in ``directory``: ``run`` (e.g. with a fault), else ``spec``'s run streamed rank by rank."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    ranks = run.items() if run is not None else ((rank, rank_records(spec, rank)) for rank in range(spec.world_size))
    paths = []
    for rank, records in ranks:
        path = directory / trace_file_name(prefix, rank, spec.started)
        write_records(path, records)
        paths.append(path)
    return paths


# -- fault injection ----------------------------------------------------------------------------
# Each helper leaves its input alone and returns the faulty run with the Fault it put in.


@dataclass(frozen=True)
class Fault:
    """Where an injected fault is, and what it is."""

    rank: int
    line: int | None  # 1-based line in the rank's file; None when the fault is the whole file
    what: str
    counterpart: tuple[int, int] | None = None  # (rank, line) of the record that no longer matches


def _nth(indices: Iterable[int], occurrence: int, missing: str) -> int:
    for count, index in enumerate(indices):
        if count == occurrence:
            return index
    raise ValueError(missing)


def _with_record(run: Run, rank: int, index: int, record: OpRecord) -> Run:
    records = list(run[rank])
    records[index] = record
    return {**run, rank: records}


def _doubled(shape: tuple[int, ...]) -> tuple[int, ...]:
    return (2 * shape[0], *shape[1:])


def _shape(described: OpRecord | SubOperation) -> tuple[int, ...]:
    """The input shape of ``described``, which every collective and p2p op the generator writes has."""
    if described.input__shape is None:
        raise ValueError(f"{described!r} has no input shape to change")
    return described.input__shape


def _collective(run: Run, rank: int, func_name: str, occurrence: int) -> tuple[int, int]:
    """(record index, sub-operation index) of ``rank``'s ``occurrence``-th ``func_name`` collective."""
    sites = [(index, position) for index, record in enumerate(run[rank]) for position, sub in enumerate(record.sub_operations) if sub.func_name == func_name]
    if occurrence >= len(sites):
        raise ValueError(f"rank {rank} has {len(sites)} {func_name} collectives, not {occurrence + 1}")
    return sites[occurrence]


def _splice(run: Run, rank: int, index: int, position: int, replacement: list[SubOperation]) -> Run:
    record = run[rank][index]
    subs = record.sub_operations
    return _with_record(run, rank, index, record.replace(sub_operations=SubOperations.of(subs[:position] + replacement + subs[position + 1 :])))


def change_collective_shape(run: Run, rank: int, occurrence: int = 0, func_name: str = "linear_fwd") -> tuple[Run, Fault]:
    """Doubles the first dimension of ``rank``'s ``occurrence``-th ``func_name`` collective: its TP peers' keep theirs."""
    index, position = _collective(run, rank, func_name, occurrence)
    sub = run[rank][index].sub_operations[position]
    old = _shape(sub)
    shape = _doubled(old)
    faulty = _splice(run, rank, index, position, [sub.replace(input__shape=shape)])
    return faulty, Fault(rank, index + 1, f"{func_name} collective {occurrence}: shape {list(old)} -> {list(shape)}")


def change_collective_dtype(run: Run, rank: int, occurrence: int = 0, func_name: str = "linear_fwd") -> tuple[Run, Fault]:
    """Gives ``rank``'s ``occurrence``-th ``func_name`` collective another dtype than its TP peers'."""
    index, position = _collective(run, rank, func_name, occurrence)
    sub = run[rank][index].sub_operations[position]
    dtype = "torch.float16" if sub.input__dtype == "torch.bfloat16" else "torch.bfloat16"
    faulty = _splice(run, rank, index, position, [sub.replace(input__dtype=dtype)])
    return faulty, Fault(rank, index + 1, f"{func_name} collective {occurrence}: dtype {sub.input__dtype} -> {dtype}")


def drop_tp_collective(run: Run, rank: int, occurrence: int = 0) -> tuple[Run, Fault]:
    """Removes ``rank``'s ``occurrence``-th forward layer collective (``linear_fwd``) from its forward_step."""
    index, position = _collective(run, rank, "linear_fwd", occurrence)
    faulty = _splice(run, rank, index, position, [])
    return faulty, Fault(rank, index + 1, f"forward_step lost linear_fwd collective {occurrence} (sub-operation {position})")


def put_rank_in_wrong_stage(run: Run, rank: int, stage: int | None = None) -> tuple[Run, Fault]:
    """Every record of ``rank`` claims ``stage`` (default: the next stage of the run, cyclically)."""
    own = run[rank][0].stage_id
    stages = sorted({records[0].stage_id for records in run.values() if records})
    wrong = stages[(stages.index(own) + 1) % len(stages)] if stage is None else stage
    if wrong == own:
        raise ValueError(f"rank {rank} is in stage {own} already")
    faulty = {**run, rank: [record.replace(stage_id=wrong) for record in run[rank]]}
    return faulty, Fault(rank, 1, f"stage_id {own} -> {wrong} on every line")


def mismatch_p2p_shape(run: Run, rank: int, occurrence: int = 0) -> tuple[Run, Fault]:
    """Doubles the first dimension of ``rank``'s ``occurrence``-th send; the peer's matching receive keeps its shape."""
    records = run[rank]
    index = _nth((i for i, r in enumerate(records) if r.op in _RECEIVER_OF), occurrence, f"rank {rank} sends fewer than {occurrence + 1} times")
    send = records[index]
    receive_op, stage_step = _RECEIVER_OF[send.op]
    ranks_per_stage = sum(1 for other in run.values() if other and other[0].stage_id == send.stage_id)
    peer = rank + stage_step * ranks_per_stage
    sends_before = sum(1 for r in records[:index] if r.op == send.op)
    peer_index = _nth((i for i, r in enumerate(run[peer]) if r.op == receive_op), sends_before, f"rank {peer} lacks the matching {receive_op}")
    old = _shape(send)
    shape = _doubled(old)
    faulty = _with_record(run, rank, index, send.replace(input__shape=shape))
    what = f"{send.op} shape {list(old)} -> {list(shape)}; rank {peer} line {peer_index + 1} {receive_op} still expects {list(old)}"
    return faulty, Fault(rank, index + 1, what, counterpart=(peer, peer_index + 1))


def remove_rank_file(run: Run, rank: int) -> tuple[Run, Fault]:
    """The run without ``rank``'s file."""
    if rank not in run:
        raise ValueError(f"rank {rank} has no file to remove")
    return {r: records for r, records in run.items() if r != rank}, Fault(rank, None, f"the file of rank {rank} is missing")


# -- whole-run changes --------------------------------------------------------------------------
# What differs between two runs of one job rather than within a run: every rank or stage at once.


def _ticks(ms: float) -> int:
    return round(ms * TICKS_PER_MS)


def rescale_durations(run: Run, factor: Callable[[int, OpRecord], float]) -> Run:
    """Every record of ``rank`` takes ``factor(rank, record)`` times as long, and so does what it holds.

    The sub-operations keep their places within the op, stretched with it; each rank's later records
    move by what the earlier ones gained, so the file still reads as one clock running forward.
    """
    rescaled: Run = {}
    for rank, records in run.items():
        shift = 0
        out = []
        for record in records:
            if record.timestamp is None or record.duration is None or record.is_placeholder:
                out.append(record)
                continue
            scale = factor(rank, record)
            start = _ticks(record.timestamp) - _ticks(record.duration)
            new_start = start + shift
            duration = round(_ticks(record.duration) * scale)
            subs = []
            for sub in record.sub_operations:
                sub_start = new_start + round((_ticks(sub.timestamp) - _ticks(sub.duration) - start) * scale)
                sub_duration = round(_ticks(sub.duration) * scale)
                subs.append(sub.replace(duration=sub_duration / TICKS_PER_MS, timestamp=(sub_start + sub_duration) / TICKS_PER_MS))
            end = new_start + duration
            shift = end - _ticks(record.timestamp)
            out.append(record.replace(duration=duration / TICKS_PER_MS, timestamp=end / TICKS_PER_MS, sub_operations=SubOperations.of(subs)))
        rescaled[rank] = out
    return rescaled


def slow_down_stage(run: Run, stage: int, factor: float) -> Run:
    """Every op of every rank of ``stage`` takes ``factor`` times as long, in every step."""
    return rescale_durations(run, lambda _, record: factor if record.stage_id == stage else 1.0)


def drop_layer_collective_pair(spec: RunSpec, run: Run, layer: int) -> Run:
    """Layer ``layer`` (0-based, model-wide) loses its MLP all-reduce and the backward twin, on every rank and step.

    The time the collective took stays in the op, as the layer's own work: only the structure changes.
    """
    stage, local = divmod(layer, spec.layers_per_stage)
    forward_index = 2 * local + 1  # a layer all-reduces after attention, then after the MLP
    backward_index = 2 * (spec.layers_per_stage - 1 - local)  # backward meets the layers, and the MLP, first

    def without(record: OpRecord, func_name: str, index: int) -> OpRecord:
        positions = [i for i, sub in enumerate(record.sub_operations) if sub.func_name == func_name]
        dropped = positions[index]
        return record.replace(sub_operations=SubOperations.of(s for i, s in enumerate(record.sub_operations) if i != dropped))

    changed: Run = {}
    for rank, records in run.items():
        if spec.position(rank).stage != stage:
            changed[rank] = records
            continue
        changed[rank] = [
            without(r, "linear_fwd", forward_index)
            if r.op == "forward_step"
            else without(r, "normlinear_bwd", backward_index)
            if r.op == "backward_step"
            else r
            for r in records
        ]
    return changed
