"""Real megatron-trace runs of both public writers (fwyc0573/Megatron-LM, fwyc0573/moe_mg), read in place from
``../shared/corpus/real/megatron-trace/`` (one run per folder; its README gives the verdicts): every file
parses, no run gets an error, the runs mixed in one directory give the same findings as split, and a copy
with one record or collective lost is reported at the line where it was lost."""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from lint.cli import main
from tests.shared_corpus import CORPUS

REAL = CORPUS / "real" / "megatron-trace"
RUNS = sorted(path for path in REAL.iterdir() if path.is_dir()) if REAL.is_dir() else []
MOE_RUN = next((run for run in RUNS if run.name.startswith("moe_mg__")), None)

pytestmark = pytest.mark.skipif(not RUNS, reason=f"the real megatron-trace corpus is not here: {REAL} (../shared is absent)")


def check(*paths: Path) -> dict[str, Any]:
    out = io.StringIO()
    code = main(["check", *map(str, paths), "--no-cache", "--output-format", "json", "--max-findings", "0"], stdout=out, stderr=io.StringIO())
    assert code in (0, 1)
    report: dict[str, Any] = json.loads(out.getvalue())
    return report


def normalized(report: dict[str, Any]) -> list[tuple[Any, ...]]:
    """Findings without their directory, and without the time stamp a run's label carries when mixed."""
    return sorted(
        (re.sub(r" \(run of [0-9]+\)$", "", Path(f["path"]).name), f["line"] or 0, f["code"], f["severity"], f["message"]) for f in report["findings"]
    )


def test_every_real_file_parses_and_no_run_gets_an_error() -> None:
    report = check(*RUNS)
    files = [path for run in RUNS for path in run.iterdir() if path.is_file()]
    assert report["summary"]["checked"] == len(files)
    assert [f["path"] for f in report["files"] if not f["parsed"]] == []
    assert [(f["path"], f["line"], f["code"], f["message"]) for f in report["findings"] if f["severity"] == "error"] == []


def _mixed(runs: list[Path], directory: Path) -> Path:
    """Every run's files in one directory, as the writer's own ``realistic_trace/`` folder holds them."""
    directory.mkdir()
    for run in runs:
        for path in run.iterdir():
            assert not (directory / path.name).exists(), f"two runs hold {path.name}"
            shutil.copyfile(path, directory / path.name)
    return directory


def _copy(run: Path, directory: Path) -> Path:
    shutil.copytree(run, directory)
    return directory


def test_runs_mixed_in_one_directory_give_the_findings_of_the_split_runs(tmp_path: Path) -> None:
    assert normalized(check(_mixed(RUNS, tmp_path / "mixed"))) == normalized(check(*RUNS))


@pytest.mark.skipif(MOE_RUN is None, reason="the corpus has no moe_mg run")
def test_a_lost_record_gives_the_same_findings_split_and_mixed(tmp_path: Path) -> None:
    assert MOE_RUN is not None
    split = _copy(MOE_RUN, tmp_path / "split" / MOE_RUN.name)
    line = _drop_first(_rank_file(split, 0), "backward_step(")
    mixed = _mixed([run for run in RUNS if run != MOE_RUN] + [split], tmp_path / "mixed")
    findings = normalized(check(mixed))
    assert findings == normalized(check(*[run for run in RUNS if run != MOE_RUN], split))
    assert any(code == "TL116" and at == line for _, at, code, _, _ in findings)


def _rank_file(run: Path, rank: int) -> Path:
    return next(path for path in sorted(run.iterdir()) if re.search(rf"_rank{rank}_", path.name))


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")


def _drop_first(path: Path, needle: str, *, after: int = 1) -> int:
    """Remove the ``after``-th line holding ``needle``; its line number (now the next record's)."""
    lines = _lines(path)
    number = [i for i, line in enumerate(lines, 1) if needle in line][after - 1]
    path.write_text("\n".join(lines[: number - 1] + lines[number:]), encoding="utf-8")
    return number


def _errors_at(report: dict[str, Any], path: Path) -> set[tuple[int | None, str]]:
    return {(f["line"], f["code"]) for f in report["findings"] if f["severity"] == "error" and Path(f["path"]) == path}


