"""The real SimAI / ASTRA-sim workloads and NeuSight tables of ``../shared/corpus/real/``, read in place.

Every file parses and gets no error (the corpus README's verdict: all are valid).  The real defects the
consumers cannot simulate are still caught: mutated copies of every workload, in a temporary directory,
with one row fewer or more than declared, ``pp: 0``, or a ``BROADCAST``, each judged for the consumer the file
shows it is written for (SimAI or ASTRA-sim 1.0, lint/models/consumers.py).
"""

from __future__ import annotations

import io
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from lint.cli import main
from lint.formats import parser
from lint.formats.simai_workload import parser as simai_workload
from lint.formats.simai_workload.records import Header, LayerCount, LayerRow
from lint.formats.simai_workload.rulekit import reader
from lint.models.common import SyntaxProblem
from lint.read.source import Source
from tests.shared_corpus import corpus_dir, corpus_files

WORKLOADS = ("real", "simai-workload")
TABLES = ("real", "neusight-tsv")


def check(*paths: Path) -> list[dict[str, Any]]:
    out = io.StringIO()
    main(["check", *map(str, paths), "--output-format", "json", "--max-findings", "0"], stdout=out, stderr=io.StringIO())
    found: list[dict[str, Any]] = json.loads(out.getvalue())["findings"]
    return found


def errors(*paths: Path) -> list[tuple[str, int | None, str, str]]:
    return [(Path(f["path"]).name, f["line"], f["code"], f["message"]) for f in check(*paths) if f["severity"] == "error"]


@pytest.mark.parametrize("path", corpus_files(*WORKLOADS) + corpus_files(*TABLES), ids=lambda p: p.name[:50])
def test_every_real_file_parses(path: Path) -> None:
    format_name = "simai-workload" if path.parent.name == "simai-workload" else "neusight-tsv"
    items = list(parser(format_name).parse(Source(path, str(path)).lines()))
    assert [item for item in items if isinstance(item, SyntaxProblem)] == []


@pytest.mark.parametrize("parts", [WORKLOADS, TABLES], ids=lambda parts: parts[-1])
def test_no_error_on_the_valid_real_files(parts: tuple[str, str]) -> None:
    assert errors(corpus_dir(*parts)) == []


def test_notes_after_the_rows_are_one_warning_naming_where_simai_stops() -> None:
    findings = [f for f in check(corpus_dir(*WORKLOADS)) if f["code"] == "TL420"]
    assert findings and all(f["severity"] == "warning" for f in findings)
    assert all(
        re.fullmatch(r"text after the \d+ declared layer rows?: (SimAI|ASTRA-sim 1\.0) stops reading at line \d+, .* never read", f["message"])
        for f in findings
    )
    assert len({f["path"] for f in findings}) == len(findings)  # once per file


def test_zero_rows_of_an_early_neusight_writer_are_one_info_per_file() -> None:
    findings = check(corpus_dir(*TABLES))
    assert {(f["code"], f["severity"]) for f in findings} <= {("TL306", "info")}
    assert len(findings) == len({f["path"] for f in findings})


# -- real defects, made from the real files ---------------------------------------------------------


class Workload:
    """A real workload's lines, and where its count, rows and first collective are."""

    def __init__(self, path: Path) -> None:
        self.name = path.name
        self.lines = path.read_text(encoding="utf-8").split("\n")
        items = list(parser("simai-workload").parse(Source(path, str(path)).lines()))
        self.header = next(item for item in items if isinstance(item, Header))
        self.count = next(item for item in items if isinstance(item, LayerCount))
        self.rows = [item for item in items if isinstance(item, LayerRow)]
        self.reader = reader(simai_workload.judged_for(Source(path, str(path)).head()).consumer)  # "SimAI" or "ASTRA-sim 1.0"

    def write(self, directory: Path, lines: list[str]) -> None:
        (directory / self.name).write_text("\n".join(lines), encoding="utf-8")


def workloads() -> list[Workload]:
    return _parsed(corpus_dir(*WORKLOADS))


