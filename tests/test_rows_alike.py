"""Rows alike are judged once, and what the engine and the parser remember of them never changes a finding.

A workload repeats a few dozen rows over and over: the simai-workload parser reads each distinct row text
once (a bounded cache), and a rule that judges the rows of a kind (``judge_<kind>``, lint.rule.Rule) is
asked once per distinct row, the engine handing the rows equal to it the same verdict (``_Judged`` in
lint/check/engine.py).  Both are bounded; when they forget, rows are read and judged again.  These tests
make them forget after every row, or not remember at all, and expect the very same findings.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from lint.check import engine
from lint.formats import parser
from lint.formats.simai_workload.parser import Parser as SimaiParser
from lint.formats.simai_workload.records import LayerRow
from lint.formats.simai_workload.rulekit import DistinctRows
from lint.rule import registry

AICB_HEADER = (
    "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ep: 2 pp: 2 vpp: 4 ga: 2 all_gpus: 16 pp_comm: 123 checkpoints: 0 checkpoint_initiates: 0"
)
# One micro-batch of layers, each with a quirk some rule reports (and rows alike that share it).
MICRO_BATCH = [
    "attention_column -1 10 ALLGATHER 1024 10 REDUCESCATTER 0 10 NONE 0 100",
    "attention_row -1 10 REDUCESCATTER 1024 10 NONE 1024 10 NONE 0 100",
    "mlp_layer -1 10 ALLREDUCE 1024 10 ALLREDUCE 1024 10 NONE 0 100",
    "moe_layer -1 10 ALLTOALL_EP 0 10 ALLREDUCE_ASYNC 64 10 NONE 0 100",
    "norm -1 0 BROADCAST 16 1 NONE 0 1 NONE 0 100",
]
TAIL = [
    "mlp_layer -1 10 ALLREDUCE 2048 10 ALLREDUCE 1024 10 NONE 0 100",  # another TP size (TL415)
    "mlp_layer   -1 10 ALLREDUCE 1024 10 ALLREDUCE 1024 10 NONE 0 100",  # the same row, written otherwise
    "cross_entropy1 -1 1 ALLREDUCE 8192 1 NONE 0 1 NONE 0 100",
    "cross_entropy2 -1 1 ALLREDUCE 8190 1 NONE 0 1 NONE 0 100",
    "optimizer1 -1 1 ALLREDUCE 8 1 NONE 0 1 NONE 0 100",
    "grad_gather -1 1 NONE 0 1 NONE 0 1 ALLGATHER 1 100",
    "grad_param_comm -1 1 NONE 0 1 NONE 0 1 REDUCESCATTER 6 100",
    "grad_gather -1 1 NONE 0 1 NONE 0 1 ALLGATHER 4 100",
    "moe_grad_norm1 -1 1 NONE 0 1 NONE 0 1 ALLREDUCE_DP_EP 256 100",  # expert traffic: moe_layer's empty ALLTOALL_EP is lost traffic
    MICRO_BATCH[0] + " EXTRA",  # too long (TL002): still a row, of more columns
    MICRO_BATCH[0] + " EXTRA",
]
ROWS = MICRO_BATCH * 4 + TAIL + MICRO_BATCH * 2


def _workload(tmp_path: Path, header: str = AICB_HEADER) -> Path:
    path = tmp_path / "workload.txt"
    path.write_text("\n".join([header, str(len(ROWS) - 3), *ROWS]) + "\n", encoding="utf-8")  # the last rows are past the count
    return path


def _findings(path: Path, trace_format: str) -> list[tuple[str, int | None, int | None, str]]:
    report = engine.check([str(path)], engine.CheckOptions(trace_format=trace_format, max_findings=0))
    return [(finding.code, finding.line, finding.column, finding.message) for finding in report.findings]


def _forgetful(monkeypatch: pytest.MonkeyPatch) -> None:
    """An engine and rules that remember at most one row's verdict or place, and a parser that reads every row anew."""
    monkeypatch.setattr(engine._Said, "ENTRIES", 1)
    monkeypatch.setattr(DistinctRows, "ENTRIES", 1)
    _reading_every_row(monkeypatch)


