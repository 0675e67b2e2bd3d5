"""optprime-log: the seed, a failed run, every record kind, interleaving, attribution, precise errors."""

from __future__ import annotations

import dataclasses
import math
from collections import defaultdict
from itertools import groupby
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, reject, settings
from hypothesis import strategies as st
from lark.exceptions import UnexpectedInput

from lint.formats import detect
from lint.formats.optprime_log import parser as optprime_log
from lint.formats.optprime_log.parser import Parser as OptprimeLogParser
from lint.formats.optprime_log.parser import detect as claims_optprime_log
from lint.formats.optprime_log.records import (
    RECORD_TYPES,
    SETTINGS,
    C10LogRecord,
    ChildFailedRecord,
    ConfigRecord,
    DeathSignalRecord,
    DeviceMesh,
    EpochProgressRecord,
    ExceptionRecord,
    LayerTimingRecord,
    LogRecord,
    OtherRecord,
    ProcessGroupsRecord,
    PythonLogRecord,
    PythonWarningRecord,
    RankPrefixRecord,
    Record,
    SpecialNodesRecord,
    TimeElapsedRecord,
    TorchLogRecord,
    UsageErrorRecord,
    layer_position,
)
from lint.formats.optprime_log.summary import OptprimeLog
from lint.models.common import SyntaxProblem
from lint.models.dump import dump_record
from tests.narrow import each, typed_parser
from tests.render import render_optprime
from tests.shared_corpus import corpus_files

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SEED_002 = FIXTURES / "seeds" / "002_cbcb88115115ad29.txt"
FAILED_RUN = FIXTURES / "optprime" / "failed_run.log"
PARSER = typed_parser("optprime-log", OptprimeLogParser)


