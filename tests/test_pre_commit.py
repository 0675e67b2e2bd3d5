"""The pre-commit hook this repository publishes: which files it picks, and a real commit through it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
SEED_TRACE = ROOT / "tests" / "fixtures" / "seeds" / "000_14848477538be528.txt"


def hook() -> dict[str, object]:
    (definition,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert isinstance(definition, dict)
    return definition


@pytest.mark.parametrize(
    ("path", "picked"),
    [
        ("traces/trace_rank7_20241224105912.txt", True),
        ("workload_gpt7b_64g.txt", True),
        ("astra-sim/inputs/workload/microAllReduce.txt", True),
        ("aicb/G13B-M1-C01_GPT13B_megatron_tp8_pp1_mbs1_A100.txt", True),
        ("profiles/gpt2-large.tsv", True),
        ("runs/optprime_stdout.log", True),
        ("logs/TRAIN.LOG", True),
        ("traces/trace_rank7_20241224105912.txt.gz", True),
        ("profiles/gpt2-large.tsv.zst", True),
        ("runs/optprime_stdout.log.xz", True),
        ("workload_gpt7b_64g.txt.bz2", True),
        ("requirements.txt.gz", False),
        ("requirements.txt", False),
        ("docs/notes.txt", False),
        ("src/trace.py", False),
    ],
)
def test_the_hook_picks_trace_log_and_workload_names(path: str, picked: bool) -> None:
    # pre-commit matches `files` with re.search against the path from the repository root.
    assert (re.search(str(hook()["files"]), path) is not None) == picked


def test_the_hook_sees_every_file_in_one_run() -> None:
    definition = hook()
    assert definition["id"] == "tlint" and definition["entry"] == "tlint check" and definition["language"] == "python"
    assert definition["require_serial"] is True and "types" not in definition


def _git(repository: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=repository, capture_output=True, text=True, check=check)


@pytest.mark.slow
def test_a_commit_passes_with_a_clean_trace_and_fails_with_a_broken_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # pre-commit installs the hook from a commit of this repository: commit a change before testing it.
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    if head.returncode != 0:
        pytest.skip("not a git checkout: pre-commit installs hooks from a git commit")
    for variable, value in (
        ("GIT_AUTHOR_NAME", "tlint"),
        ("GIT_AUTHOR_EMAIL", "tlint@example.com"),
        ("GIT_COMMITTER_NAME", "tlint"),
        ("GIT_COMMITTER_EMAIL", "tlint@example.com"),
        ("PRE_COMMIT_HOME", str(tmp_path / "pre-commit-cache")),
    ):
        monkeypatch.setenv(variable, value)
    repository = tmp_path / "project"
    repository.mkdir()
    _git(repository, "init", "--quiet")
    (repository / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {ROOT}\n    rev: {head.stdout.strip()}\n    hooks:\n      - id: tlint\n",
        encoding="utf-8",
    )
    subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=repository, check=True, capture_output=True)

    traces = repository / "traces"
    traces.mkdir()
    clean = SEED_TRACE.read_text(encoding="utf-8")
    (traces / "trace_rank7_20241224105912.txt").write_text(clean, encoding="utf-8")
    _git(repository, "add", "--all")
    committed = _git(repository, "commit", "--quiet", "--message", "clean trace", check=False)
    assert committed.returncode == 0, committed.stdout + committed.stderr
    assert re.search(r"tlint\.+Passed", committed.stdout + committed.stderr)

    (traces / "trace_rank7_20241224105912.txt").write_text(clean.replace("stage_id=3", "stage_id=x", 1), encoding="utf-8")
    _git(repository, "add", "--all")
    refused = _git(repository, "commit", "--quiet", "--message", "broken trace", check=False)
    output = refused.stdout + refused.stderr
    assert refused.returncode != 0 and re.search(r"tlint\.+Failed", output)
    assert "traces/trace_rank7_20241224105912.txt:1:30: TL001 [error] expected a non-negative integer, found 'x'" in output
