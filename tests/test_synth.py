"""The Megatron run generator: faithful to seed 000, consistent across ranks, and faults exactly where said.

These tests guard the generator itself; the cross-rank rules are tested with what it generates.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lint.check.engine import CheckOptions, check
from lint.formats import parser
from lint.formats.megatron_trace import parser as megatron_trace
from lint.formats.megatron_trace.records import OpRecord, tensor_bytes
from tests.narrow import each, typed_parser
from tests.synth.megatron_run import (
    DP_DESCRIPTION,
    LOSS_DESCRIPTION,
    Fault,
    Run,
    RunSpec,
    change_collective_dtype,
    change_collective_shape,
    drop_layer_collective_pair,
    drop_tp_collective,
    generate_run,
    mismatch_p2p_shape,
    put_rank_in_wrong_stage,
    rank_records,
    remove_rank_file,
    slow_down_stage,
    write_run,
)
from tests.synth.optprime_log import write_long_run
from tests.synth.simai_workload import write_workload

SEED_000 = Path(__file__).resolve().parent / "fixtures" / "seeds" / "000_14848477538be528.txt"
SEED_000_SPEC = RunSpec(tp=2, pp=4, dp=1, micro_batches=1, layers=40, hidden=5120, seq=2048, micro_batch_size=2, vocab=50432)
SMALL = RunSpec(tp=2, pp=4, dp=2, micro_batches=6, layers=8, hidden=64, seq=16, micro_batch_size=2, iterations=2, vocab=512)
SPECS = {
    "tp2-pp4-dp2": SMALL,
    "fewer-micro-batches-than-stages": dataclasses.replace(SMALL, pp=4, micro_batches=2, dtype="torch.bfloat16"),
    "no-pipeline": dataclasses.replace(SMALL, pp=1, layers=3, tp=1, dp=3),
    "two-stages": dataclasses.replace(SMALL, pp=2, tp=4, dp=1, micro_batches=1, iterations=3),
}
PARSER = typed_parser("megatron-trace", megatron_trace.Parser)


@cache
def generated(spec: RunSpec) -> Run:
    return generate_run(spec)


def parse_file(path: Path) -> list[OpRecord]:
    return each(OpRecord, PARSER.parse(enumerate(path.read_text(encoding="utf-8").splitlines(), 1)))


def untimed(record: OpRecord) -> tuple[object, ...]:
    """A record without what the seeded clock decides (durations, timestamps)."""
    subs = tuple((s.trace_src_func, s.input__shape, s.input__dtype, s.func_name, s.group, s.comm_func, s.extra) for s in record.sub_operations)
    return (record.op, record.stage_id, record.batch_id, record.mg_state, record.description, record.group_kind, record.input__shape, record.input__dtype, subs)


def iterations(records: list[OpRecord]) -> list[list[OpRecord]]:
    """The records split after each optimizer_step."""
    split: list[list[OpRecord]] = [[]]
    for record in records:
        split[-1].append(record)
        if record.op == "optimizer_step":
            split.append([])
    assert split.pop() == []
    return split


def ticks(value: float | None) -> int:
    assert value is not None, "the generator times every op and sub-operation"
    return round(value * 100)


def record_index(fault: Fault) -> int:
    """The index, in its rank's records, of the record ``fault`` changed."""
    assert fault.line is not None, f"{fault} is on no line"
    return fault.line - 1


# -- fidelity -----------------------------------------------------------------------------------


def test_rank_7_of_a_seed_000_run_writes_the_seed_records() -> None:
    seed = parse_file(SEED_000)
    assert [untimed(r) for r in rank_records(SEED_000_SPEC, 7)] == [untimed(r) for r in seed]


def test_written_run_parses_back_record_for_record_and_checks_clean(tmp_path: Path) -> None:
    paths = write_run(SMALL, tmp_path, prefix="job")
    run = generated(SMALL)
    assert len(paths) == SMALL.world_size
    for path in paths:
        name = re.fullmatch(r"job_rank(\d+)_20241224105912\.txt", path.name)
        assert name, path.name
        assert parse_file(path) == run[int(name.group(1))]
    report = check([str(tmp_path)], CheckOptions())
    assert report.summary.checked == SMALL.world_size and report.findings == []
    assert {file.format for file in report.files} == {"megatron-trace"}


