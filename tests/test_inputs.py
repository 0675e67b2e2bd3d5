"""Inputs as users have them: compressed files, standard input, globs, links; and the result cache."""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import os
import sys
from collections.abc import Callable
from os import PathLike
from pathlib import Path
from typing import Any, BinaryIO

import pytest
import zstandard

from lint.check import engine
from lint.cli import main
from lint.read import source
from lint.report import progress
from lint.store.files import open_regular
from tests.spy import spy

SEED_TRACE = Path(__file__).parent / "fixtures" / "seeds" / "000_14848477538be528.txt"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def findings(*argv: str) -> list[tuple[int, int, str, str]]:
    code, out, _ = run("check", *argv, "--output-format", "json")
    assert code in (0, 1)
    return [(f["line"], f["column"], f["code"], f["message"]) for f in json.loads(out)["findings"]]


@pytest.fixture
def broken_trace(tmp_path: Path) -> bytes:
    lines = SEED_TRACE.read_text(encoding="utf-8").splitlines()
    lines[3] = lines[3].replace("mg_state=steady", "mg_state=stedy")
    lines[5] = lines[5].replace("stage_id=3", "stage_id=x")
    return ("\n".join(lines) + "\n").encode()


COMPRESSORS: dict[str, Callable[[bytes], bytes]] = {
    "gz": lambda data: gzip.compress(data),
    "bz2": bz2.compress,
    "xz": lzma.compress,
    "zst": lambda data: zstandard.ZstdCompressor().compress(data),
}

COMPRESSION_NAMES = {"gz": "gzip", "bz2": "bzip2", "xz": "xz", "zst": "zstd"}


@pytest.mark.parametrize("suffix", sorted(COMPRESSORS))
def test_a_compressed_trace_gives_the_same_findings_as_the_plain_one(tmp_path: Path, broken_trace: bytes, suffix: str) -> None:
    plain = tmp_path / "trace_rank7.txt"
    plain.write_bytes(broken_trace)
    packed = tmp_path / "other" / "archive.bin"  # the name says nothing: magic bytes decide
    packed.parent.mkdir()
    packed.write_bytes(COMPRESSORS[suffix](broken_trace))
    expected = findings(str(plain))
    assert expected and findings(str(packed)) == expected


@pytest.mark.parametrize("suffix", sorted(COMPRESSORS))
def test_a_truncated_compressed_trace_is_a_finding_after_its_last_line(tmp_path: Path, suffix: str) -> None:
    data = COMPRESSORS[suffix](SEED_TRACE.read_bytes() * 40)
    path = tmp_path / f"trace.{suffix}"
    path.write_bytes(data[: len(data) * 2 // 3])
    found = findings(str(path), "--trace-format", "megatron-trace", "--select", "TL004")
    assert len(found) == 1 and found[0][2] == "TL004" and f"the {COMPRESSION_NAMES[suffix]} data" in found[0][3]


def test_standard_input(monkeypatch: pytest.MonkeyPatch, broken_trace: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(gzip.compress(broken_trace))))
    code, out, _ = run("check", "-", "--trace-format", "megatron-trace")
    assert code == 1 and out.startswith("-:4:49: TL112")  # at the mg_state it names


def test_standard_input_named_twice_is_the_same_text_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(SEED_TRACE.read_bytes())))
    code, out, err = run("check", "-", "-")
    assert (code, out) == (0, "") and "Checked 2 files: no findings." in err  # not an empty second file (TL005)
    code, out, _ = run("diff", "-", "-")
    assert code == 0 and out.startswith("identical")


def test_globs_expand_and_an_unmatched_pattern_is_an_error(tmp_path: Path, broken_trace: bytes) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "trace_rank7.txt").write_bytes(broken_trace)
    (tmp_path / "a" / "notes.md").write_text("x", encoding="utf-8")
    code, out, err = run("check", str(tmp_path / "**" / "*.txt"))
    assert code == 1 and out.count("TL") == 2 and "skipped" not in err
    code, _, err = run("check", str(tmp_path / "*.nothing"))
    assert code == 2 and "no file matches this pattern" in err


def test_symlink_loops_and_broken_links_are_reported_not_fatal(tmp_path: Path, broken_trace: bytes) -> None:
    (tmp_path / "trace_rank7.txt").write_bytes(broken_trace)
    os.symlink(tmp_path / "loop", tmp_path / "loop")
    os.symlink(tmp_path, tmp_path / "parent")  # a directory link: not followed, so no cycle
    os.symlink(tmp_path / "gone", tmp_path / "dangling.txt")
    code, out, err = run("check", str(tmp_path))
    assert code == 2 and out.count("TL") == 2
    assert f"{tmp_path / 'loop'}: a broken symbolic link or a symbolic link loop" in err
    assert f"{tmp_path / 'dangling.txt'}: a broken symbolic link" in err


