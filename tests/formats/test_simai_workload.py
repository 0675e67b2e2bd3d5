"""simai-workload: the seed and the shared corpus, every header generation and quirk, precise errors, round trips."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lint.formats import detect
from lint.formats.simai_workload import parser as simai_workload
from lint.formats.simai_workload.records import CHECKPOINT_KEYS, KINDS, SETTING_FIELDS, Header, LayerCount, LayerRow, TrailingText, WrappedRow
from lint.formats.simai_workload.summary import Workload
from lint.models.common import SyntaxProblem
from lint.models.dump import dump_record, load_record
from lint.read.source import Source
from tests.golden.regenerate import GOLDEN
from tests.narrow import each, typed_parser
from tests.render import render_simai
from tests.shared_corpus import corpus_files

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SEEDS = FIXTURES / "seeds"
SEED_004 = SEEDS / "004_e7a75019e7d30864.txt"
REAL_FILES = [SEED_004, *corpus_files("simai_workload"), *corpus_files("real", "simai-workload")]
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PARSER = typed_parser("simai-workload", simai_workload.Parser)
ITEM_TYPES = (Header, LayerCount, LayerRow, WrappedRow, TrailingText, SyntaxProblem)
Item = Header | LayerCount | LayerRow | WrappedRow | TrailingText | SyntaxProblem  # what the parser yields

GEN2_HEADER = "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8 ep: 1 pp: 2 ga: 4 all_gpus: 64 checkpoints: 0 checkpoint_initiates: 0"
ROW = "attention_layer\t-1\t3422000\tALLREDUCE\t33554432\t3422000\tALLREDUCE\t33554432\t1\tNONE\t0\t100"


def parse_file(path: Path) -> list[Item]:
    return list(PARSER.parse(Source(path, str(path)).lines()))


def parse_lines(*lines: str) -> list[Item]:
    return list(PARSER.parse(enumerate(lines, 1)))


def parse_header(text: str) -> Header | SyntaxProblem:
    item = parse_lines(text, "0")[0]
    assert isinstance(item, Header | SyntaxProblem)
    return item


def parse_rows(*rows: str, header: str = GEN2_HEADER) -> list[Item]:
    """The items the rows give in a file with this header and a matching row count."""
    return parse_lines(header, str(len(rows)), *rows)[2:]


def write(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "workload.txt"
    path.write_bytes(data)
    return path


# -- the real files ---------------------------------------------------------------------------------


@pytest.mark.parametrize("path", REAL_FILES, ids=lambda p: p.name[:60])
def test_real_files_parse_into_one_record_per_non_blank_line(path: Path) -> None:
    items = parse_file(path)
    workload = Workload.from_records(items)
    assert workload.header is not None and workload.declared_count is not None
    # The only syntax finding a real file gets is a row with extra columns, which is kept.
    problems = [item for item in items if isinstance(item, SyntaxProblem)]
    kept = {item.line for item in workload.rows if item.extra_columns}
    assert all(problem.code == "TL002" and problem.line in kept for problem in problems)
    # Text after the last row's columns shares its line.
    trailing = {item.line for item in items if isinstance(item, TrailingText)} - {row.line for row in workload.rows}
    row_lines = [text for _, text in Source(path, str(path)).lines() if text.strip(" \t")][2:]
    assert len(workload.rows) + len(trailing) == len(row_lines)
    assert len(workload.rows) == workload.declared_count  # every real file declares its rows right


LONG_ROW = "target_layer_0\t-1\t10\tNONE\t0\t10\tNONE\t0\t10\tNONE\t0\t10\t" + "\t".join(f"sha256:{n}" for n in range(5))


def test_a_row_with_extra_columns_is_reported_at_its_first_extra_column_and_kept() -> None:
    problem, row, _ = parse_rows(LONG_ROW, ROW)
    assert isinstance(problem, SyntaxProblem) and (problem.code, problem.column) == ("TL002", LONG_ROW.index("sha256:") + 1)
    assert problem.message == "expected 12 columns, found 17"
    assert isinstance(row, LayerRow) and (row.name, row.wg_update_time) == ("target_layer_0", 10)
    assert row.extra_columns == tuple(f"sha256:{n}" for n in range(5))


def test_extra_columns_of_the_last_declared_row_are_trailing_text() -> None:
    # SimAI closes the file after the last declared row's columns: the rest shifts nothing and is never read.
    first, last, rest = parse_rows(ROW, LONG_ROW)
    assert isinstance(first, LayerRow) and isinstance(last, LayerRow) and (last.name, last.extra_columns) == ("target_layer_0", ())
    start = LONG_ROW.index("sha256:")
    assert rest == TrailingText(4, start + 1, LONG_ROW[start:], last_read=4, declared=2)


def test_text_after_the_declared_rows_is_trailing_text_and_rows_there_stay_rows() -> None:
    _, _, row, extra, note = parse_lines(GEN2_HEADER, "1", ROW, ROW, "13197  *10 126152")
    assert isinstance(row, LayerRow) and isinstance(extra, LayerRow)
    assert isinstance(note, TrailingText) and note == TrailingText(5, 1, "13197  *10 126152", last_read=3, declared=1)
    assert render_simai(note) == "13197  *10 126152"


def test_golden_dumps_cover_the_seed() -> None:
    dumps = [json.loads(path.read_text(encoding="utf-8")) for path in (GOLDEN / "simai-workload").glob("*.json")]
    assert any(dump["source"].endswith(SEED_004.name) for dump in dumps)


def test_seed_004_facts_from_formats_md() -> None:
    workload = Workload.from_records(parse_file(SEED_004))
    header = workload.header
    assert header is not None and (header.tp, header.pp, header.all_gpus, header.pp_comm) == (8, 4, 512, 20971520)
    assert header.key_order.index("pp_comm") < header.key_order.index("checkpoints")
    assert workload.declared_count == len(workload.rows) == 33
    assert {row.fwd_comm_size for row in workload.rows if row.name in ("attention_norm", "mlp_norm")} == {33554432}


def test_workload_document_survives_json() -> None:
    workload = Workload.from_records(parse_file(SEED_004))
    assert Workload.model_validate_json(workload.model_dump_json()) == workload


@pytest.mark.parametrize("path", REAL_FILES, ids=lambda p: p.name[:60])
def test_every_record_dumps_and_loads_back(path: Path) -> None:
    for item in parse_file(path):
        assert load_record(type(item), dump_record(item)) == item


# -- header generations -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            "HYBRID_TRANSFORMER_FWD_IN_BCKWD\tmodel_parallel_NPU_group: 8 checkpoints: 0 checkpoint_initiates: 0",
            {
                "tp": 8,
                "pp": None,
                "checkpoints": (),
                "checkpoint_initiates": (),
                "key_order": ("model_parallel_NPU_group", "checkpoints", "checkpoint_initiates"),
            },
            id="aicb-1-tp-only",
        ),
        pytest.param(GEN2_HEADER, {"tp": 8, "ep": 1, "pp": 2, "vpp": None, "ga": 4, "all_gpus": 64, "pp_comm": None}, id="aicb-2-parallel-sizes"),
        pytest.param(
            "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8 ep: 1 pp: 2 vpp: 20 ga: 4 all_gpus: 64 checkpoints: 0 checkpoint_initiates: 0 pp_comm: 0",
            {"vpp": 20, "pp_comm": 0, "pp_comm_colon": True},
            id="aicb-3-4-vpp-and-pp-comm",
        ),
        pytest.param(
            "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8 ep: 1 pp: 2 vpp: 20 ga: 4 all_gpus: 64 checkpoints: 0 checkpoint_initiates: 0 pp_comm: 2621440.0",
            {"pp_comm": 2621440.0},
            id="aicb-5-float-pp-comm",
        ),
        pytest.param(
            "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ep: 2 pp: 1 all_gpus: 4 mode: 1 vpp: 1 ga: 1 checkpoints: 0 checkpoint_initiates: 0 pp_comm: 0",
            {
                "ep": 2,
                "unknown": {"mode": "1"},
                "key_order": ("model_parallel_NPU_group", "ep", "pp", "all_gpus", "mode", "vpp", "ga", "checkpoints", "checkpoint_initiates", "pp_comm"),
            },
            id="aicb-6-inference",
        ),
        pytest.param(
            "HYBRID_TRANSFORMER\tmodel_parallel_NPU_group: 4\t\t\t\t",
            {"parallelism": "HYBRID_TRANSFORMER", "tp": 4, "checkpoints": None},
            id="astrasim-transformer",
        ),
        pytest.param(
            "HYBRID_TRANSFORMER_FWD_IN_BCKWD\tcheckpoints: 2 2 11 checkpoint_initiates: 2 19 10",
            {"tp": None, "checkpoints": (2, 11), "checkpoint_initiates": (19, 10)},
            id="astrasim-old-fwd-in-bckwd",
        ),
        pytest.param("HYBRID_DLRM\t4\t\t\t\t\t", {"dlrm_last_bottom_layer": 4, "key_order": ()}, id="astrasim-dlrm-positional"),
        pytest.param(
            "HYBRID_DLRM_ENHANCED model_parallel_NPU_group: 1 DLRM_LAST_BOTTOM_LAYER: 3",
            {"dlrm_last_bottom_layer": 3, "key_order": ("model_parallel_NPU_group", "DLRM_LAST_BOTTOM_LAYER")},
            id="simai-dlrm-key",
        ),
        pytest.param(
            "HYBRID_TRANSFORMER model_parallel_NPU_group: 1 ep: 1 pp: 1 vpp: 1 ga: 1 all_gpus: 1 checkpoints: 0 checkpoint_initiates: 0 "
            "pp_comm 0 target_model_sha256: sha256:10e2 expert_parallel_npu_group: 2",
            {"pp_comm": 0, "pp_comm_colon": False, "unknown": {"target_model_sha256": "sha256:10e2", "expert_parallel_npu_group": "2"}},
            id="hand-edited-pp-comm-and-unknown-keys",
        ),
        pytest.param("MICRO", {"parallelism": "MICRO", "tp": None, "pp_comm_colon": None, "unknown": {}, "key_order": ()}, id="bare-kind"),
        pytest.param("HYBRID_FUTURE pp: 2 pp: 4", {"parallelism": "HYBRID_FUTURE", "pp": 4, "key_order": ("pp", "pp")}, id="unknown-kind-repeated-key"),
    ],
)
def test_header_generations(text: str, expected: dict[str, object]) -> None:
    header = parse_header(text)
    assert isinstance(header, Header)
    assert {name: getattr(header, name) for name in expected} == expected


def test_float_header_values_keep_their_form() -> None:
    header = parse_header("HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8.0 pp_comm: 2621440.0 ga: 2")
    assert isinstance(header, Header)
    assert (type(header.tp), type(header.pp_comm), type(header.ga)) == (float, float, int)
    assert render_simai(header).endswith("pp_comm: 2621440.0 ga: 2")


def test_unknown_kind_parses_and_is_marked_unknown() -> None:
    header, count, row = parse_lines("HYBRID_FUTURE model_parallel_NPU_group: 2", "1", ROW)
    assert isinstance(header, Header) and header.parallelism == "HYBRID_FUTURE" and not header.known_kind
    assert isinstance(count, LayerCount) and isinstance(row, LayerRow)
    assert all(header.known_kind for header in each(Header, map(parse_header, KINDS)))


# -- layout quirks of real files ----------------------------------------------------------------


def test_trailing_tabs_on_header_count_and_rows() -> None:
    header, count, row = parse_lines("MODEL\t\t\t\t", "6\t\t\t", ROW + "\t \t")
    assert isinstance(header, Header) and header.parallelism == "MODEL"
    assert isinstance(count, LayerCount) and count.count == 6
    assert isinstance(row, LayerRow) and row.wg_update_time == 100


def test_doubled_tabs_and_mixed_blanks_separate_like_one() -> None:
    (row,) = parse_rows("Layer0\t-1\t5\tALLTOALL\t800\t\t5\tNONE \t\t0\t5  NONE\t0\t5")
    assert isinstance(row, LayerRow)
    assert (row.fwd_comm_size, row.ig_compute, row.ig_comm_type, row.wg_comm_type) == (800, 5, "NONE", "NONE")


def test_right_aligned_padded_columns() -> None:
    (row,) = parse_rows("grad_param  \t    -1\t     1\t      NONE\t         0\t14600000\t      NONE\t         0\t     1\tREDUCESCATTER\t6236471296\t       100")
    assert isinstance(row, LayerRow)
    assert (row.name, row.placeholder, row.ig_compute, row.wg_comm_size, row.wg_update_time) == ("grad_param", -1, 14600000, 6236471296, 100)


def test_crlf_no_final_newline_and_blank_lines(tmp_path: Path) -> None:
    path = write(tmp_path, f"MICRO\r\n\r\n2\r\n{ROW}\r\n \t\r\n{ROW}".encode())
    items = parse_file(path)
    assert [type(item) for item in items] == [Header, LayerCount, LayerRow, LayerRow]
    assert [item.line for item in items] == [1, 3, 4, 6]


def test_empty_trailing_lines(tmp_path: Path) -> None:
    items = parse_file(write(tmp_path, f"MICRO\n1\n{ROW}\n\n\n".encode()))
    assert [type(item) for item in items] == [Header, LayerCount, LayerRow]


def test_ga_zero_with_no_rows() -> None:
    header, count = parse_lines(GEN2_HEADER.replace("ga: 4", "ga: 0"), "0")
    assert isinstance(header, Header) and header.ga == 0
    assert isinstance(count, LayerCount) and count.count == 0


def test_hybrid_customized_rows_end_with_the_layer_parallelism() -> None:
    rows = parse_rows(ROW + " HYBRID_DATA_MODEL", ROW + "\t DATA ", header="HYBRID_CUSTOMIZED\t\t\t")
    assert [row.parallelism for row in rows if isinstance(row, LayerRow)] == ["HYBRID_DATA_MODEL", "DATA"]
    assert isinstance(rows[0], LayerRow) and render_simai(rows[0]).endswith("\t100\tHYBRID_DATA_MODEL")


@pytest.mark.parametrize(
    ("header", "row", "message", "kept"),
    [
        ("HYBRID_CUSTOMIZED", ROW, "expected 13 columns, found 12", False),
        ("HYBRID_TRANSFORMER", ROW + "\tDATA", "expected 12 columns, found 13", True),
        ("HYBRID_TRANSFORMER", ROW.rsplit("\t", 1)[0], "expected 12 columns, found 11", False),
    ],
)
def test_column_count_follows_the_kind(header: str, row: str, message: str, kept: bool) -> None:
    # Another row follows, which extra columns would shift (on the last row they are never read).
    problem, *rest = [item for item in parse_rows(row, row, header=header) if item.line == 3]
    assert isinstance(problem, SyntaxProblem) and (problem.code, problem.message) == ("TL002", message)
    assert problem.column == (row.index("DATA") + 1 if kept else len(row) + 1)
    assert [type(item) for item in rest] == ([LayerRow] if kept else [])


def test_a_short_last_row_is_still_a_column_count_problem() -> None:
    # Fewer columns than expected on the last declared row: SimAI reads past the end of the file.
    short = ROW.rsplit("\t", 1)[0]
    (problem,) = parse_rows(short)
    assert isinstance(problem, SyntaxProblem) and (problem.code, problem.message) == ("TL002", "expected 12 columns, found 11")


# -- precise errors -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "at", "message"),
    [
        # a comm type is any word (the consumers decode it, TL405 judges it), but a number there is a shifted column
        ("\tALLREDUCE\t33554432\t1", "\t7\t33554432\t1", "7", "expected a comm type such as ALLREDUCE or NONE, found '7'"),
        ("NONE", "-NONE", "-NONE", "expected a comm type such as ALLREDUCE or NONE, found '-NONE'"),
        ("\t3422000\tALLREDUCE\t33554432\t1", "\t-5\tALLREDUCE\t33554432\t1", "-5", "expected a non-negative integer, found '-5'"),
        ("\t0\t100", "\t1.5\t100", "1.5", "expected a non-negative integer, found '1.5'"),
        ("\t100", "\t100x", "100x", "expected a non-negative integer, found '100x'"),
        ("\t-1\t", "\tx\t", "x\t", "expected an integer such as -1, found 'x'"),
        # after leading blanks, columns still count from the start of the line
        (
            "attention_layer\t-1\t3422000\tALLREDUCE",
            " \tattention_layer\t-1\t3422000\t0ALLREDUCE",
            "0ALLREDUCE",
            "expected a comm type such as ALLREDUCE or NONE, found '0ALLREDUCE'",
        ),
    ],
)
def test_row_errors_name_column_found_and_expected(old: str, new: str, at: str, message: str) -> None:
    bad = ROW.replace(old, new, 1)
    (problem,) = parse_rows(bad)
    assert isinstance(problem, SyntaxProblem) and problem.code == "TL001"
    assert (problem.column, problem.message) == (bad.index(at) + 1, message)


@pytest.mark.parametrize("blanks", [" ", "\t", " \t  "])
def test_blanks_before_the_first_token_of_a_line_are_read_past(blanks: str) -> None:
    # SimAI splits line 1 with `istringstream >>`, converts line 2 with `stoi` and reads rows with `>>`:
    # all three skip leading blanks (Workload::initialize_workload).
    indented = parse_lines(blanks + GEN2_HEADER, blanks + "1", blanks + ROW)
    header, count, row = indented
    assert isinstance(header, Header) and (header.parallelism, header.tp, header.pp) == ("HYBRID_TRANSFORMER_FWD_IN_BCKWD", 8, 2)
    assert isinstance(count, LayerCount) and count.count == 1
    assert isinstance(row, LayerRow) and (row.name, row.fwd_comm_size, row.wg_update_time) == ("attention_layer", 33554432, 100)


@pytest.mark.parametrize(
    ("text", "at", "message"),
    [
        ("9HYBRID_TRANSFORMER pp: 1", "9HYBRID", "expected a parallelism such as HYBRID_TRANSFORMER or DATA, found '9HYBRID_TRANSFORMER'"),
        ("HYBRID_TRANSFORMER pp: x", "x", "expected a non-negative number such as 8 or 2621440.0, found 'x'"),
        ("HYBRID_TRANSFORMER pp: -1", "-1", "expected a non-negative number such as 8 or 2621440.0, found '-1'"),
        ("HYBRID_TRANSFORMER pp: 1e+16", "1e+16", "expected a non-negative number such as 8 or 2621440.0, found '1e+16'"),
        ("HYBRID_TRANSFORMER pp: 2 foo 1", "foo", "expected a header key such as pp:, found 'foo'"),
        ("HYBRID_TRANSFORMER 4 pp: 2", "4", "expected a header key such as pp:, found '4'"),
        ("HYBRID_TRANSFORMER pp:", None, "expected a space or a tab, found end of line"),  # SimAI reads past the line for it
        ("MODEL checkpoints: 2 7", None, "expected 2 layer numbers after 'checkpoints: 2', found 1"),
        ("MODEL checkpoints: 1 7 9 pp: 1", "9", "expected 1 layer numbers after 'checkpoints: 1', found 2"),
        ("MODEL checkpoints: 1 pp: 1", " pp", "expected 1 layer numbers after 'checkpoints: 1', found 0"),
    ],
)
def test_header_errors_name_column_found_and_expected(text: str, at: str | None, message: str) -> None:
    problem = parse_header(text)
    assert isinstance(problem, SyntaxProblem) and problem.code == "TL001"
    assert (problem.column, problem.message) == (text.index(at) + 1 if at else len(text) + 1, message)


@pytest.mark.parametrize(("line", "count", "rest", "column"), [("6.0", 6, ".0", 2), ("\t6 layers  ", 6, "layers", 4), ("6\t\t", 6, "", 0)])
def test_what_follows_the_count_is_kept_for_the_consumers_to_judge(line: str, count: int, rest: str, column: int) -> None:
    # SimAI's std::stoi ignores it; ASTRA-sim 1.0's >> reads it as the first words of the rows (TL427).
    for fast in (True, False):
        found = list(simai_workload.Parser(fast=fast).parse(enumerate(["MODEL", line], 1)))[1]
        assert isinstance(found, LayerCount) and (found.count, found.rest, found.rest_column) == (count, rest, column)


@pytest.mark.parametrize("line", ["x", "-1", "+1"])
def test_a_count_that_does_not_start_with_digits_is_a_syntax_error(line: str) -> None:
    problem = parse_lines("MODEL", line)[1]
    assert isinstance(problem, SyntaxProblem) and (problem.line, problem.column) == (2, 1)
    assert problem.message == f"expected the number of layer rows, found '{line}'"


@pytest.mark.parametrize("huge", [str(2**64), "9" * 400, "9" * 5000])  # beyond a uint64, beyond a float, beyond Python's digit limit
def test_numbers_simai_cannot_read_are_findings_not_crashes(huge: str) -> None:
    (problem,) = parse_rows(ROW.replace("33554432", huge, 1))
    assert isinstance(problem, SyntaxProblem) and problem.message == f"expected a number SimAI can read, found one of {len(huge)} digits"
    assert problem.column == ROW.index("33554432") + 1


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        ((), (1, 1, "expected a parallelism such as HYBRID_TRANSFORMER or DATA, found an empty file")),
        (("MODEL\t", "", "\t"), (1, 7, "expected the number of layer rows on the next line, found end of file")),
    ],
)
def test_a_file_that_ends_too_early(lines: tuple[str, ...], expected: tuple[int, int, str]) -> None:
    problem = parse_lines(*lines)[-1]
    assert isinstance(problem, SyntaxProblem) and (problem.line, problem.column, problem.message) == expected


@pytest.mark.parametrize("split", [1, 6, 11])
def test_a_row_over_several_lines_is_one_row_as_the_consumers_read_it(split: int) -> None:
    # Both consumers read rows word by word with `>>`, across line ends (Workload::initialize_workload).
    words = ROW.split("\t")
    items = parse_rows("\t".join(words[:split]), "", "\t".join(words[split:]), ROW)
    assert [(type(item).__name__, item.line) for item in items] == [("WrappedRow", 3), ("LayerRow", 3), ("LayerRow", 6)]
    wrapped, row = items[0], items[1]
    assert isinstance(wrapped, WrappedRow) and (wrapped.last_line, wrapped.name) == (5, "attention_layer")
    (alone,) = parse_rows(ROW)
    assert isinstance(alone, LayerRow) and row == LayerRow(3, 1, *dataclasses.astuple(alone)[2:])


def test_short_lines_that_make_no_row_together_are_each_a_column_count_problem() -> None:
    words = ROW.split("\t")
    items = parse_rows("\t".join(words[:6]), ROW)
    assert [(type(item).__name__, item.line) for item in items] == [("SyntaxProblem", 3), ("LayerRow", 4)]


def test_a_byte_order_mark_is_kept_on_the_header_when_the_source_keeps_it(tmp_path: Path) -> None:
    path = write(tmp_path, b"\xef\xbb\xbf" + "\n".join([GEN2_HEADER, "1", ROW]).encode())
    source = Source(path, str(path))
    source.keeps_bom = True
    header = next(iter(PARSER.parse(source.lines())))
    assert isinstance(header, Header) and header.byte_order_mark and header.parallelism == "HYBRID_TRANSFORMER_FWD_IN_BCKWD"
    assert header.words[:2] == ("model_parallel_NPU_group:", "8")


@pytest.mark.parametrize(
    ("first", "consumer", "why"),
    [
        (GEN2_HEADER, "simai", "inferred: the header has ep, pp, ga and all_gpus, which only AICB and SimAI write"),
        ("DATA", "astra-sim-1", "inferred: kind DATA, which ASTRA-sim 1.0 reads, and no key or collective only SimAI reads"),
        (
            "HYBRID_TRANSFORMER\tmodel_parallel_NPU_group: 8",
            "astra-sim-1",
            "inferred: kind HYBRID_TRANSFORMER, which ASTRA-sim 1.0 reads, and no key or collective only SimAI reads",
        ),
        ("DATA_REORDER", "astra-sim-1", "inferred: kind DATA_REORDER, which only the ASTRA-sim bundled with astra-sim/tutorials exercise 4 reads"),
        ("HYBRID_TRANSFROMER", "simai", "inferred: kind 'HYBRID_TRANSFROMER', which neither reads: judged for SimAI, the main reader of simai-workload files"),
    ],
)
def test_the_consumer_is_inferred_from_what_the_file_shows(first: str, consumer: str, why: str) -> None:
    judged = simai_workload.judged_for([first, "1", ROW])
    assert (judged.consumer, judged.reason) == (consumer, why)


def test_rows_of_expert_collectives_show_a_workload_for_simai() -> None:
    judged = simai_workload.judged_for(["MICRO", "1", ROW.replace("ALLREDUCE", "ALLTOALL_EP", 1)])
    assert (judged.consumer, judged.reason) == ("simai", "inferred: a row has ALLTOALL_EP, an expert-parallel collective only SimAI decodes")


def test_parsing_resumes_at_the_next_line() -> None:
    items = parse_lines("9hybrid", "x", ROW.replace("NONE", "0NE"), ROW + "\textra", ROW)
    assert [(type(item).__name__, item.line) for item in items] == [
        ("SyntaxProblem", 1),
        ("SyntaxProblem", 2),
        ("SyntaxProblem", 3),
        ("SyntaxProblem", 4),
        ("LayerRow", 4),
        ("LayerRow", 5),
    ]


# -- detection ------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", REAL_FILES, ids=lambda p: p.name[:60])
def test_detects_every_real_workload(path: Path) -> None:
    assert detect(Source(path, str(path)).head()) == "simai-workload"


@pytest.mark.parametrize(
    "path", [*sorted(set(SEEDS.glob("*.txt")) - {SEED_004}), *sorted(p for p in EXAMPLES.iterdir() if p.name != "simai-workload.txt")], ids=lambda p: p.name
)
def test_does_not_claim_the_other_formats(path: Path) -> None:
    assert not simai_workload.detect(Source(path, str(path)).head())


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (["HYBRID_FUTURE model_parallel_NPU_group: 2", "", "12\t\t", ROW], True),
        (["", "MICRO"], True),
        (["NOTE this is prose", "12 more lines follow"], False),
        (["HYBRID_FUTURE", "twelve"], False),
        (["HYBRID_FUTURE"], False),
        (["name\tforward_compute_time\tforward_comm_type", "0"], False),
        (["\x0b", " \t"], False),
        ([], False),
    ],
)
def test_detection_from_content(lines: list[str], expected: bool) -> None:
    assert bool(simai_workload.detect(lines)) is expected


# -- generated records: render -> parse is the identity ----------------------------------------------

_numbers = st.integers(0, 10**15) | st.integers(0, 10**9).map(lambda n: n / 8)
_layers = st.lists(st.integers(0, 10**4), max_size=4).map(tuple)
_upper_words = st.from_regex(r"[A-Z][A-Z0-9_]{0,20}", fullmatch=True)
_unknown_keys = st.from_regex(r"[A-Za-z_][A-Za-z0-9_.\-]{0,12}", fullmatch=True).filter(lambda key: key not in SETTING_FIELDS and key not in CHECKPOINT_KEYS)
_tokens = st.text(st.characters(exclude_characters=" \t\n\r", exclude_categories=["Cs"]), min_size=1, max_size=12)


@st.composite
def headers(draw: st.DrawFn) -> Header:
    parallelism = draw(st.sampled_from(sorted(KINDS)) | _upper_words)
    keys = draw(st.lists(st.sampled_from([*SETTING_FIELDS, *CHECKPOINT_KEYS]) | _unknown_keys, max_size=10))
    header = Header(1, 1, parallelism, key_order=tuple(keys))
    for key in keys:
        if key in SETTING_FIELDS:
            setattr(header, SETTING_FIELDS[key], draw(_numbers))
        elif key in CHECKPOINT_KEYS:
            setattr(header, key, draw(_layers))
        else:
            header.unknown[key] = draw(_tokens)
    if "pp_comm" in keys:
        header.pp_comm_colon = draw(st.booleans())
    if parallelism in ("HYBRID_DLRM", "HYBRID_DLRM_ENHANCED") and "DLRM_LAST_BOTTOM_LAYER" not in keys:
        header.dlrm_last_bottom_layer = draw(st.none() | st.integers(0, 100))
    return header


_comm_types = st.sampled_from(["NONE", "BROADCAST"]) | st.builds(
    str.__add__,
    st.sampled_from(["ALLREDUCE", "ALLGATHER", "REDUCESCATTER", "ALLTOALL", "ALLREDUCEALLTOALL"]),
    st.from_regex(r"(_[A-Z][A-Z0-9]{0,3}){0,2}", fullmatch=True),
)
_sizes = st.integers(0, 2**64 - 1)  # what SimAI reads into a uint64


def layer_rows(customized: bool) -> st.SearchStrategy[LayerRow]:
    return st.builds(
        LayerRow,
        line=st.just(3),
        column=st.just(1),
        name=_tokens,
        placeholder=st.integers(-(2**31), 2**31),
        fwd_compute=_sizes,
        fwd_comm_type=_comm_types,
        fwd_comm_size=_sizes,
        ig_compute=_sizes,
        ig_comm_type=_comm_types,
        ig_comm_size=_sizes,
        wg_compute=_sizes,
        wg_comm_type=_comm_types,
        wg_comm_size=_sizes,
        wg_update_time=_sizes,
        parallelism=_upper_words if customized else st.none(),
    )


@st.composite
def workloads(draw: st.DrawFn) -> tuple[Header, LayerCount, LayerRow]:
    header = draw(headers())
    return header, LayerCount(2, 1, 1), draw(layer_rows(header.parallelism == "HYBRID_CUSTOMIZED"))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workloads())
def test_generated_records_round_trip(records: tuple[Header, LayerCount, LayerRow]) -> None:
    header, count, row = records
    assert parse_lines(render_simai(header), render_simai(count), render_simai(row)) == list(records)


# -- no input makes the parser raise ----------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=300))
def test_arbitrary_text_never_raises(text: str) -> None:
    items = parse_lines(*text.split("\n"))
    assert items and all(isinstance(item, ITEM_TYPES) for item in items)


_REAL_FILES = [path.read_text(encoding="utf-8").splitlines()[:4] for path in REAL_FILES if isinstance(path, Path)]
_mutation_alphabet = st.sampled_from(list(" \t:._-0123456789ABEGLNORU_xé\x00"))


@st.composite
def mutated_files(draw: st.DrawFn) -> list[str]:
    """The first lines of a real file, one of them with a few characters inserted, deleted or replaced."""
    lines = list(draw(st.sampled_from(_REAL_FILES)))
    target = draw(st.integers(0, len(lines) - 1))
    line = lines[target]
    for _ in range(draw(st.integers(1, 3))):
        position = draw(st.integers(0, len(line)))
        char = draw(_mutation_alphabet)
        inserted, deleted, replaced = (
            line[:position] + char + line[position:],
            line[:position] + line[position + 1 :],
            line[:position] + char + line[position + 1 :],
        )
        line = draw(st.sampled_from([inserted, deleted, replaced]))
    lines[target] = line
    return lines


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_files())
def test_mutated_real_lines_give_findings_or_records_that_render_back(lines: list[str]) -> None:
    items = parse_lines(*lines)
    assert items and all(isinstance(item, ITEM_TYPES) for item in items)
    for item in items:
        if isinstance(item, Header):
            assert parse_header(render_simai(item)) == item
        elif isinstance(item, LayerRow) and not item.extra_columns:
            assert parse_rows(render_simai(item), header=lines[0]) == [dataclasses.replace(item, line=3)]
