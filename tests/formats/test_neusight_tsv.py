"""neusight-tsv: the seed, detection, precise errors and column counts, and generated tables."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lint.formats import detect
from lint.formats.neusight_tsv import parser as neusight_tsv
from lint.formats.neusight_tsv.records import COLUMNS, CommType, HeaderRecord, LayerRecord
from lint.formats.neusight_tsv.summary import NeusightTable
from lint.models.common import SyntaxProblem
from lint.read.source import Source
from tests.narrow import typed_parser
from tests.render import render_neusight

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SEED_003 = FIXTURES / "seeds" / "003_891053d3e8445d09.txt"
OTHER_FORMAT_FILES = sorted(p for p in FIXTURES.glob("**/*.txt") if p != SEED_003)
PARSER = typed_parser("neusight-tsv", neusight_tsv.Parser)

HEADER = "\t".join(COLUMNS)
GRAD_ROW = "transformer_wte_grad\t0\tNone\t0\t0\tALLREDUCE_ASYNC\t1310720\t0\tNone\t0\t0"
COMPUTE_ROW = "getitem\t4.791370158793459e-09\tNone\t0\t0.0\tNone\t0\t0.0\tNone\t0\t0"


def parse_lines(*texts: str) -> list[object]:
    return list(PARSER.parse(enumerate(texts, 1)))


def parse_row(text: str) -> object:
    _header, item = parse_lines(HEADER, text)
    return item


def seed_lines() -> list[str]:
    return SEED_003.read_text(encoding="utf-8").splitlines()


# -- the real sample ----------------------------------------------------------------------------


def test_seed_parses_without_syntax_problems() -> None:
    header, *rows = PARSER.parse(enumerate(seed_lines(), 1))
    assert header == HeaderRecord(line=1, column=1, columns=COLUMNS)
    assert len(rows) == 51 and all(isinstance(row, LayerRecord) for row in rows)
    assert [row.line for row in rows] == list(range(2, 53))


def test_seed_values_are_typed() -> None:
    rows = {row.name: row for row in NeusightTable.from_records(PARSER.parse(enumerate(seed_lines(), 1))).rows}
    getitem = rows["getitem"]
    assert getitem.forward_compute_time == 4.791370158793459e-09 and getitem.backward_compute_time == 0.0
    assert getitem.forward_comm_type is None and getitem.forward_comm_size == 0
    addmm_grad = rows["addmm_grad"]
    assert (addmm_grad.backward_comm_type, addmm_grad.backward_comm_size) == ("ALLREDUCE_ASYNC", 1280 * 3840 + 3840)
    assert rows["transformer_h_0_ln_1_grad"].backward_comm_size == 2 * 1280
    assert rows["lm_head"].forward_compute_time == 127.3467093706131


def test_table_survives_a_json_round_trip() -> None:
    table = NeusightTable.from_records(parse_lines(HEADER, GRAD_ROW, "bad row", COMPUTE_ROW))
    assert [row.name for row in table.rows] == ["transformer_wte_grad", "getitem"]
    assert NeusightTable.model_validate_json(table.model_dump_json()) == table


def test_grammar_columns_are_the_model_fields() -> None:
    assert PARSER.grammar.field_names("row") == list(COLUMNS)
    assert COLUMNS[0] == "name" and COLUMNS[-1] == "process_time" and len(COLUMNS) == 11


# -- detection ----------------------------------------------------------------------------------


def test_detect_the_header() -> None:
    assert detect(seed_lines()[:3]) == "neusight-tsv"
    assert neusight_tsv.detect(["", HEADER])
    assert not neusight_tsv.detect([HEADER.replace("\t", " ")])
    assert not neusight_tsv.detect([GRAD_ROW, HEADER])
    assert not neusight_tsv.detect([])


@pytest.mark.parametrize("path", OTHER_FORMAT_FILES, ids=lambda p: p.name[:40])
def test_detect_does_not_claim_other_formats(path: Path) -> None:
    assert not neusight_tsv.detect(Source(path, str(path)).head())


# -- precise errors -----------------------------------------------------------------------------


_TIME = "a time in ms such as 0.05 (a non-negative number)"
_COMM_TYPE = "a comm type such as ALLREDUCE_ASYNC or None"


@pytest.mark.parametrize(
    ("line", "old", "new", "at", "message"),
    [
        (2, "ALLREDUCE_ASYNC", "ALLREDUCE_ASINC", "ALLREDUCE_ASINC", f"expected {_COMM_TYPE}, found 'ALLREDUCE_ASINC'"),
        (2, "\tNone\t", "\tNONE\t", "NONE", f"expected {_COMM_TYPE}, found 'NONE'"),
        (2, "\t1310720\t", "\t1310720.0\t", "1310720.0", "expected an element count (a non-negative integer), found '1310720.0'"),
        (2, "_grad\t0\t", "_grad\t-0.5\t", "-0.5", f"expected {_TIME}, found '-0.5'"),
        (2, "_grad\t0\t", "_grad\t1.5e\t", "1.5e", f"expected {_TIME}, found '1.5e'"),
        (2, "_grad\t0\tNone\t0\t0\t", "_grad\t0\tNone\t0\t1e309\t", "1e309", f"expected {_TIME}, found '1e309', which overflows a 64-bit float"),
        (
            2,
            "\t1310720\t",
            "\t9223372036854775808\t",
            "9223372036854775808",
            "expected an element count (a non-negative integer), found '9223372036854775808', which overflows a 64-bit integer",
        ),
        (
            2,
            "\t1310720\t",
            f"\t{'1' * 5000}\t",
            "1" * 5000,  # beyond Python's own limit on converting digits
            f"expected an element count (a non-negative integer), found '{'1' * 40}…', which overflows a 64-bit integer",
        ),
        (2, "transformer_wte_grad", "transformer.wte", "transformer.wte", "expected a layer name such as transformer_h_0_ln_1, found 'transformer.wte'"),
        (1, "forward_comm_type", "forward_comm_typ", "forward_comm_typ", "expected 'forward_comm_type', found 'forward_comm_typ'"),
        (1, "name", "names", "names", "expected 'name', found 'names'"),
        (1, "\tforward_comm_type", "", "forward_comm_size", "expected 'forward_comm_type', found 'forward_comm_size'"),
        (1, "process_time", "process_time\textra", "\textra", "expected end of line, found a tab"),
    ],
)
def test_errors_name_the_field_start_and_what_was_expected(line: int, old: str, new: str, at: str, message: str) -> None:
    """Line 1 is the header and line 2 a row; the other line of the table still parses."""
    lines = [HEADER, GRAD_ROW]
    bad = lines[line - 1].replace(old, new, 1)
    lines[line - 1] = bad
    items = parse_lines(*lines)
    assert items[line - 1] == SyntaxProblem(line, bad.index(at) + 1, "TL001", message)
    assert isinstance(items[2 - line], HeaderRecord | LayerRecord)


def test_a_missing_header_is_reported_and_the_rows_still_parse() -> None:
    problem, row = parse_lines(GRAD_ROW, COMPUTE_ROW)
    assert problem == SyntaxProblem(1, 1, "TL001", "expected 'name', found 'transformer_wte_grad'")
    assert isinstance(row, LayerRecord) and row.name == "getitem"


@pytest.mark.parametrize(
    ("marked", "found"),
    [
        (GRAD_ROW.rsplit("\t", 1)[0] + "|", 10),
        (GRAD_ROW + "\t|7", 12),
        (GRAD_ROW.replace("\tALLREDUCE_ASYNC\t", "\tALLREDUCE_ASYNC\tNone\t").rsplit("\t", 1)[0] + "\t|0", 12),
        (GRAD_ROW + "\t|", 12),
        (GRAD_ROW.replace("\t", " ") + "|", 1),
    ],
    ids=["10", "12", "12-inside", "trailing-tab", "spaces"],
)
def test_wrong_field_count_is_a_column_count_problem(marked: str, found: int) -> None:
    """``|`` marks the expected column: the first extra field, or the end of a row that is too short."""
    problem = parse_row(marked.replace("|", ""))
    assert problem == SyntaxProblem(2, marked.index("|") + 1, "TL002", f"expected 11 tab-separated fields, found {found}")


def test_one_bad_line_does_not_hide_the_next() -> None:
    _header, problem, row = parse_lines(HEADER, GRAD_ROW + "\t0", COMPUTE_ROW)
    assert isinstance(problem, SyntaxProblem) and problem.code == "TL002"
    assert isinstance(row, LayerRecord) and row.line == 3


def test_only_trailing_empty_lines_are_allowed() -> None:
    assert [type(item) for item in parse_lines(HEADER, COMPUTE_ROW, "", "")] == [HeaderRecord, LayerRecord]
    items = parse_lines(HEADER, COMPUTE_ROW, "", GRAD_ROW, COMPUTE_ROW, "")
    assert [type(item) for item in items] == [HeaderRecord, LayerRecord, SyntaxProblem, LayerRecord, LayerRecord]
    assert items[2] == SyntaxProblem(3, 1, "TL001", "expected a layer row, found an empty line; only the end of the file may have empty lines")
    problem, header = parse_lines("", HEADER)
    assert isinstance(problem, SyntaxProblem) and problem.message.startswith("expected the header row, found an empty line")
    assert isinstance(header, HeaderRecord) and header.line == 2


def test_empty_lines_one_after_another_are_one_problem_repeated() -> None:
    items = parse_lines(HEADER, COMPUTE_ROW, "", "", "", GRAD_ROW)
    problems = [item for item in items if isinstance(item, SyntaxProblem)]
    assert [(problem.line, problem.again) for problem in problems] == [(3, False), (4, True), (5, True)]


def test_rows_with_the_same_wrong_field_count_one_after_another_repeat_one_problem() -> None:
    items = parse_lines(HEADER, GRAD_ROW + "\t0", GRAD_ROW + "\t0", GRAD_ROW + "\t0\t0", COMPUTE_ROW, GRAD_ROW + "\t0")
    problems = [item for item in items if isinstance(item, SyntaxProblem)]
    assert [(problem.line, problem.again) for problem in problems] == [(2, False), (3, True), (4, False), (6, False)]


@pytest.mark.parametrize("lines", [[], [""], ["", ""]], ids=len)
def test_a_file_without_header_is_reported(lines: list[str]) -> None:
    assert parse_lines(*lines) == [SyntaxProblem(1, 1, "TL001", "expected the header row, found an empty file")]


# -- generated tables: render -> parse is the identity ------------------------------------------

_times = st.floats(min_value=0, allow_nan=False, allow_infinity=False)
_counts = st.integers(min_value=0, max_value=2**63 - 1)  # an int64 element count
_comm_types = st.none() | st.sampled_from(get_args(CommType))

layer_records = st.builds(
    LayerRecord,
    line=st.just(2),
    column=st.just(1),
    name=st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,24}", fullmatch=True),
    forward_compute_time=_times,
    forward_comm_type=_comm_types,
    forward_comm_size=_counts,
    backward_compute_time=_times,
    backward_comm_type=_comm_types,
    backward_comm_size=_counts,
    weight_grad_compute_time=_times,
    weight_grad_comm_type=_comm_types,
    weight_grad_comm_size=_counts,
    process_time=_times,
)


@settings(max_examples=200, deadline=None)
@given(layer_records)
def test_generated_rows_round_trip(record: LayerRecord) -> None:
    header = HeaderRecord(line=1, column=1, columns=COLUMNS)
    assert parse_lines(render_neusight(header), render_neusight(record)) == [header, record]


_mutation_alphabet = st.sampled_from(list("\t _.-+eE0123456789NoneALRUCDSYxé\x00"))


@st.composite
def mutated_seed_lines(draw: st.DrawFn) -> tuple[bool, str]:
    """(whether it is the header, a seed line with one to three characters inserted, replaced or deleted)."""
    lines = seed_lines()
    index = draw(st.integers(0, len(lines) - 1))
    line = lines[index]
    for _ in range(draw(st.integers(1, 3))):
        start = draw(st.integers(0, len(line)))
        end = start + draw(st.integers(0, 1))
        line = line[:start] + draw(st.just("") | _mutation_alphabet) + line[end:]
    return index == 0, line


@settings(max_examples=300, deadline=None)
@given(mutated_seed_lines())
def test_mutated_lines_are_records_that_round_trip_or_problems_within_the_line(mutated: tuple[bool, str]) -> None:
    is_header, line = mutated
    before = [] if is_header else [HEADER]
    item = parse_lines(*before, line)[-1]
    if isinstance(item, HeaderRecord | LayerRecord):
        assert parse_lines(*before, render_neusight(item))[-1] == item
    else:
        assert isinstance(item, SyntaxProblem) and item.code in ("TL001", "TL002")
        assert 1 <= item.column <= len(line) + 1


# Random text seldom holds ten tabs: also build tables of 9 to 13 fields a row from pieces of real ones.
_fields = st.sampled_from([*COMPUTE_ROW.split("\t"), *GRAD_ROW.split("\t"), "", "-1", "1e999", "NONE", "name"])
_rows = st.lists(_fields, min_size=9, max_size=13).map("\t".join)
_texts = st.text(max_size=300) | st.lists(_rows, max_size=8).map(lambda rows: "\n".join([HEADER, *rows]))


@settings(max_examples=300, deadline=None)
@given(_texts)
def test_arbitrary_text_never_raises(text: str) -> None:
    lines = list(enumerate(text.split("\n"), 1))
    for item in PARSER.parse(lines):
        assert isinstance(item, HeaderRecord | LayerRecord | SyntaxProblem)
        assert 1 <= item.line <= len(lines)
