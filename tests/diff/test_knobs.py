"""The configuration as users name it: each knob a pair differs in is named, first, on both sides.

AICB workloads come from :mod:`tests.synth.aicb_workload` (AICB's generators' rows and sizes, checked against
AICB's own output: the same knobs); Megatron runs from :mod:`tests.synth.megatron_run` and, where the shared
corpus is here, the real runs of the writer's two modes.
"""

from __future__ import annotations

import dataclasses
import io
import shutil
from pathlib import Path

import pytest

from lint.cli import main
from lint.diff import SideOptions
from lint.diff.sides import load_side
from lint.models.diff import DiffReport
from tests.diff.conftest import diff_of
from tests.shared_corpus import corpus_dir
from tests.synth.aicb_workload import AicbSpec, write_aicb
from tests.synth.megatron_run import RunSpec, write_run

BASE = AicbSpec()
MOE = AicbSpec(sp=True, experts=8, ep=2)
ONE_KNOB = {  # knob -> (base, changed, the headline's first words)
    "tp": (BASE, AicbSpec(tp=4), "tp 2 → 4, dp 4 → 2"),
    "pp": (BASE, AicbSpec(pp=4), "pp 2 → 4, dp 4 → 2, vpp 4 → 2"),
    "dp": (BASE, AicbSpec(world=32), "dp 4 → 8"),
    "ep": (MOE, dataclasses.replace(MOE, ep=4), "ep 2 → 4"),
    "sp": (BASE, AicbSpec(sp=True), "sp off → on"),
    "mbs": (BASE, AicbSpec(mbs=2), "mbs 1 → 2"),
    "seq": (BASE, AicbSpec(seq=2048), "seq 1,024 → 2,048"),
    "gbs": (BASE, AicbSpec(gbs=128), "gbs 64 → 128"),
    "layers": (BASE, AicbSpec(layers=16), "layers 8 → 16, vpp 4 → 8"),
    "hidden": (BASE, AicbSpec(hidden=2048), "hidden 1,024 → 2,048"),
    "experts": (MOE, dataclasses.replace(MOE, experts=16), "experts 8 → 16"),
    "recompute": (BASE, AicbSpec(recompute=True), "recompute off → on"),
    "phase": (AicbSpec(path="inference", layers=4), AicbSpec(path="inference", layers=4, phase="prefill"), "phase decode → prefill"),
}


def headline(report: DiffReport) -> str:
    return report.summary.headline


@pytest.mark.parametrize("knob", ONE_KNOB, ids=list(ONE_KNOB))
def test_each_knob_an_aicb_pair_differs_in_leads_the_headline(tmp_path: Path, knob: str) -> None:
    before, after, named = ONE_KNOB[knob]
    report = diff_of(write_aicb(before, tmp_path / "a"), write_aicb(after, tmp_path / "b"))
    # before: "model_parallel_NPU_group 2 → 4", "ga 16 → 8", "pp_comm …", or only comm changes
    assert headline(report).startswith(named + ";") or headline(report) == named, headline(report)
    assert report.a.config[knob] != report.b.config[knob]


def test_the_vocabulary_and_topk_are_named_where_no_knob_changed(tmp_path: Path) -> None:
    assert headline(diff_of(write_aicb(BASE, tmp_path / "a"), write_aicb(AicbSpec(vocab=32000), tmp_path / "b"))).startswith("vocab 50,257 → 32,000;")
    moe = diff_of(write_aicb(MOE, tmp_path / "c"), write_aicb(dataclasses.replace(MOE, topk=4), tmp_path / "d"))
    assert headline(moe).startswith("topk 2 → 4;")


def test_a_workload_renamed_tells_seq_times_mbs_not_each(tmp_path: Path) -> None:
    a = write_aicb(BASE, tmp_path / "a", name="before.txt")
    b = write_aicb(AicbSpec(mbs=2), tmp_path / "b", name="after.txt")
    report = diff_of(a, b)
    assert report.a.config["mbs"] is None and report.a.config["seq"] is None  # the rows tell seq·mbs only
    assert headline(report).startswith("seq·mbs 1,024 → 2,048;")


def test_a_workload_whose_name_contradicts_its_header_is_not_believed(tmp_path: Path) -> None:
    stale = write_aicb(BASE, tmp_path, name=AicbSpec(tp=4).name)  # named for tp 4, written for tp 2
    assert load_side(str(stale), SideOptions(use_cache=False)).knobs["mbs"] is None