def test_ranks_are_numbered_in_megatron_order() -> None:
    spec = RunSpec(tp=2, pp=3, dp=2, layers=6)
    assert spec.position(5) == (1, 0, 1) and spec.rank(2, 1, 0) == 10
    assert [spec.rank(*spec.position(rank)) for rank in range(spec.world_size)] == list(range(spec.world_size))


def test_generation_is_deterministic_and_the_seed_moves_only_timings() -> None:
    reseeded = dataclasses.replace(SMALL, seed=1)
    assert generate_run(SMALL) == generated(SMALL)
    assert generated(reseeded) != generated(SMALL)
    assert {rank: [untimed(r) for r in records] for rank, records in generated(reseeded).items()} == {
        rank: [untimed(r) for r in records] for rank, records in generated(SMALL).items()
    }


@pytest.mark.parametrize("field, value", [("layers", 6), ("hidden", 33), ("vocab", 1001), ("micro_batches", 0)])
def test_spec_refuses_impossible_layouts(field: str, value: int) -> None:
    with pytest.raises(ValueError, match=field):
        changes: dict[str, Any] = {field: value}  # RunSpec's fields differ in type: any of them may be named
        dataclasses.replace(SMALL, **changes)


# -- structural invariants, on fixed layouts and on any layout ----------------------------------


def assert_1f1b_schedule(spec: RunSpec, run: Run) -> None:
    micro = spec.micro_batches
    for rank, records in run.items():
        stage = spec.position(rank).stage
        warmup = min(spec.pp - stage - 1, micro)
        forwards = [("forward_step", m, "warmup" if m < warmup else "steady") for m in range(micro)]
        backwards = [("backward_step", m, "steady" if m < micro - warmup else "cooldown") for m in range(micro)]
        expected = forwards[:warmup] + [step for m in range(micro - warmup) for step in (forwards[warmup + m], backwards[m])] + backwards[micro - warmup :]
        assert len(iterations(records)) == spec.iterations
        for iteration in iterations(records):
            compute = [(r.op, r.batch_id, r.mg_state) for r in iteration if r.op in ("forward_step", "backward_step")]
            assert compute == expected, f"rank {rank}"
            helpers = [r for r in iteration if r.mg_state == "help"]
            assert [r.op for r in helpers] == (["recv_forward"] if stage and micro > warmup else [])
            assert [r.op for r in iteration if r.mg_state == "finalize"] == ["dp_allreduce"] + (
                ["ep_allreduce"] if spec.pp > 1 and stage in (0, spec.pp - 1) else []
            ) + ["optimizer_step"]


def assert_batch_ids_count_per_op_within_an_iteration(spec: RunSpec, run: Run) -> None:
    for records in run.values():
        for iteration in iterations(records):
            for op in {r.op for r in iteration}:
                assert [r.batch_id for r in iteration if r.op == op] == list(range(sum(r.op == op for r in iteration)))


def assert_layer_collectives(spec: RunSpec, run: Run) -> None:
    layer_shape = (spec.seq * spec.micro_batch_size, spec.hidden)
    for rank, records in run.items():
        last = spec.position(rank).stage == spec.pp - 1
        for record in records:
            names = [s.func_name for s in record.sub_operations]
            if record.op == "forward_step":
                assert names.count("linear_fwd") == 2 * spec.layers_per_stage
                assert sum(name.startswith("crossEntropy_fwd_") for name in each(str, names)) == (3 if last else 0)
            if record.op == "backward_step":
                assert names.count("normlinear_bwd") == 2 * spec.layers_per_stage
                assert names.count("embedding_bwd_async") == last
            for sub in record.sub_operations:
                if sub.func_name in ("linear_fwd", "normlinear_bwd"):
                    assert (sub.input__shape, sub.input__dtype, sub.group, sub.comm_func) == (layer_shape, spec.dtype, "tp", "allreduce")


def assert_tp_peers_hold_identical_sequences(spec: RunSpec, run: Run) -> None:
    for stage in range(spec.pp):
        for dp_index in range(spec.dp):
            sequences = {tuple(map(untimed, run[spec.rank(stage, dp_index, tp)])) for tp in range(spec.tp)}
            assert len(sequences) == 1, f"stage {stage} replica {dp_index}"


