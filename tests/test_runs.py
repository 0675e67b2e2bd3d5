"""Runs end to end on a generated 4-stage x TP 2 x DP 2 job: every injected cross-rank fault is found
on the culprit rank and line; the clean run is clean; one asked file brings its siblings along."""

from __future__ import annotations

import gc
import io
import json
import os
import pickle
import shutil
from pathlib import Path
from typing import Any

import pytest

from lint.check import cache, engine
from lint.check.engine import read_summary
from lint.cli import main
from lint.formats.megatron_trace import summary as summary_module
from lint.formats.megatron_trace.summary import Run as RunModel
from lint.read.source import Source
from tests.shared_corpus import corpus_dir
from tests.spy import spy
from tests.synth.megatron_run import (
    Fault,
    Run,
    RunSpec,
    change_collective_dtype,
    change_collective_shape,
    drop_layer_collective_pair,
    drop_tp_collective,
    generate_run,
    mismatch_p2p_shape,
    put_rank_in_wrong_stage,
    remove_rank_file,
    write_run,
)

SPEC = RunSpec(tp=2, pp=4, dp=2, micro_batches=4, layers=8, hidden=64, seq=16, vocab=512)


@pytest.fixture(scope="module")
def clean_run() -> Run:
    return generate_run(SPEC)


def check(*argv: str) -> tuple[int, list[dict[str, Any]]]:
    out = io.StringIO()
    code = main(["check", *argv, "--output-format", "json", "--max-findings", "0"], stdout=out, stderr=io.StringIO())
    return code, json.loads(out.getvalue())["findings"]


def test_the_clean_run_is_clean(clean_run: Run, tmp_path: Path) -> None:
    write_run(SPEC, tmp_path, run=clean_run)
    assert check(str(tmp_path)) == (0, [])


@pytest.mark.parametrize(
    ("inject", "code"),
    [
        (lambda run: change_collective_shape(run, 5, occurrence=3), "TL505"),
        (lambda run: change_collective_dtype(run, 9, occurrence=1), "TL505"),
        (lambda run: drop_tp_collective(run, 6, occurrence=2), "TL505"),
        (lambda run: put_rank_in_wrong_stage(run, 10), "TL503"),
        (lambda run: mismatch_p2p_shape(run, 4, occurrence=1), "TL506"),
    ],
    ids=["size", "dtype", "missing-collective", "wrong-stage", "p2p-shape"],
)
def test_each_cross_rank_fault_is_found_on_the_culprit_rank_and_line(clean_run: Run, tmp_path: Path, inject: Any, code: str) -> None:
    run, fault = inject(clean_run)
    write_run(SPEC, tmp_path, run=run)
    status, findings = check(str(tmp_path))
    assert status == 1
    located = {(f["code"], f["rank"], Path(f["path"]).name.split("_")[1], f["line"]) for f in findings}
    assert (code, fault.rank, f"rank{fault.rank}", fault.line) in located, _explain(fault, findings)


def test_a_missing_rank_file_is_named(clean_run: Run, tmp_path: Path) -> None:
    run, fault = remove_rank_file(clean_run, 13)
    write_run(SPEC, tmp_path, run=run)
    status, findings = check(str(tmp_path))
    assert status == 0  # a warning: a directory may hold one node's files only
    assert [(f["code"], f["rank"], f["severity"]) for f in findings] == [("TL502", 13, "warning")], _explain(fault, findings)


def test_consecutive_missing_ranks_are_one_gap(clean_run: Run, tmp_path: Path) -> None:
    run, _ = remove_rank_file(clean_run, 5)
    run, _ = remove_rank_file(run, 6)
    write_run(SPEC, tmp_path, run=run)
    _, findings = check(str(tmp_path), "--select", "TL502")
    assert [(f["rank"], f["message"]) for f in findings] == [
        (5, "ranks 5-6 have no trace file (world of 16 ranks; stage 1 holds ranks 4-7)"),
    ]


