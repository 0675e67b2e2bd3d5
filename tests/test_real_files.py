"""Every real file - the seeds and the older SimAI/ASTRA-sim samples read in place from
``../shared/corpus/simai_workload/`` - parses, and gets no error but the samples' real defects, each judged for
the consumer the file shows it is written for and each confirmed by a run of that consumer: an early AICB
``BROADCAST``, which ASTRA-sim 1.0 gives no time (TL405); and, for SimAI (aliyun/SimAI cef83f9d, which
aborts or prints a NaN total on each): a ``ga: 0`` (TL421), a header without ``vpp`` (TL410), a ``MICRO``
header (TL424).  The five checksum columns after the last declared row of SimAI-Ascend's
``target_10t_workload.txt`` are never read by SimAI (TL420, a warning)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from lint.cli import main
from tests.shared_corpus import corpus_dir

FIXTURES = Path(__file__).parent / "fixtures"


def check(*paths: Path) -> tuple[int, dict[str, Any]]:
    out = io.StringIO()
    code = main(["check", *map(str, paths), "--output-format", "json", "--max-findings", "0"], stdout=out, stderr=io.StringIO())
    return code, json.loads(out.getvalue())


def test_the_seeds_get_no_error() -> None:
    code, report = check(FIXTURES / "seeds")
    assert [f for f in report["findings"] if f["severity"] == "error"] == []
    assert code == 0 and report["summary"]["checked"] == 5


def test_the_older_samples_get_no_error_but_their_defect() -> None:
    samples = corpus_dir("simai_workload")
    code, report = check(samples)
    errors = [f for f in report["findings"] if f["severity"] == "error"]
    assert code == 1
    assert {(Path(f["path"]).name, f["code"]) for f in errors} == {
        ("aicb__workload__simAI__model_workload__G13B-M1-C01_GPT13B_megatron_tp8_pp1_mbs1_A100.txt", "TL405"),
        ("ngcs-simai__workloads__None-gpt_7B-world_size128-tp4-pp1-ep1-gbs16-mbs1-seq2048-MOE-False-GEMM-False-flash_attn-False.txt", "TL421"),
        ("simai-ascend__example__workload_analytical__blobd603330.txt", "TL410"),
        ("simai__example__workload_micro_allreduce.txt", "TL424"),
    }
    assert len(errors) == 4
    assert [Path(f["path"]).name for f in report["findings"] if f["code"] == "TL420"] == ["simai-ascend__tests__contract__fixtures__target_10t_workload.txt"]
    assert [f["path"] for f in report["files"] if not f["parsed"]] == []
    assert all(Path(p).suffix == ".md" for p in report["summary"]["skipped"])