@pytest.mark.skipif(MOE_RUN is None, reason="the corpus has no moe_mg run")
def test_a_lost_backward_step_is_reported_where_it_was(tmp_path: Path) -> None:
    assert MOE_RUN is not None
    run = _copy(MOE_RUN, tmp_path / MOE_RUN.name)
    path = _rank_file(run, 3)
    line = _drop_first(path, "backward_step(", after=3)
    report = check(run)
    assert (line, "TL116") in _errors_at(report, path)
    assert (None, "TL510") in _errors_at(report, path)  # and its stage's peers ran one more


@pytest.mark.skipif(MOE_RUN is None, reason="the corpus has no moe_mg run")
def test_a_lost_half_of_a_batched_p2p_call_is_reported_where_it_was(tmp_path: Path) -> None:
    assert MOE_RUN is not None
    run = _copy(MOE_RUN, tmp_path / MOE_RUN.name)
    path = _rank_file(run, 2)
    lines = _lines(path)
    time = re.compile(r"duration=([^,]+),.*timestamp=([^,]+),sub_operations")

    def times(line: str) -> tuple[str | Any, ...]:
        found = time.search(line)
        assert found is not None, line  # an op line of the writer's
        return found.groups()

    number = next(
        i
        for i in range(2, len(lines) + 1)
        if ":recv_backward(" in lines[i - 1] and ":send_forward(" in lines[i - 2] and times(lines[i - 1]) == times(lines[i - 2])
    )
    path.write_text("\n".join(lines[: number - 1] + lines[number:]), encoding="utf-8")
    assert (number, "TL116") in _errors_at(check(run), path)


@pytest.mark.skipif(MOE_RUN is None, reason="the corpus has no moe_mg run")
def test_a_lost_collective_is_reported_at_its_step(tmp_path: Path) -> None:
    assert MOE_RUN is not None
    run = _copy(MOE_RUN, tmp_path / MOE_RUN.name)
    path = _rank_file(run, 5)
    lines = _lines(path)
    number = [i for i, line in enumerate(lines, 1) if ":forward_step(" in line and "', '" in line][2]
    record = lines[number - 1]
    first_sub = record.index("['") + 1
    lines[number - 1] = record[:first_sub] + record[record.index("', '", first_sub) + 3 :]
    path.write_text("\n".join(lines), encoding="utf-8")
    assert (number, "TL117") in _errors_at(check(run), path)


@pytest.mark.skipif(MOE_RUN is None, reason="the corpus has no moe_mg run")
def test_a_lost_gradient_all_reduce_is_named_on_its_rank(tmp_path: Path) -> None:
    assert MOE_RUN is not None
    run = _copy(MOE_RUN, tmp_path / MOE_RUN.name)
    path = _rank_file(run, 6)
    _drop_first(path, ":dp_allreduce(")
    findings = [f for f in check(run)["findings"] if f["severity"] == "error"]
    assert [(Path(f["path"]), f["code"]) for f in findings] == [(path, "TL510")]
    assert findings[0]["message"].startswith("rank 6 runs dp_allreduce 0 times in iteration 0;")


ONE_MICRO_BATCH_RUN = next((run for run in RUNS if run.name.startswith("MegatronLM__realistic_trace__wd4_tp1_pp2")), None)


@pytest.mark.skipif(ONE_MICRO_BATCH_RUN is None, reason="the corpus has no one-micro-batch Megatron-LM run")
def test_a_lost_forward_step_of_the_only_micro_batch_is_one_finding_alone_or_in_its_run(tmp_path: Path) -> None:
    assert ONE_MICRO_BATCH_RUN is not None
    run = _copy(ONE_MICRO_BATCH_RUN, tmp_path / "run" / ONE_MICRO_BATCH_RUN.name)
    path = _rank_file(run, 0)
    assert sum(":forward_step(" in line for line in _lines(path)) == 1  # the run has one micro-batch
    _drop_first(path, ":forward_step(")
    backward = next(i for i, line in enumerate(_lines(path), 1) if ":backward_step(" in line)
    lone = tmp_path / "lone" / path.name  # the rank file checked without its siblings
    lone.parent.mkdir()
    shutil.copyfile(path, lone)
    message = "micro-batch 0 has a backward_step but no forward_step (iteration 0): the writer records a micro-batch's forward_step before its backward_step"
    for checked, file in ((lone, lone), (run, path)):
        findings = [(Path(f["path"]), f["line"], f["code"], f["message"]) for f in check(checked)["findings"] if f["severity"] != "info"]
        assert findings == [(file, backward, "TL116", message)]
