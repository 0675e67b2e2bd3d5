"""The fast paths of simai-workload, neusight-tsv and optprime-log agree with their grammars.

Each of these parsers matches valid lines with regexes derived from its grammar and hands Lark only
what they reject; built with ``fast=False`` it lets Lark parse every line (optprime-log: every record
the regexes delimit).  Both must give the same records and the same syntax findings (line, column,
message) on every real file and on lines mutated at random from the bundled samples.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lint import formats
from lint.formats.neusight_tsv import parser as neusight_tsv
from lint.formats.optprime_log import parser as optprime_log
from lint.formats.optprime_log.fields import WRITTEN_OUT_BUILDS
from lint.formats.simai_workload import parser as simai_workload
from lint.models.common import SyntaxProblem
from lint.read.source import Source
from tests.fuzz.budget import fuzz_settings
from tests.narrow import typed_parser
from tests.shared_corpus import CORPUS, corpus_dir

ROOT = Path(__file__).resolve().parents[2]
FORMATS = ("simai-workload", "neusight-tsv", "optprime-log")
GRAMMAR_ONLY: dict[str, simai_workload.Parser | neusight_tsv.Parser | optprime_log.Parser] = {
    "simai-workload": simai_workload.Parser(fast=False),
    "neusight-tsv": neusight_tsv.Parser(fast=False),
    "optprime-log": optprime_log.Parser(fast=False),
}
# The real files of these formats, by directory (optprime-cpu: opt_prime's logs on CPU-only torch).
CORPUS_DIRS = ("simai-workload", "neusight-tsv", "optprime-log", "optprime-cpu")


def outcomes(name: str, numbered: Iterable[tuple[int, str]], parser: Any) -> list[str]:
    """Every record and syntax problem, as its repr: a NaN loss is equal to itself there."""
    return [repr(item) for item in parser.parse(iter(numbered))]


def assert_paths_agree(name: str, numbered: list[tuple[int, str]]) -> None:
    fast = outcomes(name, numbered, formats.parser(name))
    grammar = outcomes(name, numbered, GRAMMAR_ONLY[name])
    assert fast == grammar


def test_the_default_parsers_take_the_fast_path() -> None:
    assert all(typed_parser(name, type(GRAMMAR_ONLY[name])).fast for name in FORMATS)


# -- the real files -----------------------------------------------------------------------------


def _real_files(directory: str) -> list[Any]:
    path = CORPUS / "real" / directory
    if not path.is_dir():
        # One value per name of the parametrization, or pytest refuses to collect the module.
        return [pytest.param(directory, "", marks=pytest.mark.skip(reason=f"{path} is absent: the real files are read in place"), id=f"{directory}-absent")]
    # Provenance notes and scripts beside the files are not traces; that every real trace is still detected as
    # its format is tests/test_damaged_input.py's to check.
    traces = [file for file in sorted(path.iterdir()) if file.is_file() and formats.detect(Source(file, str(file)).head()) in FORMATS]
    return [pytest.param(directory, file.name, id=f"{directory}/{file.name}") for file in traces]


@pytest.mark.parametrize(("directory", "file_name"), [param for directory in CORPUS_DIRS for param in _real_files(directory)])
def test_real_files_parse_alike_on_both_paths(directory: str, file_name: str) -> None:
    path = corpus_dir("real", directory) / file_name
    source = Source(path, str(path))
    name = formats.detect(source.head())
    assert name is not None
    assert_paths_agree(name, list(source.lines()))


# -- mutated samples ----------------------------------------------------------------------------


def _sample(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def _customized(lines: list[str]) -> list[str]:
    """The simai sample as HYBRID_CUSTOMIZED: rows gain the 13th column, the layer's parallelism."""
    header, count, *rows = lines
    return [header.replace(header.split()[0], "HYBRID_CUSTOMIZED", 1), count, *(f"{row}\tDATA" for row in rows)]