def _judging_every_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """An engine that asks a rule's judgement of every row, and a parser that reads every row anew."""

    def judged_anew(self: engine._Judged, record: Any) -> Any:
        return self.check_judged(record, self.judge(record))

    monkeypatch.setattr(engine._Judged, "check", judged_anew)
    _reading_every_row(monkeypatch)


def _reading_every_row(monkeypatch: pytest.MonkeyPatch) -> None:
    simai = parser("simai-workload")
    assert isinstance(simai, SimaiParser)
    monkeypatch.setattr(simai, "_fast_row", simai._row_values)


VARIANTS = [_forgetful, _judging_every_row]


def test_rows_of_one_text_are_equal_but_for_their_line() -> None:
    rows = [MICRO_BATCH[0], MICRO_BATCH[1], MICRO_BATCH[0], MICRO_BATCH[0] + " EXTRA", MICRO_BATCH[0].replace(" ", "\t")]
    text = "\n".join([AICB_HEADER, str(len(rows)), *rows]) + "\n"
    records = [item for item in parser("simai-workload").parse(enumerate(text.splitlines(), 1)) if isinstance(item, LayerRow)]
    assert [row.line for row in records] == [3, 4, 5, 6, 7]
    first, other, again, too_long, tabbed = records
    assert engine._values_of(LayerRow)(first) == engine._values_of(LayerRow)(again) == engine._values_of(LayerRow)(tabbed)
    assert engine._values_of(LayerRow)(first) != engine._values_of(LayerRow)(other)
    assert too_long.extra_columns == ("EXTRA",) and engine._values_of(LayerRow)(too_long) != engine._values_of(LayerRow)(first)


def test_a_rule_judges_each_distinct_row_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rule = registry()["TL405"]
    judged: Counter[str] = Counter()

    def counted(self: Any, row: LayerRow) -> Any:
        judged[row.name] += 1
        return judge(self, row)

    judge = rule.judge_layer_row  # type: ignore[attr-defined]
    monkeypatch.setattr(rule, "judge_layer_row", counted)
    findings = _findings(_workload(tmp_path), "simai-workload")
    # mlp_layer: two texts of one row and one of another TP size; attention_column: also as two long rows alike
    assert judged == {"attention_column": 2, "attention_row": 1, "mlp_layer": 2, "moe_layer": 1, "norm": 1} | {
        name: 1 for name in ("cross_entropy1", "cross_entropy2", "optimizer1", "grad_param_comm", "moe_grad_norm1")
    } | {"grad_gather": 2}
    norm = "norm: fwd_comm_type BROADCAST with fwd_comm_size 16: SimAI decodes BROADCAST as no collective (Workload.cc:1436-1493), so these bytes take no time"
    assert ("TL405", 7, 1, f"{norm} (and 5 more norm rows)") in findings


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (AICB_HEADER, {"TL002", "TL403", "TL405", "TL408", "TL409", "TL414", "TL415", "TL416", "TL417", "TL418"}),
        (AICB_HEADER.replace("_FWD_IN_BCKWD", ""), {"TL002", "TL403", "TL405", "TL407", "TL408", "TL409"}),  # not AICB's
    ],
    ids=["aicb", "hand-made"],
)
def test_simai_findings_do_not_depend_on_what_parser_and_rules_remember(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variant: Any, header: str, expected: set[str]
) -> None:
    path = _workload(tmp_path, header)
    remembering = _findings(path, "simai-workload")
    assert {code for code, *_ in remembering} == expected
    assert any("(and 5 more moe_layer rows)" in message for *_, message in remembering)
    variant(monkeypatch)
    assert _findings(path, "simai-workload") == remembering


def test_a_rule_whose_judgement_crashes_is_reported_and_the_others_still_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def explode(self: object, row: LayerRow) -> object:
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(registry()["TL405"], "judge_layer_row", explode)
    findings = _findings(_workload(tmp_path), "simai-workload")
    assert ("TL000", 3, None, "rule TL405 (undecoded-comm-type) failed at line 3 and was skipped for this file: ZeroDivisionError: boom") in findings
    assert {code for code, *_ in findings} >= {"TL408", "TL409", "TL415"} and "TL405" not in {code for code, *_ in findings}