def lines_of(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def parse_lines(lines: list[str]) -> list[Record | SyntaxProblem]:
    return list(PARSER.parse(enumerate(lines, 1)))


def on_line(items: list[Record | SyntaxProblem], number: int) -> list[tuple[str, int, int | None]]:
    return [(item.kind, item.column, item.rank) for item in items if item.line == number]


SEED = parse_lines(lines_of(SEED_002))
FAILED = parse_lines(lines_of(FAILED_RUN))


@pytest.mark.parametrize(
    ("line", "old", "new", "number"),
    [
        (31, "1: [1]", "1: [{}]", "9223372036854775808"),  # stage2rank's map
        (29, "[0, 1, 2, 3,", "[0, 1, {}, 3,", "9" * 5000),  # a mesh's ranks, past Python's digit limit
    ],
    ids=["stage2rank", "mesh-ranks"],
)
def test_an_integer_past_an_int64_inside_a_literal_is_a_finding_at_it(line: int, old: str, new: str, number: str) -> None:
    lines = lines_of(SEED_002)
    lines[line - 1] = lines[line - 1].replace(old, new.format(number), 1)
    (problem,) = [item for item in parse_lines(lines) if isinstance(item, SyntaxProblem)]
    assert (problem.line, problem.column) == (line, lines[line - 1].index(number) + 1)
    assert problem.message.startswith(f"expected integers of 64 bits, found '{number[:40]}") and problem.message.endswith("which overflows a 64-bit integer")


# -- the real sample ------------------------------------------------------------------------------


def test_seed_has_no_syntax_problem_and_no_foreign_text() -> None:
    assert SEED and not [item for item in SEED if isinstance(item, SyntaxProblem | OtherRecord)]


@pytest.mark.parametrize("path", [SEED_002, FAILED_RUN], ids=["seed-002", "failed-run"])
def test_every_line_is_the_concatenation_of_its_records(path: Path) -> None:
    lines = lines_of(path)
    items = parse_lines(lines)
    for number, group in groupby(items, key=lambda item: item.line):
        records = each(Record, group)
        assert "".join(render_optprime(record) for record in records) == lines[number - 1], number
        columns = [record.column for record in records]
        assert columns == sorted(set(columns))


def test_seed_two_timing_headers_on_one_line_and_their_layers_attributed_by_value() -> None:
    assert on_line(SEED, 373) == [("timing_header", 1, 0), ("timing_header", 80, 3)]
    pairs = {
        number: [(item.rank, item.step, item.layer, item.column) for item in each(LayerTimingRecord, (item for item in SEED if item.line == number))]
        for number in (375, 377, 379)
    }
    assert pairs == {
        375: [(0, 2, "embed", 1), (3, 2, "5", 54)],
        377: [(0, 2, "0", 1), (3, 2, "6", 52)],
        379: [(0, 2, "1", 1), (3, 2, "7", 52)],
    }


def test_seed_special_nodes_blocks_split_mid_line() -> None:
    assert on_line(SEED, 293) == [("special_nodes", 1, 6), ("cross_ref_header", 222, 4), ("special_nodes", 282, 7)]
    assert on_line(SEED, 296) == [("separator", 1, None), ("separator", 75, None)]
    assert on_line(SEED, 298) == [("special_nodes", 1, 4), ("cross_ref_header", 222, 3)]
    assert on_line(SEED, 301) == [("cross_ref_header", 1, 0), ("special_nodes", 61, 3)]
    assert on_line(SEED, 311) == [("special_nodes", 1, 1), ("special_nodes", 222, 5)]
    special = each(SpecialNodesRecord, (item for item in SEED if item.kind == "special_nodes"))
    assert sorted(each(int, (item.rank for item in special))) == list(range(8))
    assert special[0].nodes["getitem_3"] == (1, 7) and special[0].nodes["submod_0"] == (0, 1)


def test_seed_every_layer_group_belongs_to_its_stage_in_every_step() -> None:
    groups: dict[int, dict[int, list[str]]] = defaultdict(lambda: defaultdict(list))
    for item in SEED:
        if isinstance(item, LayerTimingRecord):
            assert item.rank is not None and item.step is not None, item  # every layer group of the seed is attributed
            groups[item.rank][item.step].append(item.layer)
    expected = {0: ["embed", "0", "1"], 7: ["13", "14", "15", "lm_head"], **{r: [str(2 * r - 1), str(2 * r), str(2 * r + 1)] for r in range(1, 7)}}
    assert {rank: dict(steps) for rank, steps in groups.items()} == {rank: {step: layers for step in range(1, 21)} for rank, layers in expected.items()}


def test_seed_c10d_warnings_carry_rank_and_message() -> None:
    warnings = each(C10LogRecord, (item for item in SEED if item.kind == "c10_log"))
    assert len(warnings) == 16 and sorted(each(int, {w.rank for w in warnings})) == list(range(8))
    last = warnings[-1]
    assert (last.line, last.column, last.rank, last.level, last.source, last.source_line) == (1014, 9, 1, "W", "ProcessGroupNCCL.cpp", 1250)
    assert last.message is not None and last.message.startswith("Warning: WARNING: process group has NOT been destroyed")


SUMMARY = OptprimeLog.from_records(SEED)


def test_seed_summary() -> None:
    assert SUMMARY.config == {
        "parameters": 1235814400,
        "world_size": 8,
        "ir": "IR_Anal.SEQUENTIAL",
        "gas": 32,
        "gbs": 32,
        "mbs": 1,
        "tp": 1,
        "dp": 1,
        "pp": 8,
        "gpus_per_server": 8,
        "model_class": "LlamaForCausalLM",
        "split_method": "simple",
        "data_size": 10334,
        "nbatches": 323,
    }
    assert SUMMARY.stage2rank == {stage: [stage] for stage in range(8)}
    assert SUMMARY.ranks_seen == SUMMARY.completed_ranks == list(range(8))
    assert SUMMARY.elapsed_seconds == 37.576 and not SUMMARY.failures and SUMMARY.syntax_problems == 0
    assert [(e.epoch, e.batch, e.batches) for e in SUMMARY.epochs] == [(1, batch, 323) for batch in range(1, 21)]
    steps = defaultdict(list)
    for step in SUMMARY.steps:
        steps[step.rank].append(step.step)
    assert steps == {rank: list(range(1, 21)) for rank in range(8)} and SUMMARY.unattributed_layers == 0


def test_seed_holds_the_invariants_formats_md_lists() -> None:
    names = ("world_size", "pp", "dp", "tp", "gbs", "gas", "mbs", "nbatches", "data_size")
    config = dict(zip(names, each(int, (SUMMARY.config[name] for name in names)), strict=True))
    stage2rank = SUMMARY.stage2rank
    assert stage2rank is not None
    assert config["world_size"] == config["pp"] * config["dp"] * config["tp"]
    assert config["gbs"] == config["gas"] * config["mbs"] * config["dp"]
    assert config["nbatches"] == math.ceil(config["data_size"] / config["gbs"])
    full_ops: dict[tuple[int, str], int] = defaultdict(int)
    for step in SUMMARY.steps:
        assert step.rank in stage2rank[step.stage]
        order = [layer_position(name) for name in step.layers]
        assert order == sorted(order)
        for name, total, ops, avg in zip(step.layers, step.total_ms, step.ops, step.avg_ms, strict=True):
            assert abs(total / ops - avg) <= 0.0005 + 1e-9
            if name in ("embed", "lm_head"):
                assert ops == config["gas"]
            full_ops[(step.step, name)] += ops
    assert {ops for (_, name), ops in full_ops.items() if name not in ("embed", "lm_head")} == {256}
    for epoch in SUMMARY.epochs:
        assert math.exp(epoch.loss - 0.005) <= epoch.ppl <= math.exp(epoch.loss + 0.005)


# -- the failed run -------------------------------------------------------------------------------


def test_failed_run_fixture_parses_cleanly() -> None:
    assert not [item for item in FAILED if isinstance(item, SyntaxProblem)]


def test_failed_run_summary_names_every_sign_of_failure() -> None:
    summary = OptprimeLog.from_records(FAILED)
    assert summary.ranks_seen == [0, 1, 3] and summary.completed_ranks == [0]
    assert [(f.kind, f.line, f.rank) for f in summary.failures] == [
        ("non_finite_loss", 87, None),
        ("traceback", 96, 3),
        ("exception", 101, 3),
        ("closing_signal", 103, None),
        ("closing_signal", 104, None),
        ("closing_signal", 105, None),
        ("child_failed", 106, None),
        ("traceback", 107, None),
        ("exception", 113, None),
        ("failure_title", 115, None),
        ("failure_exitcode", 122, 1),
        ("failure_signal", 124, 1),
        ("failure_exitcode", 131, 3),
    ]
    messages = {f.line: f.message for f in summary.failures}
    assert messages[101] == "RuntimeError: loss is nan"
    assert messages[113] == "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: "
    assert [item.child_failed for item in FAILED if isinstance(item, ExceptionRecord)] == [False, True]
    assert messages[124] == "signal 15 (SIGTERM) received by pid 4251"
    assert summary.epochs[1].loss != summary.epochs[1].loss  # nan, kept as such
    assert summary.config == {
        "parameters": 656512,
        "world_size": 4,
        "gbs": 16,
        "gas": 4,
        "pp": 2,
        "tp": 2,
        "ir": "IR_Anal.PARALLEL",
        "model_class": "LlamaForCausalLM",
        "split_method": "llama-tp-split",
        "data_size": 64,
        "nbatches": 4,
    }
    assert [(s.rank, s.step) for s in summary.steps] == [(3, 1), (0, 1), (0, 2), (3, 2)]


def test_failed_run_fields_of_a_failure_take_the_rank_of_its_rank_line() -> None:
    report = [(item.kind, item.rank) for item in FAILED if item.line >= 118 and item.kind.startswith("failure_")]
    assert report == [
        ("failure_index", None),
        ("failure_field", None),
        ("failure_field", None),
        ("failure_rank", 1),
        ("failure_exitcode", 1),
        ("failure_field", 1),
        ("failure_signal", 1),
        ("failure_section", None),
        ("failure_index", None),
        ("failure_field", None),
        ("failure_field", None),
        ("failure_rank", 3),
        ("failure_exitcode", 3),
        ("failure_field", 3),
        ("failure_field", 3),
    ]


def test_failed_run_worker_traceback_lines_carry_the_prefix_rank() -> None:
    assert on_line(FAILED, 97) == [("rank_prefix", 1, 3), ("traceback_frame", 10, 3)]
    (exception,) = [item for item in FAILED if item.line == 101 and isinstance(item, ExceptionRecord)]
    assert (exception.name, exception.message, exception.rank) == ("RuntimeError", "loss is nan", 3)


def test_failed_run_epoch_line_interleaved_after_a_timing_header() -> None:
    assert on_line(FAILED, 87) == [("timing_header", 1, 0), ("epoch_progress", 80, None)]


# -- variants -------------------------------------------------------------------------------------


def parse_line(text: str) -> list[Record | SyntaxProblem]:
    return list(PARSER.parse([(1, text)]))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("DeviceMesh([0, 1, 2, 3], mesh_dim_names=('pp',))", DeviceMesh("pp", "list", ranks=(0, 1, 2, 3), dim_names=("pp",))),
        ("DeviceMesh('cuda', [1], mesh_dim_names=('tp',))", DeviceMesh("pp", "device_list", device="cuda", ranks=(1,), dim_names=("tp",))),
        ("DeviceMesh((pp=2), 'cpu', stride=(2,))", DeviceMesh("pp", "shape", device="cpu", dim_names=("pp",), sizes=(2,), stride=(2,))),
        ("DeviceMesh((2,), 'cpu', stride=(1,), Mesh: [0, 1])", DeviceMesh("pp", "shape", device="cpu", ranks=(0, 1), sizes=(2,), stride=(1,))),
    ],
    ids=["torch-2.3", "torch-2.4", "torch-2.6", "torch-2.6-debug"],
)
def test_device_mesh_repr_of_each_torch_version(text: str, expected: DeviceMesh) -> None:
    line = f"> [rank:2] pp group:{text}"
    (record,) = each(ProcessGroupsRecord, parse_line(line))
    assert record.rank == 2 and record.groups == [expected]
    assert render_optprime(record) == line


def test_upstream_settings_map_to_the_same_names() -> None:
    lines = ["total process count: 4", "batch size: 16", "num of mbatch: 4", "> Data Parallel Size: 2", ">>>> self.tpl.tp_mesh.size(): 2"]
    assert [(r.setting, r.value) for r in each(ConfigRecord, parse_lines(lines))] == [("world_size", 4), ("gbs", 16), ("gas", 4), ("dp", 2), ("tp", 2)]
    assert set(SETTINGS.values()) >= {"world_size", "gas", "gbs", "mbs", "tp", "dp", "pp", "data_size", "nbatches"}


