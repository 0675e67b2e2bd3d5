"""The pre-commit hook this repository publishes: which files it picks, and a real commit through it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

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


def readme_snippet() -> dict[str, Any]:
    """The .pre-commit-config.yaml the README shows: the first YAML block of its pre-commit section."""
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("\n## pre-commit\n", 1)[1]
    config = yaml.safe_load(section.split("```yaml\n", 1)[1].split("```", 1)[0])
    assert isinstance(config, dict)
    return config


def test_the_readme_snippet_works_as_written(tmp_path: Path) -> None:
    """Its `rev` is a commit of this repository whose hooks include the snippet's, pre-commit takes the
    snippet as it stands, and `pre-commit autoupdate --freeze` (the README's advice) moves it on as the README
    says: offline, with this checkout standing in for the repository's URL."""
    if subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True).returncode != 0:
        pytest.skip("not a git checkout: the snippet names a commit of tlint's history")
    config = readme_snippet()
    (repo,) = config["repos"]
    rev, hook_ids = repo["rev"], [entry["id"] for entry in repo["hooks"]]
    assert re.fullmatch(r"[0-9a-f]{40}", rev), "no tag exists: the snippet pins a commit"
    hooks = _git(ROOT, "show", f"{rev}:.pre-commit-hooks.yaml", check=False)
    assert hooks.returncode == 0, f"{rev} is not a commit of this repository with a .pre-commit-hooks.yaml: {hooks.stderr}"
    assert set(hook_ids) <= {hook["id"] for hook in yaml.safe_load(hooks.stdout)}
    project = tmp_path / "project"
    project.mkdir()
    _git(project, "init", "--quiet")
    repo["repo"] = str(ROOT)  # offline: the checkout stands in for https://github.com/tlint/tlint
    (project / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    environment = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-cache")}
    for command in (["validate-config", ".pre-commit-config.yaml"], ["autoupdate", "--freeze"]):
        result = subprocess.run([sys.executable, "-m", "pre_commit", *command], cwd=project, env=environment, capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stdout + result.stderr
    # pre-commit moves rev to the newest tag reachable from the repository's HEAD, frozen to its commit, else to HEAD.
    tag = _git(ROOT, "describe", "--tags", "--abbrev=0", "HEAD", check=False)
    newest = _git(ROOT, "rev-parse", f"{tag.stdout.strip()}^{{commit}}" if tag.returncode == 0 else "HEAD").stdout.strip()
    assert yaml.safe_load((project / ".pre-commit-config.yaml").read_text(encoding="utf-8"))["repos"][0]["rev"] == newest


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