def test_both_sides_knobs_are_shown_with_a_question_mark_for_unknown(tmp_path: Path) -> None:
    a = write_aicb(BASE, tmp_path / "a")
    b = write_aicb(AicbSpec(path="aiob"), tmp_path / "b")  # the AIOB path does not tell recomputation
    out, err = io.StringIO(), io.StringIO()
    main(["diff", str(a), str(b)], stdout=out, stderr=err)
    lines = out.getvalue().splitlines()
    table = lines[3:6]
    assert table[0].split() == ["tp", "pp", "dp", "ep", "sp", "vpp", "mbs", "seq", "gbs", "layers", "hidden", "experts", "recompute", "phase"]
    assert table[1].split() == ["a", "2", "2", "4", "1", "off", "4", "1", "1,024", "64", "8", "1,024", "0", "off", "train"]
    assert table[2].split() == ["b", "2", "2", "4", "1", "off", "4", "1", "1,024", "64", "8", "1,024", "0", "?", "train"]


def test_row_counts_are_bookkeeping_not_configuration(tmp_path: Path) -> None:
    report = diff_of(write_aicb(BASE, tmp_path / "a"), write_aicb(AicbSpec(gbs=128), tmp_path / "b"))
    rows = [c for c in report.changes if c.key == "rows"]
    assert rows and all(c.category == "structure" and not c.significant for c in rows)  # before: config "declared 171 → 331"
    assert "rows" not in headline(report) and "declared" not in headline(report)


# -- Megatron runs -------------------------------------------------------------------------------------


def test_layers_at_tp_1_come_from_the_gradient_all_reduce(tmp_path: Path) -> None:
    # tp 1: Megatron skips the layer all-reduces, so only the gradient all-reduce's size tells the layers
    spec = RunSpec(tp=1, pp=2, dp=2, micro_batches=2, layers=6, hidden=32, seq=8, vocab=64)
    write_run(spec, tmp_path / "run")
    knobs = load_side(str(tmp_path / "run"), SideOptions(use_cache=False)).knobs
    assert (knobs["tp"], knobs["layers"], knobs["hidden"], knobs["seq"], knobs["mbs"]) == (1, 6, 32, 8, 2)  # before: layers unknown


def test_a_run_names_its_knobs(tmp_path: Path) -> None:
    spec = RunSpec(tp=2, pp=2, dp=2, micro_batches=4, layers=4, hidden=32, seq=8, vocab=64)
    write_run(spec, tmp_path / "run")
    profile = load_side(str(tmp_path / "run"), SideOptions(use_cache=False))
    assert profile.knobs == {
        "tp": 2,
        "pp": 2,
        "dp": 2,
        "ep": None,  # the trace does not tell it, nor do these file names
        "sp": False,
        "vpp": 1,
        "mbs": 2,
        "seq": 8,
        "gbs": 16,
        "layers": 4,
        "hidden": 32,
        "experts": None,
        "recompute": False,
        "phase": "train",
    }
    assert profile.config["vocab"] == {"": 64} and profile.mode == "realistic_trace"


def test_a_moe_run_names_its_experts_and_ep() -> None:
    run = corpus_dir("real", "megatron-trace", "moe_mg__realistic_trace__pp2_tp1_exp2_expn8_dp8_sl1024__node1+node2")
    knobs = load_side(str(run), SideOptions(use_cache=False)).knobs
    # experts from the expert all-gather of the per-expert token counts; ep as moe_mg's file names state it
    assert (knobs["experts"], knobs["ep"], knobs["layers"], knobs["seq"], knobs["mbs"]) == (8, 2, 8, 1024, 1)


def test_a_scaling_mode_run_tells_seq_and_mbs_without_p2p() -> None:
    run = corpus_dir("real", "megatron-trace", "MegatronLM__profiler_log__wd4_tp2_pp2_numl40_GPT2_2025032014424x")
    knobs = load_side(str(run), SideOptions(use_cache=False)).knobs
    assert (knobs["seq"], knobs["mbs"], knobs["hidden"], knobs["layers"]) == (4096, 1, 5120, 40)  # before: seq and mbs dropped


def test_a_llama_run_takes_tp_from_the_writers_file_names() -> None:
    run = corpus_dir("real", "megatron-trace", "MegatronLM__realistic_trace__wd4_tp2_pp2_numl40_LLaMa_20250320141611")
    assert load_side(str(run), SideOptions(use_cache=False)).knobs["tp"] == 2  # GPT's parameter count does not fit LLaMA