def test_the_demos_micro_batch_size_is_its_number_of_micro_batches_not_a_second_batch_size() -> None:
    # eungyeonglee-dev/aicomp demo/pp_train_gpt2.py: print(f"batch size: {batch_size}") then
    # print(f"micro batch size: {micro_batch_size}"), micro_batch_size being the num_mb it passes to Optimus_p
    lines = ["batch size: 32", "micro batch size: 1"]
    assert [(r.setting, r.value) for r in each(ConfigRecord, parse_lines(lines))] == [("gbs", 32), ("gas", 1)]


def test_a_rank_prefix_gives_its_rank_to_the_rest_of_the_line() -> None:
    items = parse_line("[rank2]:W0105 09:12:01.512000 4250 torch/_dynamo/utils.py:12] recompiling")
    assert [(i.kind, i.column, i.rank) for i in items] == [("rank_prefix", 1, 2), ("torch_log", 9, 2)]
    prefix, log = items
    assert isinstance(prefix, RankPrefixRecord) and isinstance(log, TorchLogRecord)
    assert (prefix.spaced, log.message, log.source_line) == (False, "recompiling", 12)


def test_python_logging_layout_and_the_failure_it_reports() -> None:
    items = parse_line("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 2 (pid: 77) of binary: /usr/bin/python3")
    assert [i.kind for i in items] == ["python_log", "child_failed"]
    log, failed = items
    assert isinstance(log, PythonLogRecord) and isinstance(failed, ChildFailedRecord)
    assert log.message is None and (failed.exitcode, failed.local_rank, failed.pid) == (-9, 2, 77)


@pytest.mark.parametrize("signal", ["Signals.SIGTERM", "15"])
def test_death_signal_as_each_python_version_prints_it(signal: str) -> None:
    (record,) = each(DeathSignalRecord, parse_line(f"Received {signal} death signal, shutting down workers"))
    assert record.kind == "death_signal" and record.signal == signal


@pytest.mark.parametrize(
    ("line", "program", "message"),
    [
        (
            "driver.py: error: argument --mode: invalid choice: 'zb' (choose from 'gpipe', '1f1b')",
            "driver.py",
            "argument --mode: invalid choice: 'zb' (choose from 'gpipe', '1f1b')",
        ),
        ("torchrun: error: the following arguments are required: training_script", "torchrun", "the following arguments are required: training_script"),
    ],
)
def test_argparse_rejecting_a_command_line(line: str, program: str, message: str) -> None:
    (record,) = each(UsageErrorRecord, parse_line(line))
    assert (record.program, record.message, record.rank) == (program, message, None)


def test_a_python_warning_and_its_message() -> None:
    # Lib/warnings.py formatwarning: f"{filename}:{lineno}: {category.__name__}: {message}"
    (record,) = each(PythonWarningRecord, parse_line("/venv/lib/python3.11/site-packages/torch/optim/lr_scheduler.py:654: UserWarning: use `get_last_lr()`."))
    assert (record.path, record.source_line, record.category, record.message) == (
        "/venv/lib/python3.11/site-packages/torch/optim/lr_scheduler.py",
        654,
        "UserWarning",
        "use `get_last_lr()`.",
    )


def test_a_warning_of_another_rank_between_a_records_text_and_its_newline() -> None:
    # print() writes its text and its newline apart: another process's stderr warning lands in between
    items = parse_line(" ### Rank:3, clean_module_memory .../venv/torch/utils/data/dataloader.py:431: UserWarning: This DataLoader will create 4 workers.")
    assert [(i.kind, i.column) for i in items] == [("clean_module_memory", 1), ("python_warning", 37)]
    assert each(PythonWarningRecord, items[1:])[0].message == "This DataLoader will create 4 workers."


@pytest.mark.parametrize(
    ("first", "second", "kinds"),
    [
        # a mistral run on CPU (torch 2.13.0, 2 ranks): rank 1's text, then rank 0's, then both newlines
        (">> split method: simple", "stage2rank = {0: [0], 1: [1]}", ["config", "stage2rank"]),
        (">> model class name: LlamaForCausalLM", "CPU mode is used.", ["config", "device_mode"]),
        (" ***** stage:3 >>  from_:getitem_8, to_:submod_3", "nbatches=20", ["stage_wiring", "config"]),
        (">> split method: llama-tp-split", "SEQUENTIAL mode >> [rank:5, local_world_size:8]", ["config", "mode_banner"]),
    ],
)
def test_a_record_ending_in_a_name_glued_to_another_ranks_record(first: str, second: str, kinds: list[str]) -> None:
    # print() writes its text and its newline apart: another rank's record can follow with nothing between,
    # and the name's greedy match would take its start (`simplestage2rank = {...`)
    items = parse_line(first + second)
    assert [(i.kind, i.column) for i in items] == [(kinds[0], 1), (kinds[1], len(first) + 1)]
    assert [render_optprime(record) for record in each(Record, items)] == [first, second]