def test_a_wild_rank_number_is_one_gap_not_a_billion_findings(tmp_path: Path) -> None:
    seed = (Path(__file__).parent / "fixtures" / "seeds" / "000_14848477538be528.txt").read_text(encoding="utf-8")
    (tmp_path / "trace_rank7.txt").write_text(seed, encoding="utf-8")
    # Both files are stage 3 of 4: a world of 10**9 ranks, 2.5 * 10**8 per stage.
    (tmp_path / "trace_rank8.txt").write_text(seed.replace("rank:7:", "rank:999999999:"), encoding="utf-8")
    _, findings = check(str(tmp_path), "--select", "TL502")
    assert [(f["rank"], f["message"].split(" (")[0]) for f in findings] == [
        (0, "ranks 0-6 have no trace file"),
        (8, "ranks 8-999999998 have no trace file"),
    ]


def test_majority_decides_the_culprit_not_the_first_rank(clean_run: Run, tmp_path: Path) -> None:
    run, _ = change_collective_dtype(clean_run, 0, occurrence=0)  # rank 0 comes first in its stage
    write_run(SPEC, tmp_path, run=run)
    _, findings = check(str(tmp_path), "--select", "TL505")
    assert {f["rank"] for f in findings} == {0}


def test_matching_goes_on_after_the_first_mismatch(clean_run: Run, tmp_path: Path) -> None:
    run, first = drop_tp_collective(clean_run, 6, occurrence=0)
    run, second = change_collective_dtype(run, 6, occurrence=5)
    write_run(SPEC, tmp_path, run=run)
    _, findings = check(str(tmp_path), "--select", "TL505")
    assert {first.line, second.line} <= {f["line"] for f in findings if f["rank"] == 6}


def test_one_asked_file_loads_its_siblings(clean_run: Run, tmp_path: Path) -> None:
    run, fault = change_collective_dtype(clean_run, 5, occurrence=0)
    paths = write_run(SPEC, tmp_path, run=run)
    asked = next(p for p in paths if "rank5_" in p.name)
    status, findings = check(str(asked), "--select", "TL5")
    assert status == 1
    assert {(f["path"], f["line"]) for f in findings} == {(str(asked), fault.line)}

    other = next(p for p in paths if "rank4_" in p.name)
    status, findings = check(str(other), "--select", "TL5")
    assert status == 1 and all(f["path"].endswith("trace_rank*") and f["line"] is None for f in findings)
    assert all(str(asked) in f["message"] for f in findings)


def test_parallel_jobs_give_the_same_report(clean_run: Run, tmp_path: Path) -> None:
    run, _ = mismatch_p2p_shape(clean_run, 4)
    write_run(SPEC, tmp_path, run=run)
    assert check(str(tmp_path), "--jobs", "1") == check(str(tmp_path), "--jobs", "2")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_check_leaves_garbage_collection_as_it_found_it(clean_run: Run, tmp_path: Path, jobs: str) -> None:
    """The check pauses automatic collection while it gathers summaries and runs the run rules, and only then."""
    run, _ = mismatch_p2p_shape(clean_run, 4)
    write_run(SPEC, tmp_path, run=run)
    expected = check(str(tmp_path), "--jobs", "1")
    assert gc.isenabled()
    assert check(str(tmp_path), "--jobs", jobs) == expected
    assert gc.isenabled()
    gc.disable()  # as a program embedding tlint may have it
    try:
        assert check(str(tmp_path), "--jobs", jobs) == expected
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.parametrize("served", ["checked-here", "by-workers", "from-the-cache"])
def test_a_stages_peers_share_one_copy_of_their_steps(clean_run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, served: str) -> None:
    """A check drops the steps' times, which no run rule reads: the DP and TP peers of a stage, whose files
    are alike line for line, then hold one tuple of steps in the parent, however their summaries reach it."""
    monkeypatch.setenv("TLINT_CACHE_DIR", str(tmp_path / "cache"))
    directory = tmp_path / "run"
    write_run(SPEC, directory, run=clean_run)
    if served == "from-the-cache":  # the files' entries hold the summaries; the run's findings are not served
        check(str(directory))
        monkeypatch.setattr(cache, "load_findings", lambda entry: None)
    checked = []
    real = engine.check_run
    monkeypatch.setattr(engine, "check_run", spy(real, lambda run, *args: checked.append(run)))
    assert check(str(directory), "--jobs", "2" if served == "by-workers" else "1") == (0, [])
    (run,) = checked
    stages = [[summary.steps for summary in run.ranks.values() if summary.stage == stage] for stage in range(SPEC.pp)]
    assert all(len(peers) == SPEC.tp * SPEC.dp and all(steps is peers[0] for steps in peers) for peers in stages)
    assert len({id(peers[0]) for peers in stages}) == SPEC.pp
    assert all((step.duration, step.end, step.layer_ends) == (None, None, ()) for peers in stages for step in peers[0])