def assert_sends_pair_with_receives(spec: RunSpec, run: Run) -> None:
    activation = (spec.seq, spec.micro_batch_size, spec.hidden)
    assert tensor_bytes(activation, spec.dtype) == tensor_bytes((spec.seq * spec.micro_batch_size, spec.hidden), spec.dtype)

    def p2p(rank: int, op: str) -> list[tuple[object, ...]]:
        return [(r.batch_id, r.group_kind, r.input__shape, r.input__dtype) for r in run[rank] if r.op == op]

    for rank in run:
        stage, dp_index, tp_index = spec.position(rank)
        if stage + 1 < spec.pp:
            downstream = spec.rank(stage + 1, dp_index, tp_index)
            assert p2p(rank, "send_forward") == p2p(downstream, "recv_forward")
            assert p2p(rank, "recv_backward") == p2p(downstream, "send_backward")
            assert len(p2p(rank, "send_forward")) == spec.micro_batches * spec.iterations
            assert {shape for _, _, shape, _ in p2p(rank, "send_forward")} == {activation}
    if spec.pp == 1:
        assert not any(r.group_kind == "pp" for records in run.values() for r in records)


def assert_time_runs_forward(spec: RunSpec, run: Run) -> None:
    for rank, records in run.items():
        previous_end = None
        for record in records:
            start, end = ticks(record.timestamp) - ticks(record.duration), ticks(record.timestamp)
            assert record.duration is not None and record.duration >= 0 and (previous_end is None or start >= previous_end), f"rank {rank} line {record.line}"
            previous_sub_end = start
            for sub in record.sub_operations:
                assert sub.duration >= 0
                assert previous_sub_end <= ticks(sub.timestamp) - ticks(sub.duration) and ticks(sub.timestamp) <= end
                previous_sub_end = ticks(sub.timestamp)
            previous_end = end


