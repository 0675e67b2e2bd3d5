"""Real inputs of each format, and a trace against a workload: what the first lines say."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from lint.models.diff import DiffReport
from tests.diff.conftest import CORPUS, SEEDS, diff_of, keyed, significant
from tests.shared_corpus import corpus_dir
from tests.synth.megatron_run import RunSpec, write_run
from tests.synth.simai_workload import write_workload

SEED_000, SEED_001 = SEEDS / "000_14848477538be528.txt", SEEDS / "001_0e8fa2e5d125871b.txt"
SEED_003, SEED_004 = SEEDS / "003_891053d3e8445d09.txt", SEEDS / "004_e7a75019e7d30864.txt"
SEED_002 = SEEDS / "002_cbcb88115115ad29.txt"
AICB_13B = CORPUS / "aicb__workload__simAI__model_workload__G13B-M1-C01_GPT13B_megatron_tp8_pp1_mbs1_A100.txt"
GPT_7B = "ngcs-simai__workloads__None-gpt_7B-world_size{}-tp4-pp1-ep1-gbs16-mbs1-seq2048-MOE-False-GEMM-False-flash_attn-False.txt"


def changes_of(report: DiffReport) -> dict[tuple[str, str, str], object]:
    return {(c.category, c.key, c.field): (c.before, c.after) for c in report.changes}


def test_two_megatron_seeds_of_different_models() -> None:
    report = diff_of(SEED_000, SEED_001)
    found = changes_of(report)
    assert found["config", "pp", ""] == (4, 2)  # stage 3 of 4 against stage 1 of 2
    assert found["comm", "dp dp_allreduce", "dtype"] == ("float32", "float16")
    assert ("structure", "stage 1 forward_step exp all_to_all", "") in found  # the MoE run's expert all-to-alls
    assert report.summary.headline.startswith("pp 4 → 2")
    assert not significant(report, "timing")  # one sample of each op per side


def test_seed_004_against_a_public_aicb_workload() -> None:
    corpus_dir("simai_workload")
    report = diff_of(SEED_004, AICB_13B)
    found = changes_of(report)
    assert found["structure", "rows", "present"] == (33, 92)
    assert ("config", "pp", "") not in found  # a generation-1 header states only TP: unknown there, not a change
    assert ("structure", "row attention_norm#0-11", "") in found and ("structure", "row attention_layer#0-39", "") in found
    # The 13B workload of an early AICB broadcasts its norm, a comm type its simulator does not know: an error
    assert report.summary.verdict == "inconclusive" and report.b.errors == 1 and "BROADCAST" in report.b.problems[0]


def test_two_gpt_7b_workloads_that_differ_in_world_size_only() -> None:
    corpus_dir("simai_workload")
    report = diff_of(CORPUS / GPT_7B.format(8), CORPUS / GPT_7B.format(32))
    found = changes_of(report)
    assert found["config", "world", ""] == (8, 32) and found["config", "micro-batches", ""] == (8, 2)
    assert found["config", "dp", ""] == (2, 8)
    # ga 8 -> 2: two copies of the micro-batch's rows instead of eight, not the rows of six passes "removed"
    assert found["structure", "rows", "copies"] == (8, 2)
    assert not [key for key in found if key[0] in ("structure", "comm") and key[1].startswith("row ")]
    assert found["comm", "tp allreduce", "calls per pass"] == (1184, 302)


def test_seed_003_against_an_edited_copy(tmp_path: Path) -> None:
    text = SEED_003.read_text(encoding="utf-8")
    edited = text.replace("transformer_h_0_ln_1_grad\t0\tNone\t0\t0\tALLREDUCE_ASYNC\t2560", "transformer_h_0_ln_1_grad\t0\tNone\t0\t0\tALLREDUCE_ASYNC\t5120")
    edited = edited.replace("getitem_5\t0.050241159951955175\tNone", "getitem_5\t0.050241159951955175\tALLREDUCE")
    assert edited.count("\n") == text.count("\n") and edited != text
    (tmp_path / "edited.tsv").write_text(edited, encoding="utf-8")
    report = diff_of(SEED_003, tmp_path / "edited.tsv")
    found = changes_of(report)
    assert found["comm", "row transformer_h_0_ln_1_grad#0", "backward bytes"] == (10240, 20480)
    assert found["structure", "row getitem_5#0", "forward comm"] == ("None", "ALLREDUCE")
    assert ("config", "hidden", "") not in found  # H = 1280 still: two of the three layernorms say so
    assert {c.category for c in significant(report)} == {"structure", "comm"}


@pytest.mark.parametrize("dtype", ["torch.bfloat16", "torch.float32"])
def test_a_generated_run_against_the_workload_written_for_it(tmp_path: Path, dtype: str) -> None:
    spec = RunSpec(tp=2, pp=4, dp=2, micro_batches=4, layers=8, hidden=64, seq=16, micro_batch_size=2, iterations=2, vocab=512, dtype=dtype)
    write_run(spec, tmp_path / "run")
    workload = write_workload(spec, tmp_path / "workload.txt")
    report = diff_of(tmp_path / "run", workload)
    assert report.summary.compared == "common per-layer profile of one stage"  # AICB writes one stage; the run's 4 fold onto it
    assert (report.a.format, report.b.format) == ("megatron-trace", "simai-workload")
    assert "shape × dtype size" in report.a.units["comm"] and report.b.units["comm"] == "bytes as written"
    # AICB writes vpp = the layers of a stage, which SimAI reads as virtual stages; the profiler's 1F1B has one
    vpp = ("vpp", "", 1.0)  # 1 → 2 (8 layers, 4 stages)
    if dtype == "torch.bfloat16":  # AICB's 2-byte sizes are the trace's: knobs, layers, collectives all agree
        assert {(c.key, c.field, c.rel_delta) for c in report.changes} == {vpp}
    else:
        assert {(c.key, c.field, c.rel_delta) for c in significant(report)} == {
            vpp,
            ("layers fwd tp allreduce", "message bytes", -0.5),
            ("layers fwd tp allreduce", "bytes per pass", -0.5),
            ("layers bwd tp allreduce", "message bytes", -0.5),
            ("layers bwd tp allreduce", "bytes per pass", -0.5),
        }


def test_a_workload_written_for_another_layout_is_told_apart(tmp_path: Path) -> None:
    spec = RunSpec(tp=2, pp=2, dp=2, micro_batches=2, layers=4, hidden=64, seq=16, vocab=512, dtype="torch.bfloat16")
    write_run(spec, tmp_path / "run")
    workload = write_workload(dataclasses.replace(spec, tp=4, layers=6), tmp_path / "workload.txt")
    found = changes_of(diff_of(tmp_path / "run", workload))
    assert found["config", "tp", ""] == (2, 4) and found["config", "layers", ""] == (4, 6)
    assert found["structure", "layers", "count"] == (2, 3)  # of one stage: the run's two stages fold onto one
    assert ("structure", "layer 2 fwd", "") in found


def test_a_trace_against_a_neusight_table() -> None:
    report = diff_of(SEED_000, SEED_003)
    found = changes_of(report)
    assert report.summary.compared == "common per-layer profile of one stage"  # one rank's file: its stage's layers from 0
    assert found["structure", "layers", "count"] == (10, 1)
    assert ("timing", "layers fwd compute", "median") in found


def test_seed_002_against_a_copy_whose_layer_6_is_slower(tmp_path: Path) -> None:
    def slower(match: re.Match[str]) -> str:
        total, ops = float(match.group(1)) * 1.3, int(match.group(2))
        return f"layer[6]: total={total:.3f}ms, ops={ops}, avg/op={total / ops:.3f}ms"

    text = SEED_002.read_text(encoding="utf-8")
    edited = re.sub(r"layer\[6\]: total=([0-9.]+)ms, ops=(\d+), avg/op=[0-9.]+ms", slower, text)
    (tmp_path / "slower.log").write_text(edited, encoding="utf-8")
    report = diff_of(SEED_002, tmp_path / "slower.log")
    assert keyed(significant(report)) == {("layer 6 forward", "median"), ("stage 3 forward", "median")}
    assert report.summary.headline.startswith("stage 3 forward +15.5 % (significant)")
    assert diff_of(SEED_002, SEED_002).changes == []
