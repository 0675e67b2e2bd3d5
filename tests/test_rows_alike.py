"""Rows read from one text share ``alike``, and what the rules remember by it never changes a finding.

A workload or table repeats a few dozen rows over and over: the simai-workload and neusight-tsv parsers
convert each distinct row text once, and rules judge each distinct row once (``lint.rule.PerAlikeRow``).
The memos are bounded; when they forget, rows are judged again.  These tests make them forget after every
row, or stop remembering at once (what a file whose rows rarely repeat gets), and expect the very same
findings as with the defaults.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from lint.check import engine
from lint.formats import parser
from lint.formats.neusight_tsv import parser as neusight_tsv
from lint.formats.neusight_tsv.records import LayerRecord
from lint.formats.simai_workload import parser as simai_workload
from lint.formats.simai_workload.records import LayerRow
from lint.models import common
from lint.models.common import RowMemo
from lint.rule import PerAlikeRow

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

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
]


def _workload(rows: list[str], declared: int) -> str:
    return "\n".join([AICB_HEADER, str(declared), *rows]) + "\n"


def _findings(path: Path, trace_format: str) -> list[tuple[str, int | None, int | None, str]]:
    report = engine.check([str(path)], engine.CheckOptions(trace_format=trace_format, max_findings=0))
    return [(finding.code, finding.line, finding.column, finding.message) for finding in report.findings]


def _forgetful(monkeypatch: pytest.MonkeyPatch) -> None:
    """Parsers and rules that remember at most one row."""
    monkeypatch.setattr(PerAlikeRow, "ENTRIES", 1)
    for module in (simai_workload, neusight_tsv):
        monkeypatch.setattr(module, "RowMemo", lambda: RowMemo[Any](entries=1))


def _rows_rarely_repeat(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a file of ever new rows gets: parsers and rules that stop remembering rows at once."""
    monkeypatch.setattr(common, "rarely_repeat", lambda distinct, line: True)  # as the rules' memos ask it too


VARIANTS = [_forgetful, _rows_rarely_repeat]


def test_rows_of_one_text_share_alike_and_rows_of_other_texts_do_not() -> None:
    rows = [MICRO_BATCH[0], MICRO_BATCH[1], MICRO_BATCH[0], MICRO_BATCH[0] + " EXTRA", MICRO_BATCH[0] + " EXTRA"]
    records = [item for item in parser("simai-workload").parse(enumerate(_workload(rows, 5).splitlines(), 1)) if isinstance(item, LayerRow)]
    assert [row.line for row in records] == [3, 4, 5, 6, 7]
    first, other, again, *too_long = records
    assert first.alike == again.alike and dataclasses.replace(again, line=first.line) == first
    assert len({first.alike, other.alike, *(row.alike for row in too_long)}) == 4  # the grammar's rows are each their own

    table = (EXAMPLES / "neusight-gpt2-large.tsv").read_text(encoding="utf-8").splitlines()
    doubled = [table[0], table[1], table[2], table[1]]
    layers = [item for item in parser("neusight-tsv").parse(enumerate(doubled, 1)) if isinstance(item, LayerRecord)]
    assert layers[0].alike == layers[2].alike != layers[1].alike


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (AICB_HEADER, {"TL403", "TL405", "TL408", "TL409", "TL414", "TL415", "TL416", "TL417", "TL418"}),
        (AICB_HEADER.replace("_FWD_IN_BCKWD", ""), {"TL403", "TL405", "TL407", "TL408", "TL409"}),  # not AICB's
    ],
    ids=["aicb", "hand-made"],
)
def test_simai_findings_do_not_depend_on_what_parser_and_rules_remember(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variant: Any, header: str, expected: set[str]
) -> None:
    rows = MICRO_BATCH * 4 + TAIL + MICRO_BATCH * 2
    path = tmp_path / "workload.txt"
    path.write_text("\n".join([header, str(len(rows) - 3), *rows]) + "\n", encoding="utf-8")  # the last rows are past the count
    remembering = _findings(path, "simai-workload")
    assert {code for code, *_ in remembering} == expected
    assert any("(and 5 more moe_layer rows)" in message for *_, message in remembering)
    variant(monkeypatch)
    assert _findings(path, "simai-workload") == remembering


@pytest.mark.parametrize("variant", VARIANTS)
def test_neusight_findings_do_not_depend_on_what_parser_and_rules_remember(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variant: Any) -> None:
    header, *rows = (EXAMPLES / "neusight-gpt2-large.tsv").read_text(encoding="utf-8").splitlines()
    quirks = [
        "addmm_grad\t0.5\tNone\t0\t0\tALLREDUCE\t0\t0\tNone\t0\t0",
        "transformer_h_0_ln_1_grad\t0\tNone\t0\t0\tALLREDUCE_ASYNC\t2561\t0\tNone\t0\t0",
        "addmm\t9.98\tNone\t5\t0.0\tNone\t0\t0.0\tALLREDUCE_ASYNC\t4919040\t9.98",
        "input_ids\t0.0\tNone\t0\t0.0\tNone\t0\t0.0\tNone\t0\t0",
    ]
    path = tmp_path / "table.tsv"
    path.write_text("\n".join([header, *rows, *quirks, *rows, *quirks]) + "\n", encoding="utf-8")
    remembering = _findings(path, "neusight-tsv")
    assert {"TL301", "TL302", "TL303", "TL304", "TL305", "TL306", "TL307", "TL308"} <= {code for code, *_ in remembering}
    variant(monkeypatch)
    assert _findings(path, "neusight-tsv") == remembering


def _memo_after(texts: list[str]) -> RowMemo[int]:
    memo: RowMemo[int] = RowMemo()
    for line, text in enumerate(texts, 2):
        if memo.get(text) is None:
            memo.remember_row(text, line, line)
    return memo


def test_a_memo_of_rows_stops_remembering_only_when_rows_rarely_repeat() -> None:
    distinct = [f"layer_{n} -1 1 ALLREDUCE {n} 1 NONE 0 1 NONE 0 100" for n in range(5000)]
    assert _memo_after(distinct[:4000]).remembering  # too few rows to tell
    stopped = _memo_after(distinct)
    assert not stopped.remembering and not stopped and stopped.distinct == 5000
    repeated = _memo_after(distinct[:4000] * 3)  # 4000 texts, each three times
    assert repeated.remembering and len(repeated) == 4000