@pytest.mark.parametrize(
    ("first", "second", "kind"),
    [
        # the CPU driver with --preserve-output (and the examples): a last-stage rank's
        # f">> [RANK:{rank} ###################### output: {len(output)} micro-batch outputs #############"
        # while rank 0 prints 'Time elapsed: %.3f sec ', or another last-stage rank its progress line
        ("Time elapsed: 7.387 sec ", ">> [RANK:3 ###################### output: 2 micro-batch outputs #############", "time_elapsed"),
        (
            "| epoch   1 |     5/   10 batches | lr 0.00 | ms/batch 1022.35 | loss  6.57 | ppl   712.73",
            ">> [RANK:3 ###################### output: 2 micro-batch outputs #############",
            "epoch_progress",
        ),
        # ai-computing/aicomp examples on GPU: f"[rank:{rank} >> synchronize..." on every rank after the barrier
        ("[rank:0 >> barrier ...", "[rank:1 >> synchronize...", "barrier"),
        # IR.py _solve_milp without scipy: every rank of a PARALLEL split prints it while the others print records
        (
            "length:429, modcnt:34, num_stage:4, segment:9",
            "[IR.milp_split] scipy is required for MILP partitioning. Install it with `pip install scipy>=1.9` or use split_method='simple'.",
            "split_stats",
        ),
        (" rank=0 ...", "[IR.hierarchical_split] super-graph: |V|=6 (4 blocks + 2 singletons) |E|=15 super_edge_weight=0.09 MiB", "rank_notice"),
        (">> split method: simple", ">> [IR] Exporting in TRAINING mode (for correct SDPA kernel selection)", "config"),
        # IR_Anal.SINGLE: comm.py Comm.setup_ctrl_group and opti_pri.py Optimus_p.__init__, every rank
        ("CPU mode is used.", "[rank:1] ir_analyze=IR_Anal.SINGLE", "device_mode"),
        ("[rank:0] torch version 2.3.1 or higher --> OK", "[rank:1], setup_ctrl_group completed", "env_check"),
        (" ### Rank:0, name:submod_0, move submod_0 to cuda:0", "<< [Rank:1, Stage:1] <== Received submod_1 ...", "module_placement"),
        (" ### Rank:1, name:submod_1, move submod_1 to cuda:1", " [Rank:0] >>>> Send output node[:output] to rank:1 ...", "module_placement"),
        (" ### Rank:1, name:submod_1, move submod_1 to cuda:1", "[Rank:0] >> Send IR partition to rank:2 ...", "module_placement"),
        (" ### Rank:2, name:submod_2, move submod_2 to cuda:2", "[Rank:3, Stage:3] <<<< Received output node[output] ...", "module_placement"),
        (" *********** rank:0 cross-referenced nodes *****************", " ### Rank:1, local_rank:1 - after broadcast_object_list.. ", "cross_ref_header"),
        # opti_pri.py prepare_tp_group on a torch.export graph, every rank
        (">>>> self.tpl.tp_mesh.size(): 2", "> TP adjust GQA expand: shape[1]=2 -> 1", "config"),
        ("rank: 1, #### last layer id:3", "> TP adjust reshape (export) layer_0 proj=0: shape[2]=4 -> 2", "last_layer"),
        # schedule.py with force_free_mem / swap_opt_in_fwdbwd and display_mem, every rank while the last stage prints progress
        (
            "| epoch   1 |    10/  100 batches | lr 0.00 | ms/batch 242.99 | loss  6.57 | ppl   710.21",
            "###[rank:1], remain[:1.2], total[:80.0], cached[:3.0] ... forcefully free memory",
            "epoch_progress",
        ),
        # demo/pp_train_gpt2.py's f"Time elapsed: {tock - tick:.3f} sec" (no trailing space) then another rank's print
        ("Time elapsed: 3.357 sec", " >>> [rank:1], load optimizer ...", "time_elapsed"),
        # eungyeonglee-dev/aicomp: opti_pri.py f"[rank:{rank}] SEQUENTIAL mode IR processing ...",
        # f"[rank:{local_rank} model class name: …" and examples/pp_train_llama4.py's gathered per-rank reports (rank 0)
        ("> [rank:0] pp group:DeviceMesh('cuda', [0, 4], mesh_dim_names=('pp',))", "[rank:1] SEQUENTIAL mode IR processing ...", "process_groups"),
        (">>> Using GPU ... cuda:0", "[rank:1 model class name: LlamaForCausalLM", "device_use"),
        (" rank=1 ...", "===== DEBUG_DATASET: per-rank dataset snapshot proof =====", "rank_notice"),
        ("[rank:3 stage:3] transformer-block(module) forward time (no send/recv) - step 1", "[rank:2] len=87599 sha1(first 4)=0123abcd", "timing_header"),
    ],
)
def test_a_record_glued_to_another_ranks_print_of_free_text(first: str, second: str, kind: str) -> None:
    # print() writes its text and its newline apart: the writers' own prints that are no records, printed by one rank
    # while others print records, can follow a whole record on its line; the record ends there
    items = parse_line(first + second)
    assert [(i.kind, i.column) for i in items] == [(kind, 1), ("other", len(first) + 1)]
    assert each(OtherRecord, items[1:])[0].text == second


@pytest.mark.parametrize(
    ("first", "second", "kinds"),
    [
        ("> TP adjust view (HFTracer) layer_4 proj=2: args[3]=2 -> 1", "  layer[4]: total=50.666ms, ops=128, avg/op=0.396ms", ["tp_adjust", "layer_timing"]),
        (
            "  time      : 2026-11-27_07:00:00",
            "| epoch   1 |    20/  323 batches | lr 0.00 | ms/batch 1686.55 | loss  4.50 | ppl    89.96",
            ["failure_field", "epoch_progress"],
        ),
    ],
)
def test_free_text_at_a_records_end_stops_where_another_ranks_record_begins(first: str, second: str, kinds: list[str]) -> None:
    items = parse_line(first + second)
    assert [(i.kind, i.column) for i in items] == [(kinds[0], 1), (kinds[1], len(first) + 1)]
    assert [render_optprime(record) for record in each(Record, items)] == [first, second]


def test_free_text_at_a_records_end_keeps_what_is_no_whole_record() -> None:
    line = "> TP adjust view (HFTracer) layer_4 proj=2  layer[4]: total=50.666ms trailing"
    assert [(i.kind, i.column) for i in parse_line(line)] == [("tp_adjust", 1)]


@pytest.mark.parametrize(
    ("line", "column"),
    [
        (">> split method: simple = {0: [0]}", 24),  # no record follows the name
        (">> split method: simplestage2rank = {0: [0]", 34),  # the record that follows is broken
    ],
)
def test_a_name_followed_by_no_complete_record_is_still_a_syntax_error(line: str, column: int) -> None:
    problems = [(item.column, item.message) for item in parse_line(line) if isinstance(item, SyntaxProblem)]
    assert problems == [(column, "expected end of line, found a space")]


@pytest.mark.parametrize(
    ("line", "value"),
    [
        (" num_stage: 2", "2"),
        (" num_blocks = 6", "6"),
        (" layers_per_stage = [0, 3, 6]", "[0, 3, 6]"),
        (" stage_layers = [[0, 1, 2], [3, 4, 5]]", "[[0, 1, 2], [3, 4, 5]]"),
    ],
)
def test_llama_tp_splits_plan_on_the_first_stage(line: str, value: str) -> None:
    # ai-computing/aicomp opt_prime/IR.py, llama_tp_split: once free text, so another rank's record after it was a TL001
    assert [(i.kind, getattr(i, "value", None)) for i in parse_line(line)] == [("split_plan", value)]
    assert [(i.kind, i.column) for i in parse_line("CPU mode is used." + line)] == [("device_mode", 1), ("split_plan", 18)]
    assert [(i.kind, i.column) for i in parse_line(line + "CPU mode is used.")] == [("split_plan", 1), ("device_mode", len(line) + 1)]


def test_an_error_line_of_another_program_is_foreign() -> None:
    assert [i.kind for i in parse_line("make: error: no rule")] == ["other"]


def test_an_exception_line_counts_only_where_a_traceback_of_that_process_ends() -> None:
    assert [i.kind for i in parse_line("RuntimeError: boom")] == ["other"]
    items = parse_lines(
        [
            "[rank1]: Traceback (most recent call last):",
            "Note: foreign",
            '[rank1]:   File "x.py", line 3, in f',
            "[rank2]: RuntimeError: not in a traceback",
            "[rank1]: RuntimeError: boom",
            "[rank1]: KeyboardInterrupt",
        ]
    )
    kinds = [(i.line, i.kind, i.rank) for i in items if i.kind != "rank_prefix"]
    assert kinds == [(1, "traceback", 1), (2, "other", None), (3, "traceback_frame", 1), (4, "other", 2), (5, "exception", 1), (6, "other", 1)]


def test_foreign_text_before_a_record_of_another_process_is_split_off() -> None:
    items = parse_line("Loading checkpoint shards: 100%|###| 2/2[rank:3 stage:3] transformer-block(module) forward time (no send/recv) - step 4")
    assert [(i.kind, i.column) for i in items] == [("other", 1), ("timing_header", 41)]
    assert isinstance(items[0], OtherRecord) and items[0].text == "Loading checkpoint shards: 100%|###| 2/2"