def test_a_trace_against_its_aicb_workload_compares_one_stage(tmp_path: Path) -> None:
    spec = RunSpec(tp=2, pp=2, dp=1, micro_batches=1, layers=4, hidden=32, seq=8, micro_batch_size=1, vocab=64, dtype="torch.bfloat16")
    write_run(spec, tmp_path / "run")
    workload = write_aicb(AicbSpec(world=4, tp=2, pp=2, gbs=1, mbs=1, seq=8, layers=4, hidden=32, vocab=64), tmp_path / "workload")
    report = diff_of(tmp_path / "run", workload)
    assert report.summary.compared == "common per-layer profile of one stage"
    # before: "layers 4 → 2", "removed layer 2-3", −50 % bytes per pass: one stage against the whole model
    assert [(c.key, c.before, c.after) for c in report.changes] == [("vpp", 1, 2)]  # AICB's vpp is the layers of a stage


def test_two_real_runs_in_the_writers_two_modes_differ_by_their_modes_only() -> None:
    realistic = corpus_dir("real", "megatron-trace", "MegatronLM__realistic_trace__wd4_tp2_pp2_numl40_GPT2_20250320144110")
    scaling = corpus_dir("real", "megatron-trace", "MegatronLM__profiler_log__wd4_tp2_pp2_numl40_GPT2_2025032014424x")
    report = diff_of(realistic, scaling)
    assert (report.a.mode, report.b.mode) == ("realistic_trace", "profiler_log (scaling mode)")
    assert report.summary.verdict == "no significant change" and not report.failing  # before: 9 significant of 89 changes
    assert all(change.cause == "writer mode" for change in report.changes)
    assert headline(report).startswith("written in two modes, realistic_trace and profiler_log (scaling mode): ")
    assert report.a.config == report.b.config


def test_aicbs_two_paths_differ_by_their_paths_only(tmp_path: Path) -> None:
    report = diff_of(write_aicb(BASE, tmp_path / "a"), write_aicb(AicbSpec(path="aiob"), tmp_path / "b"))
    assert (report.a.mode, report.b.mode) == ("AICB (plain path)", "AICB (AIOB path)")
    assert report.summary.verdict == "no significant change" and all(change.cause == "writer mode" for change in report.changes)
    assert "−100" not in headline(report) and "workload compute" not in headline(report)  # before: the 1 ns placeholders, as −100 %


def test_a_renamed_op_is_a_rename(tmp_path: Path) -> None:
    real = corpus_dir("real", "megatron-trace", "moe_mg__realistic_trace__pp2_tp1_exp2_expn8_dp8_sl1024__node1+node2")
    renamed = tmp_path / "renamed"
    shutil.copytree(real, renamed)
    for path in renamed.glob("*.txt"):  # the other writer version's names
        path.write_text(path.read_text(encoding="utf-8").replace("ep_dp_allreduce", "exp_dp_allreduce").replace("=ep_dp,", "=exp_dp,"), encoding="utf-8")
    report = diff_of(real, renamed)
    assert [(c.kind, c.key, c.before, c.after, c.significant) for c in report.changes if c.category != "timing"] == [
        ("renamed", "ep_dp_allreduce", "ep_dp_allreduce", "exp_dp_allreduce", False)
    ]  # before: removed ep_dp_allreduce, added exp_dp_allreduce, on each stage and in comm
    assert "renamed ep_dp_allreduce → exp_dp_allreduce" in headline(report)


def test_one_rank_of_a_later_stage_against_its_aicb_workload_aligns_the_layers(tmp_path: Path) -> None:
    spec = RunSpec(tp=2, pp=2, dp=1, micro_batches=1, layers=4, hidden=32, seq=8, micro_batch_size=1, vocab=64, dtype="torch.bfloat16")
    last_stage_rank = write_run(spec, tmp_path / "run")[-1]
    workload = write_aicb(AicbSpec(world=4, tp=2, pp=2, gbs=1, mbs=1, seq=8, layers=4, hidden=32, vocab=64), tmp_path / "workload")
    report = diff_of(last_stage_rank, workload)
    assert report.summary.compared == "common per-layer profile of one stage"
    assert not [c for c in report.changes if c.category == "structure"]  # before: "removed layer 2-3", "added layer 0-1"