SIMAI = _sample(ROOT / "examples" / "simai-workload.txt")
SAMPLES: dict[str, list[tuple[int, list[str]]]] = {  # format -> (lines kept at the top, sample lines)
    "simai-workload": [(2, SIMAI), (2, _customized(SIMAI))],
    "neusight-tsv": [(1, _sample(ROOT / "examples" / "neusight-gpt2-large.tsv"))],
    "optprime-log": [(0, _sample(ROOT / "examples" / "optprime-log.txt")), (0, _sample(ROOT / "tests" / "fixtures" / "optprime" / "failed_run.log"))],
}
# What a writer's slip or a damaged file puts into a line: separators, digits, signs, exponent and
# decimal marks, letters of the comm types and names, punctuation of the log records, non-ASCII digits.
ALPHABET = "0123456789 \t.-+eE_NOAL:,=[]()'\"|#*>x\u0663\u00e9\x00"
# Whole values that sit at the edge of what a column admits.
VALUES = (
    "",
    "0",
    "-1",
    "+1",
    "1.",
    ".5",
    "1.5",
    "1e5",
    "1E-05",
    "1e999",
    "inf",
    "nan",
    "-0",
    "9" * 19,
    "9" * 5000,
    "None",
    "NONE",
    "ALLREDUCE_EP",
    "ALLREDUCE_",
    "ALLREDUCEX",
    "BROADCAST_DP",
    "SENDRECV",
    "x",
    "_",
    "a b",
    "\t",
    "DATA",
    "pp:",
    "pp_comm",
)
# How many lines of distinct shapes of each sample get every edge slip (the suite must stay fast).
SHAPES = {"simai-workload": 2, "neusight-tsv": 5, "optprime-log": 12}
_SEPARATED = re.compile(r"([ \t]+|[,:=\]\[()|]+)")


@st.composite
def mutated_lines(draw: st.DrawFn, name: str) -> list[tuple[int, str]]:
    keep, sample = draw(st.sampled_from(SAMPLES[name]))
    start = draw(st.integers(keep, len(sample) - 1))
    lines = sample[:keep] + sample[start : start + draw(st.integers(1, 6))]
    for _ in range(draw(st.integers(1, 4))):
        index = draw(st.integers(0, len(lines) - 1))
        lines[index] = _mutate(draw, lines[index])
    return list(enumerate(lines, 1))


def _mutate(draw: st.DrawFn, text: str) -> str:
    """One slip: a value replaced, a character added or lost at a value's edge or anywhere, a value or
    separator repeated or dropped."""
    pieces = _SEPARATED.split(text)  # values at even indexes, separators at odd ones
    index = draw(st.integers(0, len(pieces) - 1))
    piece = pieces[index]
    character = draw(st.sampled_from(ALPHABET))
    position = draw(st.integers(0, len(piece)))
    pieces[index] = draw(
        st.sampled_from(
            (
                draw(st.sampled_from(VALUES + tuple(pieces[0::2]))),
                character + piece,
                piece + character,
                piece[:position] + character + piece[position:],
                piece[:position] + character + piece[position + 1 :],
                piece[:position] + piece[position + 1 :],
                piece + piece,
                "",
            )
        )
    )
    return "".join(pieces)


@pytest.mark.parametrize("name", FORMATS)
def test_mutated_lines_parse_alike_on_both_paths(name: str) -> None:
    @fuzz_settings(150)
    @given(numbered=mutated_lines(name))
    def check(numbered: list[tuple[int, str]]) -> None:
        assert_paths_agree(name, numbered)

    check()


def _slips(text: str) -> Iterable[str]:
    """Every edge slip of every value of ``text``: replaced by each of VALUES, a character of ALPHABET
    before or after it, its last character lost; and every separator lost, changed or doubled."""
    pieces = _SEPARATED.split(text)  # values at even indexes, separators at odd ones
    for index, piece in enumerate(pieces):
        if index % 2:
            variants = ["", " ", "\t", piece + piece]
        else:
            variants = [*VALUES, *(c + piece for c in ALPHABET), *(piece + c for c in ALPHABET), piece[:-1]]
        for variant in variants:
            yield "".join([*pieces[:index], variant, *pieces[index + 1 :]])


def _shapes(keep: int, sample: list[str], count: int) -> list[str]:
    """Up to ``count`` sample lines of distinct shapes (what is left once the digits are dropped)."""
    shapes: dict[str, str] = {}
    for text in sample[keep:]:
        shapes.setdefault(re.sub(r"[0-9]+", "", text)[:30], text)
    return list(shapes.values())[:count]