def test_a_worker_sends_each_distinct_step_list_once(clean_run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In a forked worker, a summary whose steps that worker already sent travels as their digest alone, and
    the parent gives it the steps it received first."""
    path = write_run(SPEC, tmp_path, run=clean_run)[0]
    summary, _ = read_summary(Source(path, path.name), "megatron-trace")
    assert isinstance(summary, summary_module.RankSummary)
    peer = summary.model_copy(update={"path": "peer", "rank": 99})
    with summary_module.summaries_shared():
        monkeypatch.setattr(os, "getpid", lambda: -1)  # as in a worker process forked by the check
        first, second = pickle.dumps(summary), pickle.dumps(peer)
        monkeypatch.undo()
        assert len(second) * 10 < len(first)  # 95 bytes against 1,834-1,901 (fewer where earlier checks interned its collectives)
        received, named = pickle.loads(first), pickle.loads(second)
    assert received.steps == summary.steps and named.steps is received.steps
    assert (named.path, named.rank, named.lost) == ("peer", 99, False)


def test_steps_named_by_an_unknown_digest_are_read_again(clean_run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Should a digest arrive before its steps, the parent reads that rank's file again: the report is the same."""
    run, _ = mismatch_p2p_shape(clean_run, 4)
    write_run(SPEC, tmp_path, run=run)
    expected = check(str(tmp_path), "--jobs", "1", "--no-cache")
    lost = []
    real = engine._summarized_again
    monkeypatch.setattr(summary_module.StepPool, "sent", lambda pool, digest: None)
    monkeypatch.setattr(engine, "_summarized_again", spy(real, lambda *args: lost.append(args)))
    assert check(str(tmp_path), "--jobs", "2", "--no-cache") == expected
    assert lost  # the ranks whose alike steps their worker had sent already


def test_run_rules_judge_each_distinct_step_list_once(clean_run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The DP and TP peers of a stage hold one tuple of steps: the run rules that scan steps scan it once per
    stage, not once per rank, and still report on every rank (here every forward step of stage 0 lost a layer
    all-reduce)."""
    write_run(SPEC, tmp_path, run=drop_layer_collective_pair(SPEC, clean_run, 0))
    scanned: list[tuple[summary_module.OpStep, ...]] = []
    each_alike = RunModel.each_alike
    monkeypatch.setattr(RunModel, "each_alike", lambda self, judge: each_alike(self, spy(judge, scanned.append)))
    _, findings = check(str(tmp_path), "--select", "TL508,TL509", "--no-cache")
    assert len(scanned) == 3 * SPEC.pp  # TL508 once and TL509 twice per stage
    stage_0 = SPEC.tp * SPEC.dp
    assert sorted(f["rank"] for f in findings) == sorted(list(range(stage_0)) * SPEC.micro_batches * SPEC.iterations)
    assert {f["message"] for f in findings} == {
        f"forward_step holds {2 * SPEC.layers_per_stage - 1} TP layer all-reduces: a transformer layer all-reduces twice"
    }


def test_diff_reads_steps_with_their_times(clean_run: Run, tmp_path: Path) -> None:
    path = write_run(SPEC, tmp_path, run=clean_run)[0]
    summary, _ = read_summary(Source(path, path.name), "megatron-trace")
    assert isinstance(summary, summary_module.RankSummary)
    assert all(step.duration is not None and step.end is not None for step in summary.steps)
    assert any(step.layer_ends for step in summary.steps)


def test_unrelated_files_in_one_directory_are_not_a_run(tmp_path: Path) -> None:
    for path in sorted(corpus_dir("simai_workload").glob("*.txt")):
        shutil.copy(path, tmp_path / path.name)
    _, findings = check(str(tmp_path), "--select", "TL5")
    assert findings == []


def test_ranks_come_from_records_not_names(clean_run: Run, tmp_path: Path) -> None:
    paths = write_run(SPEC, tmp_path, run=clean_run)
    # Swap two file names: the records still say which rank each file is.
    first, second = paths[2], paths[3]
    first.rename(tmp_path / "swap")
    second.rename(first)
    (tmp_path / "swap").rename(second)
    assert check(str(tmp_path)) == (0, [])


def test_custom_rank_regex(clean_run: Run, tmp_path: Path) -> None:
    for rank, records in clean_run.items():
        write_run(SPEC, tmp_path, run={rank: records})
    for path in tmp_path.iterdir():
        number = path.name.split("_rank")[1].split("_")[0]
        path.rename(tmp_path / f"job-{number}.log")
    (tmp_path / "job-13.log").unlink()
    _, findings = check(str(tmp_path), "--rank-regex", r"job-(?P<rank>\d+)")
    assert [(f["code"], f["rank"]) for f in findings] == [("TL502", 13)]
    assert main(["check", str(tmp_path), "--rank-regex", "job"], stdout=io.StringIO(), stderr=io.StringIO()) == 2


@pytest.mark.parametrize("regex", [r"(?P<rank>.*)", r"job-(?P<rank>\d*)", r"job-(?P<rank>x)?"])
def test_a_rank_regex_whose_group_catches_no_number_gives_no_rank(clean_run: Run, tmp_path: Path, regex: str) -> None:
    for rank, records in clean_run.items():
        write_run(SPEC, tmp_path, run={rank: records})
    for path in tmp_path.iterdir():
        path.rename(tmp_path / f"job-{path.name.split('_rank')[1].split('_')[0]}.log")
    (tmp_path / "job-13.log").rename(tmp_path / "job-.log")
    for argv in (["check", str(tmp_path), "--jobs", "1"], ["diff", str(tmp_path), str(tmp_path), "--jobs", "1"]):
        err = io.StringIO()
        assert main([*argv, "--rank-regex", regex], stdout=io.StringIO(), stderr=err) in (0, 1), err.getvalue()


def _explain(fault: Fault, findings: list[dict[str, Any]]) -> str:
    return f"fault {fault} not found among " + "; ".join(f"{f['code']} rank {f['rank']} line {f['line']}: {f['message']}" for f in findings[:8])


@pytest.mark.parametrize(("log", "problem"), [("missing.log", "cannot read: No such file or directory"), ("run", "a directory, not a file")])
def test_a_configured_log_that_cannot_be_read_is_a_configuration_error(clean_run: Run, tmp_path: Path, log: str, problem: str) -> None:
    write_run(SPEC, tmp_path / "run", run=clean_run)
    (tmp_path / "tlint.toml").write_text(f'[runs."*"]\nlog = "{log}"\n', encoding="utf-8")
    err = io.StringIO()
    assert main(["check", str(tmp_path / "run")], stdout=io.StringIO(), stderr=err) == 2
    assert err.getvalue() == f'tlint: error: [tool.tlint.runs."*"] log: {tmp_path / log}: {problem}\n'