def test_a_symlink_loop_named_on_the_command_line_is_reported_not_fatal(tmp_path: Path, broken_trace: bytes) -> None:
    (tmp_path / "trace_rank7.txt").write_bytes(broken_trace)
    os.symlink("loop.txt", tmp_path / "loop.txt")
    code, out, err = run("check", str(tmp_path / "loop.txt"), str(tmp_path / "trace_rank7.txt"))
    assert code == 2 and out.count("TL") == 2
    assert f"{tmp_path / 'loop.txt'}: a broken symbolic link or a symbolic link loop" in err


def test_a_link_to_a_fifo_is_not_called_broken(tmp_path: Path, broken_trace: bytes) -> None:
    (tmp_path / "trace_rank7.txt").write_bytes(broken_trace)
    os.mkfifo(tmp_path / "pipe")
    os.symlink(tmp_path / "pipe", tmp_path / "pipe_rank1.txt")
    # Walked, the link is passed over as the fifo itself is; named, it is no regular file.
    code, out, err = run("check", str(tmp_path))
    assert code == 1 and out.count("TL") == 2 and "tlint: error" not in err
    code, _, err = run("check", str(tmp_path / "pipe_rank1.txt"))
    assert code == 2 and f"{tmp_path / 'pipe_rank1.txt'}: not a regular file or directory" in err


# -- the cache ----------------------------------------------------------------------------------------


def test_an_unchanged_file_is_not_parsed_again(tmp_path: Path, broken_trace: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TLINT_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "trace_rank7.txt"
    path.write_bytes(broken_trace)
    first = findings(str(path))
    calls: list[Any] = []
    real = engine.check_file
    monkeypatch.setattr(engine, "check_file", spy(real, lambda *a, **k: calls.append(a)))
    assert findings(str(path)) == first and calls == []
    assert findings(str(path), "--no-cache") == first and len(calls) == 1
    assert findings(str(path), "--ignore", "TL112") != first and len(calls) == 2  # another configuration
    path.write_bytes(broken_trace.replace(b"stage_id=x", b"stage_id=3"))
    assert len(findings(str(path))) == 1 and len(calls) == 3  # another content


def test_an_unwritable_cache_is_skipped(tmp_path: Path, broken_trace: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("", encoding="utf-8")
    monkeypatch.setenv("TLINT_CACHE_DIR", str(blocked / "cache"))
    path = tmp_path / "trace_rank7.txt"
    path.write_bytes(broken_trace)
    assert len(findings(str(path))) == 2


# -- progress -------------------------------------------------------------------------------------------


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_only_on_a_terminal_and_beside_human_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress, "SHOW_AFTER_SECONDS", 0.0)
    for index in range(3):
        (tmp_path / f"t{index}.txt").write_bytes(SEED_TRACE.read_bytes())
    terminal = _Terminal()
    assert main(["check", str(tmp_path), "--no-cache"], stdout=io.StringIO(), stderr=terminal) == 0
    assert "checking" in terminal.getvalue()
    terminal = _Terminal()
    out = io.StringIO()
    assert main(["check", str(tmp_path), "--output-format", "json"], stdout=out, stderr=terminal) == 0
    assert "checking" not in terminal.getvalue() and json.loads(out.getvalue())["summary"]["checked"] == 3
    plain = io.StringIO()
    main(["check", str(tmp_path), "--no-cache"], stdout=io.StringIO(), stderr=plain)
    assert "checking" not in plain.getvalue()


def test_an_unchanged_file_is_not_even_hashed_again(tmp_path: Path, broken_trace: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TLINT_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "trace_rank7.txt"
    path.write_bytes(broken_trace)
    first = findings(str(path))
    hashed: list[object] = []

    def recording_open(name: str | PathLike[str], display: str) -> BinaryIO:
        if Path(name) == path:  # not the cache's own files
            hashed.append(name)
        return open_regular(name, display)

    monkeypatch.setattr("lint.check.cache.open_regular", recording_open)
    assert findings(str(path)) == first and hashed == []
    path.write_bytes(broken_trace + b"\n")
    findings(str(path))
    assert len(hashed) == 1


# A file as lines: every ending the readers accept, a BOM, a NUL byte, bytes that are not UTF-8, a last line
# without a newline; read in blocks of every size from 1 byte (blocks that end inside a line, inside a CR LF,
# inside a UTF-8 character) to more than the file.
MIXED_LINES = b"\xef\xbb\xbffirst\r\nsecond\n\nthird\r\r\nnul\x00here\nbad \xff byte\ncaf\xc3\xa9\n" + b"long" * 40 + b"\nlast\r"
MIXED_EXPECTED = ["first", "second", "", "third\r", "nul\x00here", "bad \ufffd byte", "café", "long" * 40, "last"]


@pytest.mark.parametrize("block", [1, 2, 3, 5, 16, 1 << 16])
def test_lines_are_the_same_whatever_the_size_of_the_blocks_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int) -> None:
    monkeypatch.setattr(source, "_BLOCK", block)
    path = tmp_path / "lines.txt"
    path.write_bytes(MIXED_LINES)
    read = source.Source(path, "lines.txt")
    assert list(read.lines()) == list(enumerate(MIXED_EXPECTED, 1))
    assert [(p.line, p.column, p.code) for p in read.problems] == [(5, 4, "TL003"), (6, 5, "TL003")]