@pytest.mark.parametrize(
    "record",
    ["stage2rank = {0: [0], 1: [1]}", "[rank:6 >> barrier ...", "nbatches=20", "CPU mode is used.", "length:485, modcnt:34, num_stage:2, segment:17"],
)
def test_foreign_text_before_any_record_ranks_print_concurrently_is_split_off(record: str) -> None:
    foreign = "  sample[0]: 'In 1059, the right of electing the pope'"
    items = parse_line(foreign + record)
    assert [(i.column, render_optprime(i)) for i in each(Record, items)] == [(1, foreign), (len(foreign) + 1, record)]


def test_foreign_text_with_a_record_look_alike_inside_is_not_split() -> None:
    line = "[rank0]:     layer[idx](x)  layer[1]: total=1.000ms, ops=1, avg/op=1.000ms trailing"
    assert [(i.kind, i.column) for i in parse_line(line)] == [("rank_prefix", 1), ("other", 10)]


@pytest.mark.parametrize(
    "line",
    [
        'lines = ["[rank1]: Traceback (most recent call last):", "Note"]',
        'print("[rank1]:[W1224 10:59:21.368045924 ProcessGroupNCCL.cpp:x] hi")',
    ],
)
def test_a_process_prefix_inside_foreign_text_counts_only_before_a_whole_record(line: str) -> None:
    assert [item.kind for item in parse_line(line)] == ["other"]


def test_step_one_headers_on_one_line_are_matched_to_layers_by_position() -> None:
    header = "[rank:{} stage:{}] transformer-block(module) forward time (no send/recv) - step 1"
    layer = "  layer[{}]: total=1.000ms, ops=1, avg/op=1.000ms"
    lines = [header.format(0, 0) + header.format(1, 1), "", layer.format("embed") + layer.format(2), layer.format(0) + layer.format(3)]
    layers = [(i.layer, i.rank) for i in parse_lines(lines) if isinstance(i, LayerTimingRecord)]
    assert layers == [("embed", 0), ("2", 1), ("0", 0), ("3", 1)]


def test_layers_sharing_a_line_go_to_the_stage_that_reported_them_before() -> None:
    header = "[rank:{} stage:{}] transformer-block(module) forward time (no send/recv) - step {}"
    layer = "  layer[{}]: total=1.000ms, ops=1, avg/op=1.000ms"
    first_step = [header.format(0, 0, 1), *(layer.format(k) for k in ("embed", 0, 1)), header.format(3, 3, 1), *(layer.format(k) for k in (5, 6, 7))]
    # rank 3's groups come first on each shared line: position alone would give them to rank 0
    second_step = [header.format(0, 0, 2) + header.format(3, 3, 2), *(layer.format(a) + layer.format(b) for a, b in ((5, "embed"), (6, 0), (7, 1)))]
    layers = [(i.layer, i.rank, i.step) for i in parse_lines(first_step + second_step) if isinstance(i, LayerTimingRecord) and i.line > 8]
    assert layers == [("5", 3, 2), ("embed", 0, 2), ("6", 3, 2), ("0", 0, 2), ("7", 3, 2), ("1", 0, 2)]


def test_a_layer_group_without_any_header_stays_unattributed() -> None:
    (record,) = each(LayerTimingRecord, parse_line("  layer[3]: total=1.000ms, ops=1, avg/op=1.000ms"))
    assert record.rank is None and record.step is None
    assert OptprimeLog.from_records([record]).unattributed_layers == 1


# -- precise errors -------------------------------------------------------------------------------

HEADER = "[rank:3 stage:3] transformer-block(module) forward time (no send/recv) - step 2"
EPOCH = "| epoch   1 |     1/  323 batches | lr 0.00 | ms/batch 7289.55 | loss 21.49 | ppl 2152814925.50"


def test_epoch_progress_in_the_variants_the_example_scripts_print() -> None:
    (scientific,) = each(EpochProgressRecord, parse_line(EPOCH.replace("lr 0.00", "lr 3.00e-05")))  # 'lr {:.2e}' of the fine-tuning scripts
    assert (scientific.lr, scientific.ms_per_batch, scientific.elapsed_s) == (3e-05, 7289.55, None)
    (elapsed,) = each(EpochProgressRecord, parse_line(EPOCH.replace("ms/batch 7289.55", "elapsed  7.29")))  # 'elapsed {:5.2f}' instead of ms/batch
    assert (elapsed.ms_per_batch, elapsed.elapsed_s, elapsed.loss) == (None, 7.29, 21.49)


def test_the_fx_node_profilers_stage_lines_are_not_timing_records() -> None:
    lines = [
        "[rank:0 stage:0] NOTE: skipping DDP wrapping during FX-node profiling",
        "[rank:1 stage:1] Layer profile saved to: /tmp/out/llama_A100_tp1_stage1.npy",
        "[rank:1 stage:1] transformer-block(FX nodes) forward time (no send/recv) - step 1 (fx_graph_nodes=9, timed_nodes=7)",
        "  layer[0]: total=10.500ms, fx_nodes=12",
    ]
    assert [item.kind for line in lines for item in parse_line(line)] == ["other"] * 4


def test_run_completed_with_a_closed_bracket() -> None:
    # demo/pp_train_gpt2.py prints f"[rank:{optimus_p.get_rank()}] run completed ..."
    assert [(item.kind, item.rank) for item in parse_line("[rank:3] run completed ...")] == [("run_completed", 3)]


def test_time_elapsed_with_or_without_the_trailing_space() -> None:
    # the examples print 'Time elapsed: %.3f sec ' % …, demo/pp_train_gpt2.py f"Time elapsed: {…:.3f} sec"
    assert [
        (item.kind, item.seconds) for line in ("Time elapsed: 37.576 sec ", "Time elapsed: 37.576 sec") for item in each(TimeElapsedRecord, parse_line(line))
    ] == [
        ("time_elapsed", 37.576),
        ("time_elapsed", 37.576),
    ]


