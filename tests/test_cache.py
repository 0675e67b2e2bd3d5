"""The result cache: keyed by content, so a moved tree hits; safe with concurrent writers; bounded; clean-able."""

from __future__ import annotations

import io
import json
import multiprocessing
import os
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from lint.check import cache, engine
from lint.cli import main
from lint.models.report import FileResult, Finding, Severity
from lint.read.source import Source
from lint.runs import assemble as assembly
from lint.store import disk
from tests.spy import spy
from tests.synth.megatron_run import RunSpec, generate_run, mismatch_p2p_shape, write_run

SPEC = RunSpec(tp=2, pp=2, dp=2, micro_batches=2, layers=4, hidden=64, seq=16, vocab=512)


@pytest.fixture
def private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    # Beside the checked tree, not in it: tests move and list the tree (a walk passes over the cache itself).
    directory = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("TLINT_CACHE_DIR", str(directory))
    return directory


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files parsed (not served by the cache) from now on, in this process (--jobs 1)."""
    calls: list[str] = []
    real = engine.check_file
    monkeypatch.setattr(engine, "check_file", spy(real, lambda source, *a, **k: calls.append(source.display)))
    return calls


def check(*argv: str) -> list[dict[str, Any]]:
    out = io.StringIO()
    assert main(["check", *argv, "--output-format", "json", "--jobs", "1"], stdout=out, stderr=io.StringIO()) in (0, 1)
    findings: list[dict[str, Any]] = json.loads(out.getvalue())["findings"]
    return findings


def run_with_a_fault(directory: Path) -> None:
    run, _ = mismatch_p2p_shape(generate_run(SPEC), 2)
    write_run(SPEC, directory, run=run)


def test_a_moved_tree_is_served_from_the_cache(tmp_path: Path, private_cache: Path, parsed: list[str]) -> None:
    run_with_a_fault(tmp_path / "here")
    first = check(str(tmp_path / "here"))
    assert first and len(parsed) == SPEC.tp * SPEC.pp * SPEC.dp
    shutil.move(tmp_path / "here", tmp_path / "there")
    parsed.clear()

    moved = check(str(tmp_path / "there"))

    assert parsed == []  # every file's result came from the cache
    assert moved == json.loads(json.dumps(first).replace(str(tmp_path / "here"), str(tmp_path / "there")))
    assert moved == check(str(tmp_path / "there"), "--no-cache")


def test_an_unchanged_run_takes_its_run_findings_from_the_cache(tmp_path: Path, private_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run_with_a_fault(tmp_path)
    first = check(str(tmp_path))
    assembled: list[object] = []
    # the engine imports it on a run's cache miss
    monkeypatch.setattr(assembly, "assemble", spy(assembly.assemble, lambda *a, **k: assembled.append(a)))
    assert check(str(tmp_path)) == first and assembled == []
    assert check(str(tmp_path), "--ignore", "TL112") == first and len(assembled) == 1  # other settings: run again


def test_a_damaged_or_foreign_entry_is_a_miss(tmp_path: Path, private_cache: Path, parsed: list[str]) -> None:
    run_with_a_fault(tmp_path)
    first = check(str(tmp_path))
    entries = sorted((private_cache / disk.LAYOUT / "entries").rglob("*"))
    entries = [path for path in entries if path.is_file()]
    damaged = [b"", b'[[true, "megatron-trace"], [', b'{"an": "object"}', b"[[1], [[2]], {}, [3]]", b"\xff\xfe", b"[" * 100_000]
    for index, path in enumerate(entries):
        path.write_bytes(damaged[index % len(damaged)])
    parsed.clear()
    assert check(str(tmp_path)) == first
    assert len(parsed) == len(entries) - 1  # every file again (the run's entry is not a file's)


def test_a_damaged_memo_of_a_files_digest_is_a_miss(tmp_path: Path, private_cache: Path, parsed: list[str]) -> None:
    run_with_a_fault(tmp_path)
    first = check(str(tmp_path))
    for path in (private_cache / disk.LAYOUT / "contents").rglob("*"):
        if path.is_file():
            path.write_bytes(b"[" * 100_000)
    parsed.clear()
    assert check(str(tmp_path)) == first and parsed == []  # digests again: the same entries


def test_a_damaged_summary_is_computed_again(tmp_path: Path, private_cache: Path, parsed: list[str]) -> None:
    run_with_a_fault(tmp_path)
    first = check(str(tmp_path))
    for path in (private_cache / disk.LAYOUT / "entries").rglob("*"):
        if path.is_file():
            outcome, newline, _ = path.read_bytes().partition(b"\n")
            path.write_bytes(outcome + newline + b"[1, 2]" if newline else b"[1")  # summaries and the run's entry damaged
    parsed.clear()
    assert check(str(tmp_path)) == first
    assert len(parsed) == SPEC.tp * SPEC.pp * SPEC.dp  # each summary again, the findings from the cache


def _finding(message: str) -> Finding:
    return Finding(code="TL101", name="x", severity=Severity.ERROR, path="f.txt", line=1, column=1, rank=None, message=message)


def _writer(directory: str, writer: int, rounds: int, queue: Any) -> None:
    """Stores and loads the same few entries over and over, with a payload of its own."""
    os.environ["TLINT_CACHE_DIR"] = directory
    result = FileResult(path="f.txt", format="megatron-trace", parsed=True)
    seen: list[str] = []
    for round_ in range(rounds):
        entry = f"{round_ % 4:02x}" * 32
        cache.store(entry, "f.txt", result, [_finding(f"writer {writer} " + "x" * 200_000)], Counter({"TL101": writer}), None)
        loaded = cache.load(entry, "f.txt")
        if loaded is not None:
            (finding,), counts = loaded[1], loaded[2]
            seen.append(f"{finding.message.split(' x')[0].strip()}={counts['TL101']}")
    queue.put(seen)


def test_concurrent_writers_never_leave_a_torn_entry(tmp_path: Path) -> None:
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    writers = [context.Process(target=_writer, args=(str(tmp_path), n, 40, queue)) for n in range(4)]
    for process in writers:
        process.start()
    seen = [item for _ in writers for item in queue.get(timeout=120)]
    for process in writers:
        process.join(timeout=120)
        assert process.exitcode == 0
    # Every load saw one whole entry: its finding and its counts come from the same writer.
    assert len(seen) == 4 * 40 and all(item == f"writer {item[-1]}={item[-1]}" for item in seen)
    assert not list(tmp_path.rglob("*.tmp"))  # no temporary file is left behind


def test_the_cache_keeps_the_most_recently_used_within_its_bound(tmp_path: Path, private_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = FileResult(path="f.txt", format="megatron-trace", parsed=True)
    for index in range(6):
        entry = f"{index:02x}" * 32
        cache.store(entry, "f.txt", result, [_finding("x" * 10_000)], Counter(), None)
        os.utime(cache._entry_path(entry), (1000 + index, 1000 + index))
    assert cache.load("00" * 32, "f.txt") is not None  # a hit makes the oldest the most recently used
    size = os.stat(cache._entry_path("00" * 32)).st_size

    assert disk.prune(limit=3 * size) == 3

    kept = {index for index in range(6) if cache.load(f"{index:02x}" * 32, "f.txt") is not None}
    assert kept == {0, 4, 5}
    assert disk.size()[1] <= 3 * size


def test_a_check_prunes_the_cache_to_the_configured_bound(tmp_path: Path, private_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run_with_a_fault(tmp_path / "run")
    monkeypatch.setenv(disk.MAX_MB_VARIABLE, "0.02")
    first = check(str(tmp_path / "run"))
    assert 0 < disk.size()[1] <= 20_000 + 50_000  # the bound, and the run's entry written after pruning
    assert check(str(tmp_path / "run")) == first


def test_cache_dir_info_and_clean(tmp_path: Path, private_cache: Path) -> None:
    run_with_a_fault(tmp_path / "run")
    check(str(tmp_path / "run"))
    private_cache.joinpath("notes.txt").write_text("not tlint's", encoding="utf-8")

    def cache_command(action: str) -> str:
        out = io.StringIO()
        assert main(["cache", action], stdout=out, stderr=io.StringIO()) == 0
        return out.getvalue()

    assert cache_command("dir") == f"{private_cache}\n"
    files, size = disk.size()
    assert files > 0 and cache_command("info").startswith(f"{private_cache}: {files} files, {size / 10**6:.1f} MB (bound: 512 MB")
    assert cache_command("clean") == f"Removed the cache in {private_cache}.\n"
    assert sorted(path.name for path in private_cache.iterdir()) == ["notes.txt"]  # what is not tlint's stays
    assert disk.size() == (0, 0)
    assert cache_command("clean") == f"No cache in {private_cache}.\n"


def test_an_unchanged_file_is_not_detected_again_and_a_changed_one_is(tmp_path: Path, private_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    examples = Path(__file__).resolve().parents[1] / "examples"
    target = tmp_path / "input.txt"
    shutil.copyfile(examples / "megatron-trace_rank7.txt", target)
    first = check(str(target))
    heads: list[str] = []
    monkeypatch.setattr(Source, "head", spy(Source.head, lambda self: heads.append(self.display)))
    assert check(str(target)) == first and heads == []  # the format remembered for the unchanged file

    shutil.copyfile(examples / "neusight-gpt2-large.tsv", target)  # another format under the same name
    assert check(str(target)) == check(str(target), "--no-cache")
    assert heads == [str(target), str(target)]
    assert check(str(target), "--no-cache", "--trace-format", "neusight-tsv") == check(str(target))


@pytest.mark.parametrize("named", ["as it is", "through a link"])
def test_a_walk_passes_over_the_cache_directory_in_the_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, named: str) -> None:
    """$TLINT_CACHE_DIR in the checked tree: its entries are tlint's text, no input (one once framed as a Chakra trace)."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "cache").mkdir()
    if named == "through a link":
        (tmp_path / "link").symlink_to(tree / "cache")
    monkeypatch.setenv("TLINT_CACHE_DIR", str(tree / "cache" if named == "as it is" else tmp_path / "link"))
    shutil.copyfile(Path(__file__).resolve().parents[1] / "examples" / "simai-workload.txt", tree / "workload.txt")
    for _ in range(2):  # the second walk meets the entries the first wrote
        out = io.StringIO()
        assert main(["check", str(tree), "--output-format", "json", "--jobs", "1"], stdout=out, stderr=io.StringIO()) == 0
        summary = json.loads(out.getvalue())["summary"]
        assert (summary["files"], summary["skipped"]) == (1, [])
    assert disk.size()[0] > 0  # the cache was written where the walk went