@cache
def _parsed(directory: Path) -> list[Workload]:  # parsed once for the four mutations
    return [Workload(path) for path in sorted(directory.glob("*.txt"))]


def test_one_row_fewer_than_declared_is_an_error_at_the_count(tmp_path: Path) -> None:
    expected, misread = [], []
    for workload in workloads():
        last = workload.rows[-1]
        workload.write(tmp_path, workload.lines[: last.line - 1] + workload.lines[last.line :])
        notes = [number for number, text in enumerate(workload.lines[last.line :], last.line) if text.strip()]
        if notes:  # SimAI reads the first note as the last row: that row's finding says so, and no row is missing
            misread.append((workload.name, notes[0]))
            continue
        message = (
            f"layer count {workload.count.count}, but the file has {len(workload.rows) - 1} well-formed layer rows: {workload.reader} reads 1 more past "
            "the end of the file"
        )
        expected.append((workload.name, workload.count.line, "TL402", message))
    found = errors(tmp_path)
    assert sorted(e for e in found if e[2] == "TL402") == sorted(expected)
    assert misread and {(name, line) for name, line, code, _ in found if code in ("TL001", "TL002")} == set(misread)


def test_one_row_more_than_declared_is_an_error_at_that_row(tmp_path: Path) -> None:
    expected = []
    for workload in workloads():
        lines = list(workload.lines)
        lines[workload.count.line - 1] = str(workload.count.count - 1)
        workload.write(tmp_path, lines)
        last = workload.rows[-1]
        if workload.count.count == 1:  # a count of 0: the consumers abort, and its rows are not reported again
            message = f"layer count 0: {workload.reader}'s first iteration fails its assertion index < SIZE and aborts "
            message += f"({'Workload.cc:796' if workload.reader == 'SimAI' else 'Workload.cc:189'}); the rows after it are never read"
            expected.append((workload.name, workload.count.line, "TL426", message))
            continue
        message = (
            f"row {len(workload.rows)} of {len(workload.rows)} is past the layer count {workload.count.count - 1} "
            f"on line {workload.count.line}: {workload.reader} does not simulate it"
        )
        expected.append((workload.name, last.line, "TL403", message))
    assert sorted(errors(tmp_path)) == sorted(expected)


def test_pp_0_is_an_error(tmp_path: Path) -> None:
    expected = []
    for workload in workloads():
        if workload.header.pp is None or not workload.header.reads_parallel_sizes:
            continue
        lines = list(workload.lines)
        lines[0] = re.sub(r"\bpp: [0-9]+", "pp: 0", lines[0])
        workload.write(tmp_path, lines)
        expected.append(
            (workload.name, 1, "TL411", "pp: 0, expected > 0 (the pipeline-parallel size): SimAI divides by zero (Layer.cc:569: all_gpus / (tp·pp))")
        )
    assert expected
    assert sorted(errors(tmp_path)) == sorted(expected)


def test_a_broadcast_is_an_error(tmp_path: Path) -> None:
    expected = []
    for workload in workloads():
        row, comm = next((row, comm) for row in workload.rows for comm in row.comms() if comm.family is not None)
        lines = list(workload.lines)
        lines[row.line - 1] = re.sub(rf"(?<![^ \t]){comm.type}(?![^ \t])", "BROADCAST", lines[row.line - 1], count=1)
        workload.write(tmp_path, lines)
        expected.append((workload.name, row.line, "TL405"))
    found = errors(tmp_path)
    assert sorted((name, line, code) for name, line, code, _ in found) == sorted(expected)
    assert all(
        re.fullmatch(
            r"\S+: \w+_comm_type BROADCAST with \w+_comm_size \d+: (SimAI decodes BROADCAST as no collective \(Workload.cc:1436-1493\)|"
            r"ASTRA-sim 1.0 knows only ALLREDUCE, ALLTOALL, ALLREDUCEALLTOALL, ALLGATHER and REDUCESCATTER \(Workload.cc:1355-1392\)), "
            r"so these bytes take no time( \(and \d+ more \S+ rows\))?",
            message,
        )
        for *_, message in found
    )