@pytest.mark.parametrize(
    ("line", "at", "message", "rank"),
    [
        (HEADER.replace("stage:3", "stage:x"), "x]", "expected a non-negative integer, found 'x'", 3),
        (HEADER.replace(" (no send/recv)", ""), " - step", "expected ' (no send/recv)', found a space", 3),
        ("  layer[13]: total=114.49ms, ops=32, avg/op=3.578ms", "114.49ms", "expected milliseconds with 3 decimals such as 114.492, found '114.49ms'", None),
        ("  layer[13]: total=114.492ms, ops=32, avg/op=3.578", None, "expected 'ms', found end of line", None),
        (
            EPOCH.replace("loss 21.49", "loss 21.4"),
            "21.4 ",
            "expected a number with 2 decimals right-aligned in 5 characters such as ' 6.84' or '  nan', found '21.4'",
            None,
        ),
        (EPOCH.replace("    1/", "   1/"), "   1/", "expected a batch number right-aligned in 5 characters such as '    1', found a space", None),
        (EPOCH.replace("ms/batch", "elapsd"), " | elapsd", "expected one of ' | elapsed ' or ' | ms/batch ', found a space", None),
        ("> GAS: 3x", "x", "expected end of line, found 'x'", None),
        ("> IR: IR_Anal.FOO", "IR_Anal", "expected IR_Anal.SEQUENTIAL, IR_Anal.PARALLEL or IR_Anal.SINGLE, found 'IR_Anal.FOO'", None),
        ("[rank:0, run completed ..", " ..", "expected ' ...', found a space", 0),
        ("Time elapsed: 37.576 sec!", "!", "expected ' ', found '!'", None),
        ("> [rank:1] pp group:DeviceMesh('cuda', [0, 1), tp group:DeviceMesh('cuda', [1])", "), tp", "expected one of ', ' or ']', found ')'", 1),
        (" ### Rank:0, name:submod_0, move submod_0 to gpu:0", "gpu", "expected one of 'cpu' or 'cuda:', found 'gpu'", 0),
        ("[rank1]:[W1224 10:59:21.368045924 ProcessGroupNCCL.cpp:x] hi", "x]", "expected a non-negative integer, found 'x'", 1),
        ("   special_nodes: {'getitem_3': (1, 7)", None, "expected one of ', ' or '}', found end of line", None),
    ],
)
def test_a_line_that_starts_like_a_known_kind_and_breaks_it(line: str, at: str | None, message: str, rank: int | None) -> None:
    problems = [item for item in parse_line(line) if isinstance(item, SyntaxProblem)]
    column = len(line) + 1 if at is None else line.index(at) + 1
    assert [(p.code, p.column, p.message, p.rank) for p in problems] == [("TL001", column, message, rank)]


def test_a_broken_second_record_is_reported_where_it_breaks_and_the_first_is_kept() -> None:
    line = HEADER.replace("rank:3 stage:3", "rank:0 stage:0") + HEADER.replace(" (no send/recv)", "")
    items = parse_line(line)
    assert [item.kind for item in items] == ["timing_header", "syntax"]
    assert items[1].column == len(HEADER) + HEADER.index(" - step") - len(" (no send/recv)") + 1 and items[1].rank == 3


@pytest.mark.parametrize(
    "line",
    [
        "| epoch | batch | loss |",
        "batch size: 16 per GPU",
        "  layer[0]: shape=(2, 3)",
        "Time elapsed: 3s",
        "[rank:0] model version 3 loaded",
        "[rank:0] loading checkpoint",
        ">>> Using cache found in /root/.cache/torch",
        "Received 5 bytes",
        "Failures: 3 tests",
        "[1]: first",
        "test_x FAILED in 3s",
        "Sending process group init",
        "NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>",
        "100%|##########| 323/323 [01:02<00:00,  5.2it/s]",
        "/usr/lib/python3/site-packages/torch/x.py:12: UserWarning: TypedStorage is deprecated",
        "============ 3 passed in 0.1s ============",
        "length: 5",
        " rank=0 started",
        "  rank:0,  third metadata_range",
        " >> rank:0 starting",
        "> [rank:0] loading",
        "n.op is undefined",
        "RuntimeError: boom",
        "Traceback: none",
        "> World size is 8",
        "ERROR: something went wrong",
        "  time: 5",
        "stage2rank: none",
        "I0105 starting",
        "[W something]",
        "    layer[idx](x)",
        "Exception ignored in: <function Foo.__del__>",
    ],
)
def test_foreign_lines_are_kept_not_reported(line: str) -> None:
    items = parse_line(line)
    assert items and not [item for item in items if isinstance(item, SyntaxProblem)]


# -- detection ------------------------------------------------------------------------------------


def test_detect_from_content() -> None:
    assert detect(lines_of(SEED_002)[:200]) == "optprime-log"
    assert detect(lines_of(FAILED_RUN)[:5]) == "optprime-log"
    assert detect(["> GAS: 32", "GPU mode is used."]) == "optprime-log"
    assert detect(["> GAS: 32", "> GBS: 32"]) is None  # one kind of line only
    assert detect(["> GAS: 3x", "[rank:3 stage:x] transformer-block(module) broken"]) == "optprime-log"  # broken lines of two kinds: report them


@pytest.mark.parametrize(
    "path",
    sorted((FIXTURES / "seeds").glob("00[0134]_*")) + corpus_files("simai_workload")[:6],
    ids=lambda p: p.name[:40],
)
def test_detect_does_not_claim_other_formats(path: Path) -> None:
    assert not claims_optprime_log(lines_of(path)[:200])


@pytest.mark.parametrize(
    "head",
    [
        ["Traceback (most recent call last):", '  File "x.py", line 1, in <module>', "ValueError: x", "-" * 40],
        ["# README", "", "Some text with batch size: 16 in it.", "INFO:root:started"],
        ["rank:7:forward_step(stage_id=3,batch_id=0)"],
        [],
    ],
)
def test_detect_does_not_claim_arbitrary_text(head: list[str]) -> None:
    assert not claims_optprime_log(head)


def _torchrun_failure(script: str, frames: list[str]) -> list[str]:
    """A console log of a torchrun job whose workers failed at start-up: torchrun's warning, the workers'
    tracebacks, and torchrun's failure report (torch/distributed/elastic/multiprocessing/errors)."""
    report = ["=" * 60, f"{script} FAILED", "-" * 60, "Failures:", "  <NO_OTHER_FAILURES>", "-" * 60, "Root Cause (first observed failure):"]
    report += ["[0]:", "  time      : 2025-05-13_16:37:31", "  host      : node7", "  rank      : 0 (local_rank: 0)", "  exitcode  : 1 (pid: 2500983)"]
    return [
        "W0513 16:37:11.803000 2500900 torch/distributed/run.py:792] *****************************************",
        "Traceback (most recent call last):",
        *frames,
        "AssertionError",
        *report,
        "=" * 60,
    ]


def test_a_torchrun_failure_report_alone_is_not_an_optprime_log() -> None:
    """A Megatron job launched by torchrun fails with the same report: only a sign of OptimusPrime makes it one."""
    megatron = _torchrun_failure(
        "/work/Megatron-LM/pretrain_gpt.py",
        ['  File "/work/Megatron-LM/megatron/training/arguments.py", line 282, in validate_args', "    assert not args.bf16"],
    )
    assert not claims_optprime_log(megatron)
    evidence = claims_optprime_log(megatron)
    assert evidence.seen.endswith("all of them torchrun's, and no line names OptimusPrime (opt_prime, its training scripts)")
    assert not claims_optprime_log([line.replace("pretrain_gpt.py", "pretrain_llama.py") for line in megatron])
    optimus = _torchrun_failure(
        "/workspace/aicomp/opt_prime/pp_train_llama.py", ['  File "/workspace/aicomp/opt_prime/pp_train_llama.py", line 30, in <module>']
    )
    assert detect(optimus) == "optprime-log"
    assert detect([line.replace("/workspace/aicomp/opt_prime/", "/work/") for line in optimus]) == "optprime-log"  # the script named
    assert detect([line.replace("/workspace/aicomp/opt_prime/pp_train_llama.py", "train_llama.py") for line in optimus]) == "optprime-log"


def _launcher_debug(count: int) -> list[str]:
    """torchrun's own log lines at LOGLEVEL=DEBUG (its agent's rendezvous and worker set-up), as many as asked."""
    return [f"I1127 08:30:32.{index:06d} 27078 torch/distributed/elastic/agent/server/api.py:525] [default] rendezvous step {index}" for index in range(count)]


