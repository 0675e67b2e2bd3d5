"""megatron-trace: the seeds, every layout variant, precise errors, and the derived fast path."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lint.formats import detect
from lint.formats.megatron_trace.parser import Parser
from lint.formats.megatron_trace.records import DdpGradCommRecord, OpRecord, SubOperation, SubOperations, tensor_bytes
from lint.models.common import SyntaxProblem, TextMemo
from tests.narrow import each, typed_parser

SEEDS = Path(__file__).resolve().parents[1] / "fixtures" / "seeds"
SEED_000 = SEEDS / "000_14848477538be528.txt"
SEED_001 = SEEDS / "001_0e8fa2e5d125871b.txt"
PARSER = typed_parser("megatron-trace", Parser)


def parse_line(text: str) -> OpRecord | DdpGradCommRecord | SyntaxProblem:
    (item,) = list(PARSER.parse([(1, text)]))
    return item


def seed_lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


# -- the real samples ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [SEED_000, SEED_001], ids=lambda p: p.name[:3])
def test_seed_parses_without_syntax_problems(seed: Path) -> None:
    records = list(PARSER.parse(enumerate(seed_lines(seed), 1)))
    assert records and all(isinstance(r, OpRecord) and r.variant == "V1" for r in records)
    assert {r.rank for r in records} == {7}


def test_seed_000_facts_from_formats_md() -> None:
    records = {r.op: r for r in each(OpRecord, PARSER.parse(enumerate(seed_lines(SEED_000), 1)))}
    forward, backward = records["forward_step"], records["backward_step"]
    layer_collectives = [s for s in forward.sub_operations if s.func_name == "linear_fwd"]
    assert len(layer_collectives) == 20 and {s.input__shape for s in layer_collectives} == {(4096, 5120)}
    assert sum(1 for s in backward.sub_operations if s.func_name == "normlinear_bwd") == 20
    assert records["loss_func"].description == "loss_func, calculate and DP allreduce for the last stage"
    assert records["dp_allreduce"].description == "model_chunk.finish_grad_sync(), All-reduce / reduce-scatter across DP replicas"
    assert records["recv_forward"].nbytes == 2048 * 2 * 5120 * 4
    assert records["get_batch"].sub_operations[2].input__dtype == "torch.bool"


def test_seed_001_simulation_placeholder_and_missing_func_name() -> None:
    records = each(OpRecord, PARSER.parse(enumerate(seed_lines(SEED_001), 1)))
    placeholder = records[2]
    assert placeholder.op == "dp_allreduce" and placeholder.is_placeholder and placeholder.timestamp == 0
    all_to_all = records[0].sub_operations[1]
    assert all_to_all.comm_func == "all_to_all" and all_to_all.func_name is None and all_to_all.group == "exp"


def test_detect_from_content_not_name() -> None:
    assert detect(seed_lines(SEED_000)[:3]) == "megatron-trace"
    assert detect(["", "rank:0:forward_step(stage_id=0"]) == "megatron-trace"
    assert detect(["rank 0 forward"]) is None


# -- the layout variants ------------------------------------------------------------------------

V0 = "rank:3:forward_step(stage_id=1,batch_id=None,mg_state=warmup,duration=None,description=not started, yet (V0),group_kind=None)"
V2 = (
    "rank:3:send_forward(stage_id=1,batch_id=1,stage=steady,duration=1.50,group_kind=pp,input__shape=[2048, 1, 4096],"
    "input__dtype=torch.bfloat16,timestamp=12.25,description=p2p, to the next stage,sub_operations=[])"
)
V3 = (
    "rank:3:dp_allreduce(stage_id=1,batch_id=0,mg_state=finalize,duration=0,description=None,group_kind=dp,cmd_uid=17,"
    "op_semantics=metadata_placeholder,finalize_base_duration_ms=3.5,input__shape=[1024],input__dtype=torch.float32,"
    "timestamp=0,sub_operations=[])"
)
DDP = (
    "rank:3:ddp_grad_comm(comm_uid=c-4,iter=2,stage_id=1,mg_state=finalize,group_kind=dp,comm_func=allreduce,buffer_id=0,"
    "bucket_id=3,bucket_offset=0,bucket_numel=4096,bucket_numel_unpadded=4000,param_count=12,trigger_cmd_uid=17,"
    "trigger_op=backward_step,trigger_batch_id=7,trigger_timestamp_ms=100.5,launch_timestamp_ms=100.75,"
    "launch_source=hook,timing_domain=cuda_event,metadata_only=False,status=completed,"
    "completion_observed_timestamp_ms=None,completion_source=wait,wait_cmd_uid=None,wait_start_timestamp_ms=101.0,"
    "wait_end_timestamp_ms=102.0,logical_stream_role=comm,grad_dtype=torch.float32,data_parallel_world_size=4,"
    "duration=1.25,timestamp=102.0,sub_operations=[])"
)
# The stage-keyed scheduling plan (mg_scheduling/mg_scheduling_plan.py): "stage:S:", ", " between keys, no rank.
SP = (
    "stage:2:dp_allreduce(batch_id=0, mg_state=finalize, duration=None, description=finish_grad_sync(), over DP, "
    "group_kind=dp, input__shape=None, input__dtype=None)"
)
SP_P2P = (
    "stage:2:recv_forward(batch_id=3, mg_state=help, duration=None, description=None, group_kind=pp, input__shape=[1024, 1, 256], input__dtype=torch.float16)"
)


def test_v0_not_started_layout() -> None:
    record = parse_line(V0)
    assert isinstance(record, OpRecord) and record.variant == "V0"
    assert record.batch_id is None and record.duration is None and record.timestamp is None
    assert record.description == "not started, yet (V0)" and record.sub_operations == []


def test_v2_profiler_layout_moves_description_and_renames_mg_state() -> None:
    record = parse_line(V2)
    assert isinstance(record, OpRecord) and record.variant == "V2"
    assert record.mg_state == "steady" and record.description == "p2p, to the next stage"
    assert record.duration == 1.5 and record.input__dtype == "torch.bfloat16"


def test_v3_adds_command_metadata_and_marks_placeholders() -> None:
    record = parse_line(V3)
    assert isinstance(record, OpRecord) and record.variant == "V3"
    assert record.cmd_uid == "17" and record.finalize_base_duration_ms == 3.5 and record.is_placeholder


def test_stage_keyed_scheduling_plan_layout() -> None:
    record = parse_line(SP)
    assert isinstance(record, OpRecord) and record.variant == "SP"
    assert (record.rank, record.stage_id, record.op, record.batch_id) == (None, 2, "dp_allreduce", 0)
    assert record.description == "finish_grad_sync(), over DP" and record.group_kind == "dp"
    p2p = parse_line(SP_P2P)
    assert isinstance(p2p, OpRecord) and p2p.mg_state == "help" and p2p.nbytes == 1024 * 256 * 2
    assert p2p.timestamp is None and p2p.sub_operations == []


def test_stage_keyed_plan_is_detected_and_its_errors_located() -> None:
    assert detect([SP, SP_P2P]) == "megatron-trace"
    problem = parse_line(SP_P2P.replace(", mg_state=", ",mg_state="))
    assert isinstance(problem, SyntaxProblem) and problem.column == len("stage:2:recv_forward(batch_id=3") + 1


def test_v3_ddp_grad_comm_record() -> None:
    record = parse_line(DDP)
    assert isinstance(record, DdpGradCommRecord)
    assert (record.bucket_numel, record.metadata_only, record.completion_observed_timestamp_ms) == (4096, False, None)
    assert record.wait_cmd_uid is None and record.grad_dtype == "torch.float32"


def test_ddp_keys_under_another_op_name_are_rejected() -> None:
    problem = parse_line(DDP.replace(":ddp_grad_comm(", ":dp_allreduce("))
    assert isinstance(problem, SyntaxProblem) and "must be named ddp_grad_comm" in problem.message


def test_unknown_sub_operation_keys_are_kept() -> None:
    line = seed_lines(SEED_000)[3].replace("comm_func=allreduce'", "comm_func=allreduce,stream=2,async_op=True'")
    record = parse_line(line)
    assert isinstance(record, OpRecord) and record.sub_operations[0].extra == {"stream": "2", "async_op": "True"}


# -- precise errors -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "at", "message"),
    [
        ("stage_id=3", "stage_id=x", "x,batch_id", "expected a non-negative integer, found 'x'"),
        ("mg_state=steady", "mg_sate=steady", "mg_sate", "expected one of 'mg_state=' or 'stage=', found 'mg_sate'"),
        ("dtype=torch.float32", "dtype=torch float32", " float32", "expected ',', found a space"),
        ("sub_operations=[]", "sub_operations=[x]", "x])", "expected one of \"'\" or ']', found 'x'"),
        (
            "stage_id=3",
            "stage_id=9223372036854775808",
            "9223372036854775808,",
            "expected a non-negative integer, found '9223372036854775808', which overflows a 64-bit integer",
        ),
        (
            "stage_id=3",
            f"stage_id={'9' * 5000}",
            "9" * 5000,  # beyond Python's own limit on converting digits
            f"expected a non-negative integer, found '{'9' * 40}…', which overflows a 64-bit integer",
        ),
        (
            "[2048, 2, 5120]",
            "[4294967296, 4294967296]",
            "[4294967296",
            "expected a tensor shape, found '[4294967296, 4294967296]', whose element count overflows a 64-bit integer",
        ),
    ],
)
def test_errors_name_column_found_and_expected(old: str, new: str, at: str, message: str) -> None:
    line = (
        "rank:7:send_backward(stage_id=3,batch_id=0,mg_state=steady,duration=2.9,description=None,group_kind=pp,"
        "input__shape=[2048, 2, 5120],input__dtype=torch.float32,timestamp=4509234231.5,sub_operations=[])"
    )
    bad = line.replace(old, new)
    problem = parse_line(bad)
    assert isinstance(problem, SyntaxProblem) and problem.code == "TL001" and problem.rank == 7
    assert (problem.column, problem.message) == (bad.index(at) + 1, message)


def test_a_rank_beyond_an_int64_is_a_finding_on_no_rank() -> None:
    line = seed_lines(SEED_000)[0].replace("rank:7:", f"rank:{'9' * 5000}:")
    problem = parse_line(line)
    assert isinstance(problem, SyntaxProblem) and (problem.column, problem.rank) == (6, None)
    assert problem.message.endswith("which overflows a 64-bit integer")
    assert parse_line(line.replace("stage_id=3", "stage_id=x")).rank is None


def test_error_inside_a_sub_operation_points_into_the_list() -> None:
    line = seed_lines(SEED_000)[1]
    bad = line.replace("input__dtype=torch.bool", "input__dtype=torch.bool)")
    problem = parse_line(bad)
    assert isinstance(problem, SyntaxProblem)
    assert problem.column == bad.index("torch.bool)") + len("torch.bool") + 1


def test_one_bad_line_does_not_hide_the_next() -> None:
    lines = seed_lines(SEED_000)
    items = list(PARSER.parse([(1, lines[0][:-1]), (2, lines[1])]))
    assert isinstance(items[0], SyntaxProblem) and items[0].message.endswith("found end of line")
    assert isinstance(items[1], OpRecord) and items[1].line == 2


def test_steps_that_make_the_same_calls_share_them_and_keep_their_own_times() -> None:
    forward = seed_lines(SEED_000)[2]
    start = forward.index(",duration=", forward.index("trace_src_func=")) + len(",duration=")
    later = forward[:start] + "12345.5" + forward[forward.index(",", start) :]
    first, second = parse_line(forward), parse_line(later)
    assert isinstance(first, OpRecord) and isinstance(second, OpRecord)
    assert second.sub_operations.calls is first.sub_operations.calls
    assert second.sub_operations.durations[0] == 12345.5 != first.sub_operations.durations[0]
    assert second.sub_operations.durations[1:] == first.sub_operations.durations[1:]
    slowly = PARSER._parse_slowly(1, later)
    assert isinstance(slowly, OpRecord)
    assert second.sub_operations[0].duration == 12345.5 and second.sub_operations == slowly.sub_operations


@pytest.mark.parametrize("timing", ["duration=1_0", "duration=0x1", "duration= 1", "timestamp=Infinity", "timestamp=1.5e"])
def test_a_sub_operation_time_the_grammar_rejects_is_a_syntax_error(timing: str) -> None:
    """Python's float() reads all of these; the grammar's NUMBER does not, and the grammar decides."""
    line = seed_lines(SEED_000)[2]
    key = timing.split("=")[0]
    start = line.index(f",{key}=") + 1
    bad = line[:start] + timing + line[line.index(",", start + len(key) + 1) :]
    assert isinstance(parse_line(line), OpRecord)  # its calls are known now: the bad time must still be caught
    problem = parse_line(bad)
    assert isinstance(problem, SyntaxProblem) and problem.code == "TL001"
    assert problem.column == PARSER._parse_slowly(1, bad).column


def test_a_sub_operation_key_named_like_a_time_goes_to_the_grammar() -> None:
    line = seed_lines(SEED_000)[3].replace("comm_func=allreduce'", "comm_func=allreduce,duration=1,timestamp=2'")
    assert parse_line(line) == PARSER._parse_slowly(1, line)


def test_remembered_lists_are_bounded_in_entries_and_characters() -> None:
    memo: TextMemo[int] = TextMemo(entries=3, characters=100)
    memo.remember("a" * 60, 1)
    assert memo.remember("b" * 60, 2) == 2 and list(memo) == ["b" * 60]  # 120 characters: emptied first
    for key in "xyz":
        memo.remember(key, 3)
    assert list(memo) == ["z"]  # the fourth entry empties it too


def test_message_size_follows_shape_and_dtype() -> None:
    assert tensor_bytes((4096, 5120), "torch.bfloat16") == 4096 * 5120 * 2
    assert tensor_bytes((8,), "int64") == 64
    assert tensor_bytes((8,), "torch.complex32x") is None
    assert tensor_bytes(None, "torch.float32") is None


# -- generated records: render -> parse is the identity, and both parse paths agree --------------

_names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,12}", fullmatch=True).filter(lambda s: s != "None")
_ints = st.integers(min_value=0, max_value=2**40)
_floats = st.floats(allow_nan=False, allow_infinity=False, width=64)
_dtypes = st.from_regex(r"(torch\.)?[a-z][a-z0-9_]{0,10}", fullmatch=True)
_shapes = st.lists(st.integers(min_value=0, max_value=2**15), max_size=4).map(tuple)  # at most 2**60 elements: an int64 holds them
_text = st.text(st.characters(min_codepoint=32, max_codepoint=0x2FF, exclude_characters="\x7f"), max_size=40)
_extra_keys = st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True).filter(
    lambda k: k not in {"input__shape", "input__dtype", "func_name", "group", "comm_func"}
)
_extra_values = st.from_regex(r"[^,'\[\]\n\r]{1,10}", fullmatch=True)

sub_operations = st.builds(
    SubOperation,
    trace_src_func=_names,
    duration=_floats,
    timestamp=_floats,
    input__shape=st.none() | _shapes,
    input__dtype=st.none() | _dtypes,
    func_name=st.none() | _names,
    group=st.none() | _names,
    comm_func=st.none() | _names,
    extra=st.none() | st.dictionaries(_extra_keys, _extra_values, min_size=1, max_size=2),
)


@st.composite
def op_records(draw: st.DrawFn) -> OpRecord:
    variant = draw(st.sampled_from(["V0", "V1", "V2", "V3", "SP"]))
    stop = {"V2": ",sub_operations=", "SP": ", group_kind="}.get(variant, ",group_kind=")
    description = draw(st.none() | _text.filter(lambda t: stop not in t and t != "None"))
    full = variant not in ("V0", "SP")
    tensor = variant != "V0"
    return OpRecord(
        line=1,
        column=1,
        variant=variant,
        rank=None if variant == "SP" else draw(_ints),
        op=draw(_names),
        stage_id=draw(_ints),
        batch_id=draw(st.none() | _ints),
        mg_state=draw(st.none() | _names),
        duration=draw(st.none() | _floats),
        description=description,
        group_kind=draw(st.none() | _names),
        input__shape=draw(st.none() | _shapes) if tensor else None,
        input__dtype=draw(st.none() | _dtypes) if tensor else None,
        timestamp=draw(_floats) if full else None,
        sub_operations=SubOperations.of(draw(st.lists(sub_operations, max_size=3)) if full else []),
        cmd_uid=draw(st.none() | st.from_regex(r"[A-Za-z0-9_.:\-]{1,8}", fullmatch=True).filter(lambda s: s != "None")) if variant == "V3" else None,
        op_semantics=draw(st.none() | _names) if variant == "V3" else None,
        finalize_base_duration_ms=draw(st.none() | _floats) if variant == "V3" else None,
    )


@st.composite
def ddp_records(draw: st.DrawFn) -> DdpGradCommRecord:
    # field -> drawn value, of whatever type the field has: Any, as the record's constructor takes them
    values: dict[str, Any] = {"line": 1, "column": 1}
    for spec in list(inspect.signature(DdpGradCommRecord).parameters.values()):
        if spec.name in values:
            continue
        kind = str(spec.annotation)
        if spec.name == "sub_operations":
            values[spec.name] = SubOperations.of(draw(st.lists(sub_operations, max_size=2)))
        elif kind == "bool":
            values[spec.name] = draw(st.booleans())
        elif "int" in kind:
            values[spec.name] = draw(_ints if "None" not in kind else st.none() | _ints)
        elif "float" in kind:
            values[spec.name] = draw(_floats if "None" not in kind else st.none() | _floats)
        elif spec.name.endswith("uid"):
            values[spec.name] = draw(st.from_regex(r"[A-Za-z0-9_.:\-]{1,8}", fullmatch=True).filter(lambda s: s != "None"))
        elif spec.name == "grad_dtype":
            values[spec.name] = draw(st.none() | _dtypes)
        else:
            values[spec.name] = draw(st.none() | _names)
    return DdpGradCommRecord(**values)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(op_records(), ddp_records()))
def test_generated_records_round_trip_through_both_paths(record: OpRecord | DdpGradCommRecord) -> None:
    line = PARSER.render(record)
    assert parse_line(line) == record
    assert PARSER._parse_slowly(1, line) == record


_mutation_alphabet = st.sampled_from(list(",=[]'()_: \t\x00éNone0123456789.-abcxyz"))


@st.composite
def mutated_seed_lines(draw: st.DrawFn) -> str:
    line = draw(st.sampled_from(seed_lines(SEED_000) + seed_lines(SEED_001) + [V0, V2, V3, DDP, SP, SP_P2P]))
    for _ in range(draw(st.integers(1, 3))):
        position = draw(st.integers(0, len(line)))
        action = draw(st.sampled_from(["insert", "delete", "replace"]))
        char = draw(_mutation_alphabet)
        if action == "insert":
            line = line[:position] + char + line[position:]
        elif action == "delete":
            line = line[:position] + line[position + 1 :]
        else:
            line = line[:position] + char + line[position + 1 :]
    return line


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_seed_lines())
def test_fast_path_accepts_exactly_what_the_grammar_accepts(line: str) -> None:
    fast = parse_line(line) if line else None
    if fast is None:
        return
    slow = PARSER._parse_slowly(1, line)
    assert fast == slow


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_arbitrary_text_never_raises(text: str) -> None:
    lines = [(n, part) for n, part in enumerate(text.split("\n"), 1)]
    for item in PARSER.parse(lines):
        assert isinstance(item, OpRecord | DdpGradCommRecord | SyntaxProblem)
