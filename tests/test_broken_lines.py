"""A file of endlessly broken lines, through the command: its first syntax errors are explained, the rest counted.

Lark explains a line the fast path rejects in about a millisecond: a file of a million broken lines took minutes
to explain errors of which only the first --max-findings are shown.  The grammar now explains them until a second
finding is past --max-findings, and at most ten times --max-findings lines (a cause repeated on every line is one
finding); each further line the fast path rejects is counted: in summary.not_shown when the findings are all shown
already, else in one finding on the first of them.  The file's verdict and the exit code stay those of a broken file.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from lark import Lark

from lint.cli import main
from tests.spy import spy

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
MEGATRON_LINE = (EXAMPLES / "megatron-trace_rank7.txt").read_text(encoding="utf-8").splitlines()[0]


def check(path: Path, *options: str) -> tuple[int, dict[str, Any]]:
    out = io.StringIO()
    code = main(["check", str(path), "--output-format", "json", "--no-cache", *options], stdout=out, stderr=io.StringIO())
    return code, json.loads(out.getvalue())


def megatron_alternating(path: Path, lines: int) -> Path:
    """``lines`` broken records, each line's error another than the line before's: no two make one run."""
    damages = [("stage_id=3", "stage_id=x"), ("batch_id=0", "batch_id=-1")]
    path.write_text("".join(MEGATRON_LINE.replace(*damages[number % 2]) + "\n" for number in range(lines)), encoding="utf-8")
    return path


def test_past_max_findings_the_lines_the_grammar_rejects_are_counted_not_explained(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = megatron_alternating(tmp_path / "trace_rank7.txt", 60)
    explained: list[str] = []
    monkeypatch.setattr(Lark, "parse", spy(Lark.parse, lambda _, text, *args, **kwargs: explained.append(text) if text.startswith("rank:") else None))
    code, report = check(path, "--max-findings", "3", "--select", "TL001")
    assert code == 1 and report["files"][0]["parsed"] is False
    assert [(f["line"], f["message"]) for f in report["findings"]] == [
        (1, "expected a non-negative integer, found 'x'"),
        (2, "expected one of None or a non-negative integer, found '-1'"),
        (3, "expected a non-negative integer, found 'x'"),
    ]
    assert report["summary"]["not_shown"] == {"TL001": 57}  # lines 4 and 5 explained, 6-60 counted one each
    assert len(explained) == 5  # the three shown, and the two that are not: the second ends the explaining


def test_max_findings_0_explains_every_line(tmp_path: Path) -> None:
    code, report = check(megatron_alternating(tmp_path / "trace_rank7.txt", 60), "--max-findings", "0", "--select", "TL001")
    assert code == 1 and len(report["findings"]) == 60 and report["summary"]["not_shown"] == {}
    assert {f["message"] for f in report["findings"]} == {
        "expected a non-negative integer, found 'x'",
        "expected one of None or a non-negative integer, found '-1'",
    }


def _lines_of_one_cause(path: Path, format_name: str, rows: int) -> tuple[Path, int, str]:
    """A file of ``format_name`` whose ``rows`` rows all break alike, the line of the first, and its error."""
    if format_name == "megatron-trace":
        text = (MEGATRON_LINE.replace("stage_id=3", "stage_id=x") + "\n") * rows
        return _written(path, text), 1, "expected a non-negative integer, found 'x'"
    if format_name == "neusight-tsv":
        header = (EXAMPLES / "neusight-gpt2-large.tsv").read_text(encoding="utf-8").splitlines()[0]
        text = header + "\n" + "layer\t0.5\tNone\t0\t0.5x\tNone\t0\t0.0\tNone\t0\t0\n" * rows
        return _written(path, text), 2, "expected a time in ms such as 0.05 (a non-negative number), found '0.5x'"
    header = (EXAMPLES / "simai-workload.txt").read_text(encoding="utf-8").splitlines()[0]
    text = f"{header}\n{rows}\n" + "layer\t-1\t1\tNONE\t0\t1x\tNONE\t0\t1\tALLGATHER\t1\t100\n" * rows
    return _written(path, text), 3, "expected a non-negative integer, found '1x'"


def _written(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("format_name", ["megatron-trace", "neusight-tsv", "simai-workload"])
def test_a_cause_on_every_line_is_one_finding_for_ten_times_max_findings_lines_then_the_rest_one_more(tmp_path: Path, format_name: str) -> None:
    path, first, error = _lines_of_one_cause(tmp_path / "rows.txt", format_name, 50)
    code, report = check(path, "--max-findings", "2", "--trace-format", format_name, "--select", "TL001")
    assert code == 1 and report["files"][0]["parsed"] is False and report["summary"]["not_shown"] == {}
    assert [(f["line"], f["message"]) for f in report["findings"]] == [
        (first, f"{error} (also on 19 more lines, to line {first + 19})"),
        (
            first + 20,
            f"this line and 29 more to line {first + 49} were not read as {format_name} records and not diagnosed: tlint explains at most 20 lines"
            " of a file that its grammar rejects (10 times --max-findings; 0 explains every one)",
        ),
    ]
    code, report = check(path, "--max-findings", "0", "--trace-format", format_name, "--select", "TL001")
    assert [(f["line"], f["message"]) for f in report["findings"]] == [(first, f"{error} (also on 49 more lines, to line {first + 49})")]


def test_broken_records_of_a_console_log_past_max_findings_are_counted(tmp_path: Path) -> None:
    head = (EXAMPLES / "optprime-log.txt").read_text(encoding="utf-8").splitlines(keepends=True)[:20]
    broken = [f"  rank:{number % 8},  second metadata_range: [(0, 'submod_0'), ({number}x, 'submod_1')]\n" for number in range(40)]
    path = _written(tmp_path / "run.log", "".join(head + broken))
    code, report = check(path, "--max-findings", "3", "--select", "TL001")
    assert code == 1 and report["files"][0]["parsed"] is False
    assert [f["line"] for f in report["findings"]] == [21, 22, 23] and report["summary"]["not_shown"] == {"TL001": 37}