def test_detect_looks_past_the_launchers_own_log_lines() -> None:
    """A console whose first 200 lines are torchrun's debug lines is recognised from OptimusPrime's first record on."""
    log = lines_of(SEED_002)
    assert detect(_launcher_debug(400) + log) == "optprime-log"
    evidence = claims_optprime_log(_launcher_debug(400) + log)
    assert evidence.seen == "190 of 200 non-empty lines hold opt_prime records, of 18 kinds"  # the 200 lines from the first record


def test_detect_looks_past_a_preamble_only_of_the_launchers_lines() -> None:
    """Other text before the records (a shell script's output, a notebook) is not looked past: it might be a note
    that quotes a log, and without the launcher's lines nothing says a run's console follows."""
    log = lines_of(SEED_002)
    notes = [f"step {index}: see the log below" for index in range(400)]
    assert detect(notes + log) is None
    assert not claims_optprime_log(notes + log)
    # Nor does a console of the launcher's lines alone become one, however far it is read.
    assert not claims_optprime_log(_launcher_debug(1000))


# -- generated records: render -> parse is the identity; the fast path is the grammar ---------------

_ints = st.integers(min_value=0, max_value=10**6)
_names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,10}", fullmatch=True)
_words = st.from_regex(r"[a-z][a-z0-9 .,;()/_-]{0,30}", fullmatch=True)
_ms = st.integers(0, 10**7).map(lambda n: n / 1000)
_hundredths = st.integers(0, 10**8).map(lambda n: n / 100)
_readings = _hundredths | st.sampled_from([math.nan, math.inf])

_FIELDS: dict[str, st.SearchStrategy[object]] = {
    "level": st.sampled_from("DIWECF"),
    "time": st.from_regex(r"[0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{1,9}", fullmatch=True),
    "source": st.from_regex(r"[a-z_/]{1,12}\.(py|cpp)", fullmatch=True),
    "logger": st.from_regex(r"torch(\.[a-z_]{1,8}){0,3}", fullmatch=True),
    "message": _words,
    "package": _names,
    "version": st.from_regex(r"[0-9](\.[0-9]{1,2}){0,2}", fullmatch=True),
    "partitioner": st.sampled_from(["hierarchical_split", "milp_split"]),
    "post_split": st.booleans(),
    "path": st.from_regex(r"/[a-z_/]{1,15}\.py", fullmatch=True),
    "function": st.none() | _names | st.just("<module>"),
    "ignored_in": st.sampled_from(["<function _MultiProcessingDataLoaderIter.__del__ at 0x7f2a1c0b9d30>"]),
    "status": st.just("OK"),
    "role": st.sampled_from(["default", "trainer"]),
    "exit_signal": st.none() | st.sampled_from(["SIGTERM", "SIGKILL"]),
    "device": st.sampled_from(["GPU", "CPU"]),
    "device_index": st.none() | _ints,
    "detail": st.none() | _words.map(lambda t: " " + t),
    "stages": st.dictionaries(_ints, st.lists(_ints, min_size=1, max_size=3).map(tuple), max_size=3),
    "mode": st.sampled_from(["SEQUENTIAL", "PARALLEL", "SINGLE"]),
    "listing": st.sampled_from(["first", "second", "placement"]),
    "ranges": st.lists(st.tuples(_ints, _names), max_size=3).map(tuple),
    "split": st.booleans(),
    "op": _names,
    "name": _names,
    "target": _names | st.just("<built-in function getitem>"),
    "args": st.sampled_from(["()", "(submod_0, 0)", "({'logits': submod_7},)", "(input_ids,)"]),
    "input_nodes": st.lists(_names, max_size=3).map(tuple),
    "key": _names,
    "module": _names,
    "moved_module": _names,
    "nodes": st.dictionaries(_names, st.tuples(_ints, _ints), max_size=3),
    "layer": st.sampled_from(["embed", "lm_head"]) | _ints.map(str),
    "total_ms": _ms,
    "avg_ms": _ms,
    "lr": _hundredths,
    "ms_per_batch": _hundredths | st.just(math.nan),
    "elapsed_s": _hundredths,
    "loss": _readings,
    "ppl": _readings,
    "seconds": _ms,
    "binary": st.from_regex(r"/[a-z/]{1,15}", fullmatch=True),
    "signal": st.sampled_from(["SIGTERM", "SIGKILL", "SIGSEGV"]),
    "script": st.from_regex(r"[a-z_]{1,10}\.py", fullmatch=True),
    "exitcode": st.integers(-64, 255),
    "spaced": st.booleans(),
    "root_cause": st.booleans(),
    "text": st.sampled_from([" ----------", "==========", " " + "*" * 73, ">> " + "-" * 60]),
    "value": st.none() | _words,
}
_KIND_FIELDS: dict[str, dict[str, st.SearchStrategy[object]]] = {
    "config": {"label": st.sampled_from(sorted(SETTINGS))},
    "split_plan": {
        "label": st.sampled_from([" num_stage: ", " num_blocks = ", " layers_per_stage = ", " stage_layers = "]),
        "value": st.one_of(
            _ints.map(str),
            st.lists(_ints, max_size=4).map(str),
            st.lists(st.lists(_ints, max_size=3), max_size=3).map(str),
        ),
    },
    "python_log": {"level": st.sampled_from(["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"])},
    "fx_node": {"listing": st.sampled_from(["graph", "placement"])},
    "stage_wiring": {"source": _names, "target": _names},
    "death_signal": {"signal": st.sampled_from(["Signals.SIGTERM", "15"])},
    "python_warning": {"category": st.sampled_from(["UserWarning", "FutureWarning", "DeprecationWarning"])},
    "usage_error": {"program": st.sampled_from(["driver.py", "pp_train_llama.py", "torchrun"]), "message": _words},
    "failure_field": {"key": st.sampled_from(["time", "host", "error_file", "traceback"])},
    "exception": {"name": st.from_regex(r"([a-z]{1,5}\.){0,2}[A-Z][A-Za-z]{0,10}Error", fullmatch=True), "message": st.none() | _words},
    "other": {"text": _words.map(lambda t: "~" + t)},
    "tp_head_adjust": {
        "marker": st.sampled_from([">", "> >", ">>", ">> >> ", ">>>", ">>> >>>"]),
        "projection": st.sampled_from("qkv"),
        "arrow": st.sampled_from(["==>", "===>"]),
    },
}
_RANK_IN_TEXT = frozenset(spec.record_type.kind for rule, spec in PARSER._records.items() if "rank" in PARSER.grammar.field_names(rule))


def _config_value(label: str) -> st.SearchStrategy[object]:
    setting = SETTINGS[label]
    if setting == "ir":
        return st.sampled_from(["IR_Anal.SEQUENTIAL", "IR_Anal.PARALLEL", "IR_Anal.SINGLE"])
    if setting in ("model_class", "split_method"):
        return st.from_regex(r"[A-Za-z_][A-Za-z0-9_.\-]{0,12}", fullmatch=True)
    return _ints


