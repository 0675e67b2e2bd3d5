"""What a text report shows by default, and where it goes: the changes that matter, a verdict that says
what it means, the whole report on standard output or in the ``-o`` file.
"""

from __future__ import annotations

import dataclasses
import io
from pathlib import Path

import pytest

from lint.cli import main
from tests.synth.megatron_run import RunSpec, generate_run, slow_down_stage, write_run

SPEC = RunSpec(tp=1, pp=2, dp=2, micro_batches=4, layers=2, hidden=16, seq=8, vocab=64, iterations=4)


def run(*argv: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["diff", *map(str, argv)], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def noisy(tmp_path: Path) -> tuple[Path, Path]:
    """Two runs of one configuration whose ranks drew their timings anew: noise, no change."""
    write_run(SPEC, tmp_path / "a")
    write_run(dataclasses.replace(SPEC, seed=1), tmp_path / "b")
    return tmp_path / "a", tmp_path / "b"


def test_timing_that_is_not_significant_is_left_out_unless_all(noisy: tuple[Path, Path]) -> None:
    code, out, _ = run(*noisy)
    lines = out.splitlines()
    assert code == 0 and not [line for line in lines if line.startswith("timing ")]  # before: dozens of lines of noise
    assert "not shown (timing, not significant " in lines[-1] and lines[-1].endswith("--all lists them.")
    _, everything, _ = run(*noisy, "--all")
    hidden = int(lines[-1].split("; ")[-1].split(" not shown")[0])
    assert len([line for line in everything.splitlines() if line.startswith("timing ")]) == hidden > 0
    assert "not shown" not in everything.splitlines()[-1]


def test_the_verdict_does_not_repeat_itself(noisy: tuple[Path, Path]) -> None:
    first = run(*noisy)[1].splitlines()[0]
    assert first.startswith("no significant change: ") and first.count("no significant change") == 1  # before: twice
    assert "within noise or below the 5 % threshold" in first


def test_identical_only_when_nothing_differs(tmp_path: Path) -> None:
    write_run(SPEC, tmp_path / "a")
    write_run(SPEC, tmp_path / "b", run=slow_down_stage(generate_run(SPEC), 1, 1.02))  # 2 %: below the threshold
    first = run(tmp_path / "a", tmp_path / "b")[1].splitlines()[0]
    assert first.startswith("no significant change: ")  # before: "identical"
    assert run(tmp_path / "a", tmp_path / "a")[1].startswith("identical: no difference in config, structure, comm or timing\n")


@pytest.mark.parametrize("output_format", ["concise", "full"])
def test_the_whole_report_goes_to_the_output_file(tmp_path: Path, noisy: tuple[Path, Path], output_format: str) -> None:
    written = tmp_path / "report.txt"
    code, out, err = run(*noisy, "--output-format", output_format, "-o", written)
    assert (code, out, err) == (0, "", "")  # before: the counts line went to standard error, not into the file
    assert "changes, 0 significant" in written.read_text(encoding="utf-8")
