"""Generated runs with known changes: each change is found and classified, and nothing else is significant.

Run B is run A with TP 2 -> 4, bfloat16 instead of float32, layer 3 (on stage 1) without its MLP
all-reduce pair, and stage 3 20 % slower in every step.  Ranks draw their timings independently, so
B's stages 0-2 are a fresh sample of the same distributions: noise the differ must not flag.
"""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest

from lint.models.diff import Change, DiffReport
from tests.diff.conftest import SEEDS, diff_of, keyed, significant
from tests.synth.megatron_run import (
    RunSpec,
    drop_layer_collective_pair,
    generate_run,
    rescale_durations,
    slow_down_stage,
    write_records,
    write_run,
)
from tests.test_synth import parse_file

A = RunSpec(tp=2, pp=4, dp=2, micro_batches=8, layers=8, hidden=64, seq=16, micro_batch_size=2, iterations=5, vocab=512)
B = dataclasses.replace(A, tp=4, dtype="torch.bfloat16")
LAYER_WITHOUT_COLLECTIVE = 3  # stage 1 holds layers 2 and 3
SLOW_STAGE = 3


def relative(change: Change) -> float:
    """``change.rel_delta``, checked to be there: every change these tests bound is between two numbers."""
    assert change.rel_delta is not None, change
    return change.rel_delta


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> DiffReport:
    root = tmp_path_factory.mktemp("pair")
    run_b = drop_layer_collective_pair(B, generate_run(B), LAYER_WITHOUT_COLLECTIVE)
    run_b = slow_down_stage(run_b, SLOW_STAGE, 1.2)
    write_run(A, root / "a")
    write_run(B, root / "b", run=run_b)
    return diff_of(root / "a", root / "b")


def test_the_layout_and_dtype_changes_are_config(pair: DiffReport) -> None:
    assert {(c.key, c.field, c.before, c.after) for c in significant(pair, "config")} == {
        ("tp", "", 2, 4),
        ("world", "", 16, 32),
        ("dtype", "", "float32", "bfloat16"),
    }


def test_the_lost_collective_pair_is_structure_on_its_stage(pair: DiffReport) -> None:
    assert {(c.key, c.field, c.before, c.after) for c in significant(pair, "structure")} == {
        ("stage 1 forward_step tp allreduce", "per call", 4, 3),
        ("stage 1 backward_step tp allreduce", "per call", 4, 3),
    }


def test_comm_changes_are_the_dtype_and_tp_consequences(pair: DiffReport) -> None:
    changes = {(c.key, c.field): c for c in significant(pair, "comm")}
    # Per micro-batch: 8 layer all-reduces of 32 x 64 per stage (2 fewer on stage 1 in B), and on the last
    # stage the embedding gradient (16 x 2 x 64) and 3 float32 cross-entropy reductions (16 x 2).
    layer, loss = 32 * 64, 3 * 16 * 2 * 4
    assert (changes["tp allreduce", "bytes per step"].before, changes["tp allreduce", "bytes per step"].after) == (
        8 * ((4 * 8 + 1) * layer * 4 + loss),
        8 * ((4 * 8 - 2 + 1) * layer * 2 + loss),
    )
    assert changes["tp allreduce", "message bytes"].rel_delta == pytest.approx(-0.5)
    assert (changes["tp allreduce", "dtype"].before, changes["tp allreduce", "dtype"].after) == ("float32", "bfloat16")
    # parameters per rank shrink with TP as well as with the dtype
    assert relative(changes["dp dp_allreduce", "bytes per step"]) < -0.7
    assert changes["ep ep_allreduce", "message bytes"].rel_delta == pytest.approx(-0.75)
    untouched = {"tp broadcast", "dp allreduce"}  # batch broadcasts and the loss keep their dtypes
    assert not untouched & {key for key, _ in changes}
    assert {key for key, _ in changes} == {
        "tp allreduce",
        "dp dp_allreduce",
        "ep ep_allreduce",
        "pp send_forward",
        "pp recv_forward",
        "pp send_backward",
        "pp recv_backward",
    }


def test_the_slow_stage_is_found_and_no_other_stage_is_flagged(pair: DiffReport) -> None:
    timing = significant(pair, "timing")
    assert ("step", "median") in keyed(timing)
    assert {("stage 3 step", "median"), ("stage 3 forward_step", "median"), ("stage 3 backward_step", "median")} <= keyed(timing)
    for change in timing:
        assert change.key == "step" or change.key.startswith(f"stage {SLOW_STAGE} ") or change.key == "op loss_func", change.key
        assert 0.12 < relative(change) < 0.3, change.key  # 20 % slower, give or take the samples
    step = next(c for c in timing if c.key == "step")
    assert step.rel_delta == pytest.approx(0.2, abs=0.05)


def test_the_headline_says_what_changed_and_what_drove_it(pair: DiffReport) -> None:
    headline = pair.summary.headline
    # b lost a layer's collective pair: `tlint check` finds errors (TL509), so the verdict cannot rest on b
    assert headline.startswith("b has ") and pair.summary.verdict == "inconclusive"
    assert "; on what could be read: tp 2 → 4; changed stage 1" in headline  # the knob leads; world and dtype are listed
    assert "step time +" in headline and "(significant), driven by stage 3" in headline
    assert "tp allreduce bytes per step −53.0 % (float32 → bfloat16)" in headline
    assert pair.failing
    assert pair.summary.significant_categories == ["config", "structure", "comm", "timing"]


def test_config_and_structure_come_first_then_by_impact(pair: DiffReport) -> None:
    categories = [c.category for c in pair.changes if c.significant]
    assert categories[:5] == ["config"] * 3 + ["structure"] * 2
    impacts = [c.impact for c in pair.changes if c.significant and c.category in ("comm", "timing")]
    assert impacts == sorted(impacts, reverse=True)


def test_seed_trace_with_three_percent_noise_has_no_significant_timing_change(tmp_path: Path) -> None:
    seed = SEEDS / "000_14848477538be528.txt"
    records = parse_file(seed)
    noise = random.Random(3)
    noisy = rescale_durations({7: records}, lambda _, record: noise.uniform(0.97, 1.03))
    write_records(tmp_path / "noisy_rank7.txt", noisy[7])
    report = diff_of(seed, tmp_path / "noisy_rank7.txt")
    assert [c for c in report.changes if c.category != "timing"] == []
    assert significant(report) == []
    assert report.summary.verdict in ("identical", "no significant change") and not report.failing


def test_a_slow_warm_up_step_does_not_decide_the_verdict(tmp_path: Path) -> None:
    spec = dataclasses.replace(A, iterations=4)
    run = generate_run(spec)
    first_step = {rank: len(records) // spec.iterations for rank, records in run.items()}
    slow_start = rescale_durations(run, lambda rank, record: 5.0 if record.line <= first_step[rank] else 1.0)
    write_run(spec, tmp_path / "a", run=run)
    write_run(spec, tmp_path / "b", run=slow_start)
    report = diff_of(tmp_path / "a", tmp_path / "b")
    assert report.changes == [] and report.summary.verdict == "identical"


def test_a_threshold_above_the_change_hides_it(tmp_path: Path) -> None:
    spec = dataclasses.replace(A, iterations=3)
    write_run(spec, tmp_path / "a")
    write_run(spec, tmp_path / "b", run=slow_down_stage(generate_run(spec), 0, 1.2))
    assert significant(diff_of(tmp_path / "a", tmp_path / "b"), "timing")
    assert significant(diff_of(tmp_path / "a", tmp_path / "b", threshold=0.5), "timing") == []