@st.composite
def records(draw: st.DrawFn) -> Record:
    record_type = draw(st.sampled_from(RECORD_TYPES))
    kind = record_type.kind
    # field -> drawn value, of whatever type the record type's field has: Any, as the record's constructor takes them
    values: dict[str, Any] = {"line": 1, "column": 1, "rank": draw(_ints) if kind in _RANK_IN_TEXT else None}
    for spec in dataclasses.fields(record_type):
        if spec.name in values or (kind, spec.name) == ("layer_timing", "step"):  # attributed, not printed
            continue
        if kind == "config" and spec.name == "value":
            strategy = _config_value(values["label"])
        elif kind == "process_groups":
            strategy = st.lists(meshes(), min_size=1, max_size=3)
        else:
            strategy = _KIND_FIELDS.get(kind, {}).get(spec.name, _FIELDS.get(spec.name, _ints))
        values[spec.name] = draw(strategy)
    if kind == "epoch_progress":  # a script prints ms/batch or the seconds elapsed, never both
        values["ms_per_batch" if draw(st.booleans()) else "elapsed_s"] = None
    return record_type(**values)


@st.composite
def meshes(draw: st.DrawFn) -> DeviceMesh:
    style = draw(st.sampled_from(["legacy_list", "list", "device_list", "shape"]))
    names = draw(st.none() | st.lists(st.sampled_from(["pp", "dp", "tp"]), min_size=1, max_size=2).map(tuple))
    ranks = draw(st.lists(_ints, max_size=4).map(tuple))
    if style == "legacy_list":
        return DeviceMesh(draw(_names), style, ranks=ranks)
    if style != "shape":
        return DeviceMesh(draw(_names), style, device=draw(st.sampled_from(["cuda", "cpu"])) if style == "device_list" else None, ranks=ranks, dim_names=names)
    sizes = tuple(draw(_ints) for _ in names or (0,))
    return DeviceMesh(draw(_names), style, device="cpu", ranks=draw(st.none() | st.just(ranks)), dim_names=names, sizes=sizes, stride=sizes)


def reparsed(record: Record) -> Record | SyntaxProblem:
    """``record`` rendered and parsed alone; an exception line only means one after a traceback."""
    lines = ["Traceback (most recent call last):", render_optprime(record)] if record.kind == "exception" else [render_optprime(record)]
    *_, item = parse_lines(lines)
    return dataclasses.replace(item, line=1) if isinstance(item, Record) else item


def fast_rule(text: str) -> str | None:
    """The rule whose start and derived regex take ``text`` without Lark (None: foreign text)."""
    start = PARSER._starts.match(text)
    if start is None:
        return "exception" if PARSER._patterns["exception"].fullmatch(text) else None
    rule = start.lastgroup
    assert rule is not None  # each start is a group named after its rule
    match = PARSER._patterns[rule].match(text)
    return rule if match is not None else f"rejected by {rule}"


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records())
def test_generated_records_render_and_parse_back(record: Record) -> None:
    if isinstance(record, LogRecord):  # torch_log, c10_log and python_log
        assert record.message is not None  # records() draws a log's message from _words
        assume(PARSER._starts.match(record.message) is None)
    assert dump_record(reparsed(record)) == dump_record(record)
    rule = fast_rule(render_optprime(record))
    assert (rule is None) == (record.kind == "other")
    if rule is not None:
        assert PARSER._records[rule].record_type is type(record)


@st.composite
def mutated_lines(draw: st.DrawFn) -> str:
    line = draw(st.sampled_from(lines_of(SEED_002) + lines_of(FAILED_RUN)))
    for _ in range(draw(st.integers(1, 3))):
        position = draw(st.integers(0, len(line)))
        char = draw(st.sampled_from(list(" []:,.()'{}|=-*>x0123456789\tén")))
        line = draw(
            st.sampled_from([line[:position] + char + line[position:], line[:position] + line[position + 1 :], line[:position] + char + line[position + 1 :]])
        )
    return line


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_lines())
def test_mutated_seed_lines_yield_records_or_problems_in_column_order(line: str) -> None:
    items = parse_line(line)
    assert all(isinstance(item, Record | SyntaxProblem) for item in items)
    columns = [item.column for item in items]
    assert columns == sorted(columns) and all(1 <= column <= len(line) + 1 for column in columns)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_lines())
def test_the_derived_regex_accepts_exactly_what_the_grammar_accepts(line: str) -> None:
    start = PARSER._starts.match(line)
    if start is None:
        reject()
    rule = start.lastgroup
    assert rule is not None  # each start is a group named after its rule
    try:
        PARSER.grammar.lark.parse(line, start=rule)
        accepted = True
    except UnexpectedInput:
        accepted = False
    assert (PARSER._patterns[rule].fullmatch(line) is not None) == accepted


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_arbitrary_text_never_raises(text: str) -> None:
    for item in PARSER.parse(enumerate(text.split("\n"), 1)):
        assert isinstance(item, Record | SyntaxProblem)


def test_every_record_rule_has_a_derived_regex_with_a_group_per_field() -> None:
    # The regexes are derived when a record of the rule is first met, and records are built from their groups:
    # a grammar change that made a rule's regex underivable, or put a field where it gets no group (inside a
    # repetition), must fail here, not in a user's log.
    for rule, spec in PARSER._records.items():
        assert set(spec.fields_named) <= set(PARSER._patterns[rule].groupindex), rule


def test_foreign_text_is_split_alike_wherever_it_sits_and_its_memo_stays_bounded() -> None:
    parser = OptprimeLogParser()
    foreign = "  self.check_worker_number_rationality()"
    record = "[rank:6 >> barrier ..."
    alone = [(item.kind, item.column) for item in parser.parse([(1, foreign + record)])]
    prefixed = [(item.kind, item.column) for item in parser.parse([(1, "[rank1]:" + foreign + record)])]
    assert alone == [("other", 1), ("barrier", len(foreign) + 1)]
    assert prefixed == [("rank_prefix", 1), ("other", 10), ("barrier", len(foreign) + 9)]  # the prefix takes one space
    list(parser.parse(enumerate((f"foreign text number {n}" for n in range(3 * optprime_log._CONCURRENT_MEMO_SIZE)), 1)))
    assert len(parser._concurrent_memo) <= optprime_log._CONCURRENT_MEMO_SIZE


_WARNING_TEXT = st.lists(st.sampled_from(["a", ".py", ":", " ", "<", ">", "1", ": ", "UserWarning: ", "/x", "\t"]), max_size=14).map("".join)


@given(_WARNING_TEXT, st.integers(0, 20))
def test_the_warning_search_finds_what_the_regex_search_finds(text: str, position: int) -> None:
    # _search_warning stands in for the start rule's regex search, which takes quadratic time on long lines
    pattern = PARSER._concurrent[optprime_log._WARNING_INDEX]
    position = min(position, len(text))
    found = pattern.search(text, position)
    assert optprime_log._search_warning(pattern, text, position) == (None if found is None else found.start())


@pytest.mark.parametrize("line", ["x.py" * 50_000 + "Warning: ", ">> split method: " + "a" * 200_000 + " = {"])
def test_a_long_line_without_a_space_is_read_in_linear_time(line: str) -> None:
    # both took minutes (the warning's path searched from every position; every end of a huge name tried)
    kinds = {item.kind for item in parse_line(line)}
    assert kinds in ({"other"}, {"syntax"})