def assert_finalize_sizes(spec: RunSpec, run: Run) -> None:
    for rank, records in run.items():
        stage = spec.position(rank).stage
        by_op = {r.op: r for r in records}
        assert by_op["dp_allreduce"].input__shape == (spec.stage_parameters(stage),)
        assert by_op["dp_allreduce"].description == DP_DESCRIPTION
        if "ep_allreduce" in by_op:
            assert by_op["ep_allreduce"].input__shape == (spec.vocab // spec.tp, spec.hidden)
        if "loss_func" in by_op:
            assert by_op["loss_func"].description == LOSS_DESCRIPTION
        assert {r.stage_id for r in records} == {stage} and {r.rank for r in records} == {rank}
        assert [r.line for r in records] == list(range(1, len(records) + 1))


INVARIANTS: list[Callable[[RunSpec, Run], None]] = [
    assert_1f1b_schedule,
    assert_batch_ids_count_per_op_within_an_iteration,
    assert_layer_collectives,
    assert_tp_peers_hold_identical_sequences,
    assert_sends_pair_with_receives,
    assert_time_runs_forward,
    assert_finalize_sizes,
]


@pytest.mark.parametrize("invariant", INVARIANTS, ids=lambda f: f.__name__.removeprefix("assert_"))
@pytest.mark.parametrize("spec", SPECS.values(), ids=SPECS.keys())
def test_generated_run_keeps(spec: RunSpec, invariant: Callable[[RunSpec, Run], None]) -> None:
    invariant(spec, generated(spec))


@st.composite
def run_specs(draw: st.DrawFn) -> RunSpec:
    tp, pp = draw(st.sampled_from([1, 2, 4])), draw(st.integers(1, 5))
    return RunSpec(
        tp=tp,
        pp=pp,
        dp=draw(st.integers(1, 3)),
        micro_batches=draw(st.integers(1, 7)),
        layers=pp * draw(st.integers(1, 3)),
        hidden=tp * draw(st.integers(1, 16)),
        seq=draw(st.integers(1, 32)),
        micro_batch_size=draw(st.integers(1, 3)),
        dtype=draw(st.sampled_from(["torch.float32", "torch.bfloat16"])),
        iterations=draw(st.integers(1, 3)),
        vocab=tp * draw(st.integers(1, 100)),
        seed=draw(st.integers(0, 2**32)),
    )


@settings(max_examples=30, deadline=None)
@given(run_specs())
def test_any_layout_keeps_every_invariant(spec: RunSpec) -> None:
    run = generate_run(spec)
    for invariant in INVARIANTS:
        invariant(spec, run)


# -- fault injection ----------------------------------------------------------------------------


def differences(before: Run, after: Run) -> set[tuple[int, int | None, str]]:
    """(rank, line, field) of every field that differs; (rank, None, 'file') for a file gone or added."""
    found: set[tuple[int, int | None, str]] = {(rank, None, "file") for rank in before.keys() ^ after.keys()}
    for rank in before.keys() & after.keys():
        assert len(before[rank]) == len(after[rank])
        for line, (old, new) in enumerate(zip(before[rank], after[rank], strict=True), 1):
            found |= {(rank, line, f) for f in OpRecord.__match_args__ if getattr(old, f) != getattr(new, f)}
    return found


def changed_sub_operation(old: OpRecord, new: OpRecord) -> tuple[dict[str, object], dict[str, object]]:
    """The one sub-operation that differs, as (old fields, new fields) restricted to what differs."""
    (index,) = [i for i, (a, b) in enumerate(zip(old.sub_operations, new.sub_operations, strict=True)) if a != b]
    a, b = ({name: getattr(sub, name) for name in sub.__match_args__} for sub in (old.sub_operations[index], new.sub_operations[index]))
    return {k: v for k, v in a.items() if v != b[k]}, {k: v for k, v in b.items() if v != a[k]}


@pytest.fixture
def run() -> Run:
    return generated(SMALL)


def test_change_collective_shape_changes_one_size(run: Run) -> None:
    faulty, fault = change_collective_shape(run, 5, occurrence=3)
    assert differences(run, faulty) == {(5, fault.line, "sub_operations")}
    old, new = run[5][record_index(fault)], faulty[5][record_index(fault)]
    assert old.op == "forward_step"
    assert changed_sub_operation(old, new) == ({"input__shape": (32, 64)}, {"input__shape": (64, 64)})


def test_change_collective_dtype_changes_one_dtype(run: Run) -> None:
    faulty, fault = change_collective_dtype(run, 2, occurrence=1, func_name="normlinear_bwd")
    assert differences(run, faulty) == {(2, fault.line, "sub_operations")}
    old, new = run[2][record_index(fault)], faulty[2][record_index(fault)]
    assert old.op == "backward_step"
    assert changed_sub_operation(old, new) == ({"input__dtype": "torch.float32"}, {"input__dtype": "torch.bfloat16"})


def test_drop_tp_collective_removes_one_forward_collective(run: Run) -> None:
    faulty, fault = drop_tp_collective(run, 6, occurrence=SMALL.layers_per_stage * 2 + 1)  # in the second forward_step
    assert differences(run, faulty) == {(6, fault.line, "sub_operations")}
    old, new = run[6][record_index(fault)], faulty[6][record_index(fault)]
    assert old.op == "forward_step" and old.batch_id == 1
    assert len(new.sub_operations) == len(old.sub_operations) - 1
    assert [s.func_name for s in new.sub_operations].count("linear_fwd") == 2 * SMALL.layers_per_stage - 1
    assert all(sub in old.sub_operations for sub in new.sub_operations)


def test_put_rank_in_wrong_stage_moves_every_line(run: Run) -> None:
    faulty, fault = put_rank_in_wrong_stage(run, 9)
    assert (fault.rank, fault.line) == (9, 1)
    assert differences(run, faulty) == {(9, line, "stage_id") for line in range(1, len(run[9]) + 1)}
    assert {r.stage_id for r in faulty[9]} == {3} and SMALL.position(9).stage == 2
    with pytest.raises(ValueError):
        put_rank_in_wrong_stage(run, 9, stage=2)


@pytest.mark.parametrize("rank, peer, receive", [(1, 5, "recv_forward"), (13, 9, "recv_backward")])
def test_mismatch_p2p_shape_breaks_one_pair(run: Run, rank: int, peer: int, receive: str) -> None:
    faulty, fault = mismatch_p2p_shape(run, rank, occurrence=2)
    assert differences(run, faulty) == {(rank, fault.line, "input__shape")}
    send, broken = run[rank][record_index(fault)], faulty[rank][record_index(fault)]
    assert fault.counterpart is not None
    peer_rank, peer_line = fault.counterpart
    matching = faulty[peer_rank][peer_line - 1]
    assert peer_rank == peer and matching.op == receive and matching.batch_id == send.batch_id
    assert matching.input__shape == send.input__shape == (16, 2, 64) and broken.input__shape == (32, 2, 64)


def test_remove_rank_file_removes_only_that_rank(run: Run) -> None:
    faulty, fault = remove_rank_file(run, 4)
    assert (fault.rank, fault.line) == (4, None)
    assert differences(run, faulty) == {(4, None, "file")}


def test_faults_leave_their_input_alone_and_land_on_the_line_they_name(tmp_path: Path, run: Run) -> None:
    faulty, fault = change_collective_shape(run, 3)
    faulty, _ = remove_rank_file(faulty, 0)
    paths = write_run(SMALL, tmp_path, run=faulty)
    assert run == generate_run(SMALL)
    assert len(paths) == SMALL.world_size - 1 and not any("_rank0_" in path.name for path in paths)
    (path,) = [path for path in paths if "_rank3_" in path.name]
    assert parse_file(path)[record_index(fault)] == faulty[3][record_index(fault)] != run[3][record_index(fault)]


# -- whole-run changes --------------------------------------------------------------------------


def test_slow_down_stage_stretches_that_stage_only_and_time_still_runs_forward(run: Run) -> None:
    slower = slow_down_stage(run, 2, 1.5)
    assert_time_runs_forward(SMALL, slower)
    for rank, records in run.items():
        stage = SMALL.position(rank).stage
        for old, new in zip(records, slower[rank], strict=True):
            assert untimed(old) == untimed(new)
            assert ticks(new.duration) == (round(ticks(old.duration) * 1.5) if stage == 2 else ticks(old.duration))


def test_drop_layer_collective_pair_removes_one_forward_and_its_backward_twin_everywhere(run: Run) -> None:
    layer = 5  # stage 2 holds layers 4 and 5
    dropped = drop_layer_collective_pair(SMALL, run, layer)
    for rank, records in run.items():
        stage = SMALL.position(rank).stage
        for old, new in zip(records, dropped[rank], strict=True):
            lost = len(old.sub_operations) - len(new.sub_operations)
            assert lost == (1 if stage == 2 and old.op in ("forward_step", "backward_step") else 0)
            assert all(sub in old.sub_operations for sub in new.sub_operations)
    forward = next(r for r in dropped[SMALL.rank(2, 0, 0)] if r.op == "forward_step")
    original = next(r for r in run[SMALL.rank(2, 0, 0)] if r.op == "forward_step")
    assert original.sub_operations[3] not in forward.sub_operations  # layer 5 is the stage's second: its MLP all-reduce


def test_the_simai_workload_written_for_a_run_checks_clean_and_follows_aicb(tmp_path: Path) -> None:
    path = write_workload(SMALL, tmp_path / "workload.txt")
    report = check([str(path)], CheckOptions())
    assert report.files[0].format == "simai-workload" and report.findings == []
    rows = [r for r in parser("simai-workload").parse(enumerate(path.read_text(encoding="utf-8").splitlines(), 1)) if r.kind == "layer_row"]
    layers = [r for r in rows if r.name in ("attention_layer", "mlp_layer")]
    assert len(layers) == 2 * SMALL.layers_per_stage * SMALL.micro_batches  # one pipeline stage, as AICB writes
    assert {(r.fwd_comm_size, r.ig_comm_size) for r in layers} == {(2 * SMALL.micro_batch_size * SMALL.seq * SMALL.hidden,) * 2}


def test_a_long_optprime_run_grown_from_the_sample_is_valid(tmp_path: Path) -> None:
    log = tmp_path / "long.log"
    steps = write_long_run(log, 0.2)
    assert steps > 20  # more than the sample's
    report = check([str(log)], CheckOptions(trace_format="optprime-log"))
    assert [f.code for f in report.findings] == ["TL221"]