@pytest.mark.parametrize("name", FORMATS)
def test_every_edge_slip_parses_alike_on_both_paths(name: str) -> None:
    for keep, sample in SAMPLES[name]:
        for text in _shapes(keep, sample, SHAPES[name]):
            for slipped in _slips(text):
                assert_paths_agree(name, list(enumerate([*sample[:keep], slipped], 1)))


# simai-workload's header and count have a fast path of their own: headers of every shape the writers and the
# readers know (docs/formats/simai-workload.md), each slipped, then followed by the sample's count (slipped too)
# and first row.
SIMAI_HEADERS = (
    SIMAI[0],
    "HYBRID_TRANSFORMER_FWD_IN_BCKWD\tmodel_parallel_NPU_group: 8 ep: 1 pp: 2 vpp: 8 ga: 4 all_gpus: 64 checkpoints: 2 3 7 checkpoint_initiates: 1 5 pp_comm 2621440.0",
    "HYBRID_DLRM 3 DLRM_LAST_BOTTOM_LAYER: 3",
    "HYBRID_DLRM_ENHANCED\t",
    "  DATA checkpoints: 0 mode: 1 target_model_sha256: sha256:ab12",
)


@pytest.mark.parametrize("header", SIMAI_HEADERS)
def test_every_edge_slip_of_a_simai_header_and_count_parses_alike_on_both_paths(header: str) -> None:
    count, row = SIMAI[1], SIMAI[2]
    for slipped in [header, *_slips(header)]:
        assert_paths_agree("simai-workload", list(enumerate([slipped, count, row], 1)))
    for slipped in _slips(count):
        assert_paths_agree("simai-workload", list(enumerate([header, slipped, row], 1)))


def test_a_bad_header_of_many_settings_is_judged_without_backtracking() -> None:
    # Settings are a repetition of choices that overlap (a known key is an unknown key's text too): matched as
    # one regex, a header that fails at its end made the engine try every split, twice as long per setting
    # (24 settings: 8 s).  Judged word by word, it takes a millisecond.
    header = "DATA " + "pp: 1 " * 24 + "x"
    started = time.process_time()
    problem, _count = formats.parser("simai-workload").parse(iter([(1, header), (2, "0")]))
    assert isinstance(problem, SyntaxProblem) and problem.column == len(header)
    assert time.process_time() - started < 4, "the header was matched with backtracking"


@pytest.mark.parametrize("name", FORMATS)
def test_every_sample_line_parses_alike_on_both_paths(name: str) -> None:
    for _keep, sample in SAMPLES[name]:
        assert_paths_agree(name, list(enumerate(sample, 1)))


def test_written_out_optprime_builds_agree_with_the_rules_build() -> None:
    # The records that make most of a log are built by functions written out for speed (WRITTEN_OUT_BUILDS); both
    # paths above go through them, so here each is held against its rule's generic build from the grammar's fields,
    # on every match of its rule in the samples and in their edge slips (huge integers among them).
    parser = formats.parser("optprime-log")
    assert isinstance(parser, optprime_log.Parser)
    lines = [text for _keep, sample in SAMPLES["optprime-log"] for text in sample]
    for rule, written_out in WRITTEN_OUT_BUILDS.items():
        pattern = parser._patterns[rule]
        own = [text for text in lines if pattern.search(text)]
        texts = own + [slipped for text in _shapes(0, own, 3) for slipped in _slips(text)]
        starts = [(text, position) for text in texts for position in {0, *(after.end() for after in _AFTER_PREFIX.finditer(text))}]
        matches = [match for text, position in starts if (match := pattern.match(text, position))]
        assert len(matches) > 100, rule
        for match in matches:
            assert _built(written_out, match) == _built(parser._records[rule].build, match)


_AFTER_PREFIX = re.compile(r"\]:? ?")  # where a record can follow a process prefix


def _built(build: Any, match: re.Match[str]) -> str:
    try:
        return repr(build(7, match.start() + 1, match))
    except OverflowError as error:  # an integer beyond an int64: Lark then explains it
        return f"OverflowError: {error}"
