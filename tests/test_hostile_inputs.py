"""Hostile inputs and environments, each through the real command (``python -m lint`` in a subprocess): what
a check of an untrusted pull request, a crashed job's leftovers or a mistyped path may hand tlint.

Every case ends (a timeout would be a hang), exits 0, 1 or 2 as documented, prints no traceback, and holds
its memory: a line is read up to 4 MiB, compressed data expands at most 200-fold, standard input is copied
up to 1 GiB and the copy removed however tlint ends; FIFOs and devices are refused (also as a configured
log or workload, a baseline or a configuration), symbolic links are not followed out of a walked
directory, damaged cache entries are misses, and an output that cannot be written is exit 2.
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from pathlib import Path
from typing import IO, Any, BinaryIO

import pytest
import zstandard

from lint.cli import main
from lint.read import source
from tests.synth.chakra_trace import collective, trace, varint

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT / "tests" / "fixtures" / "seeds"
MEGATRON = SEEDS / "000_14848477538be528.txt"
SIMAI = SEEDS / "004_e7a75019e7d30864.txt"
TIMEOUT = 120  # seconds: any case that runs into it has hung
MIB = 1 << 20


def tlint(
    *argv: str, cwd: Path, env: dict[str, str] | None = None, stdout: int | IO[Any] = subprocess.PIPE, memory: int | None = None
) -> subprocess.CompletedProcess[str]:
    """``tlint argv`` in a subprocess; ``memory``: the most bytes of address space it may take (a case that would
    otherwise grow until the machine's memory is gone then fails with a MemoryError instead)."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    environment.pop("GITHUB_ACTIONS", None)
    result = subprocess.run(
        [*unprivileged(env), sys.executable, "-m", "lint", *argv],
        cwd=cwd,
        env=environment,
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        timeout=TIMEOUT,
        check=False,
        preexec_fn=None if memory is None else partial(resource.setrlimit, resource.RLIMIT_AS, (memory, memory)),
    )
    assert "Traceback" not in result.stderr, result.stderr
    return result


def unprivileged(env: dict[str, str] | None) -> list[str]:
    """A prefix that runs the command without the power to read what permissions forbid, where a test asks for
    it (``TEST_UNPRIVILEGED``): root reads everything, so a suite run as root drops the two capabilities that
    let it (util-linux's setpriv); as another user, nothing is needed."""
    if not (env or {}).get("TEST_UNPRIVILEGED") or os.geteuid() != 0:
        return []
    return ["setpriv", "--bounding-set", "-dac_override,-dac_read_search"]


def needs_unprivileged() -> None:
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: permissions cannot be withheld from this process")


def broken_trace(path: Path, line: int = 3) -> Path:
    """The seed trace with a syntax error at ``line``, column 30."""
    lines = MEGATRON.read_text(encoding="utf-8").splitlines()
    lines[line - 1] = lines[line - 1].replace("stage_id=3", "stage_id=x")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def findings(result: subprocess.CompletedProcess[str]) -> list[tuple[str, int | None, str]]:
    return [(Path(f["path"]).name, f["line"], f["code"]) for f in json.loads(result.stdout)["findings"]]


# -- bounded resources ------------------------------------------------------------------------------


def test_an_overlong_line_is_one_finding_naming_its_length_and_the_rest_is_checked(tmp_path: Path) -> None:
    lines = broken_trace(tmp_path / "x", line=4).read_text(encoding="utf-8").splitlines()
    lines[1] = "x" * (5 * MIB)
    path = tmp_path / "trace_rank7.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = tlint("check", str(path), "--output-format", "json", "--no-cache", cwd=tmp_path)
    assert result.returncode == 1 and findings(result) == [("trace_rank7.txt", 2, "TL007"), ("trace_rank7.txt", 4, "TL001")]
    message = json.loads(result.stdout)["findings"][0]["message"]
    assert message.startswith("line 2 is 5,242,880 bytes long, over the 4 MiB tlint reads of a line: it was not checked")


COMPRESSED = {"gz": "gzip", "bz2": "bzip2", "xz": "xz", "zst": "zstd"}


def write_compressed(path: Path, parts: Iterable[bytes]) -> None:
    """``parts`` written to ``path`` in the compression its suffix names, streamed."""
    with path.open("wb") as raw:
        openers: dict[str, Callable[[BinaryIO], Any]] = {
            ".gz": lambda out: gzip.GzipFile(fileobj=out, mode="wb", compresslevel=9),
            ".bz2": lambda out: bz2.BZ2File(out, "wb"),
            ".xz": lambda out: lzma.LZMAFile(out, "wb"),  # noqa: SIM115 - entered below
            ".zst": lambda out: zstandard.ZstdCompressor().stream_writer(out, closefd=False),
        }
        with openers[path.suffix](raw) as stream:
            for part in parts:
                stream.write(part)


@pytest.mark.parametrize("suffix", sorted(COMPRESSED))
def test_a_compressed_bomb_of_one_long_line_stops_early_with_a_finding(tmp_path: Path, suffix: str) -> None:
    # 256 MiB of one line in a few kB: read to its end, it would cost the whole line in memory (zstd: in one
    # call of its decompressor), and far more time than the 64 MiB after which the expansion guard stops it.
    name = COMPRESSED[suffix]
    path = tmp_path / f"trace_rank7.txt.{suffix}"
    write_compressed(path, [MEGATRON.read_bytes().splitlines(keepends=True)[0], *[b"x" * MIB] * 256])
    assert path.stat().st_size < MIB
    result = tlint("check", str(path), "--output-format", "json", "--no-cache", cwd=tmp_path)
    assert result.returncode == 1 and findings(result) == [(path.name, 2, "TL007")]
    assert re.fullmatch(
        rf"the {name} data expands more than 200-fold \([0-9,]+ bytes from [0-9,]+\): reading stopped after line 1, and what follows was not checked .*",
        json.loads(result.stdout)["findings"][0]["message"],
    )


@pytest.mark.parametrize("suffix", sorted(COMPRESSED))
def test_a_compressed_chakra_bomb_stops_early_with_a_finding(tmp_path: Path, suffix: str) -> None:
    # A trace whose third record declares 4 GiB, then zeros - 16 MiB past the expansion guard's grace, in a few hundred
    # kB: the framing reader asks for the whole record at once, which the decompressor made in memory (twice the
    # bytes: 553 MB of RSS for 256 MiB), and a 4 GiB bomb would be all of it before a byte of it was judged.
    name = COMPRESSED[suffix]
    path = tmp_path / f"wl.0.et.{suffix}"
    write_compressed(path, [trace({"nodes": [collective(1)]}), varint(2**32 - 1), *[bytes(MIB)] * (source.EXPANSION_GRACE // MIB + 16)])
    assert path.stat().st_size < MIB
    result = tlint("check", str(path), "--output-format", "json", "--no-cache", cwd=tmp_path, memory=LIMITED)
    assert result.returncode == 1 and findings(result) == [(path.name, 3, "TL007")]
    assert re.fullmatch(
        rf"the {name} data expands more than 200-fold \([0-9,]+ bytes from [0-9,]+\): reading stopped after line 2, and what follows was not checked .*",
        json.loads(result.stdout)["findings"][0]["message"],
    )


def test_standard_input_past_its_bound_is_an_input_error_and_its_copy_is_removed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(source, "STDIN_MAX_BYTES", 100_000)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"\0" * 300_000)))
    err = io.StringIO()
    assert main(["check", "-"], stdout=io.StringIO(), stderr=err) == 2
    assert "tlint: error: -: standard input holds more than 0 MiB, more than tlint copies of it: name the file instead" in err.getvalue()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("ending", [signal.SIGINT, signal.SIGTERM])
def test_the_copy_of_standard_input_is_removed_when_tlint_is_interrupted(tmp_path: Path, ending: signal.Signals) -> None:
    spool = tmp_path / "tmp"
    spool.mkdir()
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(spool)}
    process = subprocess.Popen(
        [sys.executable, "-m", "lint", "check", "-"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=environment
    )
    assert process.stdin is not None and process.stderr is not None
    deadline = time.monotonic() + TIMEOUT
    while not any(spool.iterdir()) and time.monotonic() < deadline:  # copying has begun: tlint waits for more input
        process.stdin.write(b"rank:0:forward_step(\n" * 1000)
        process.stdin.flush()
        time.sleep(0.05)
    assert any(spool.iterdir())
    process.send_signal(ending)
    assert process.wait(timeout=TIMEOUT) in (130, 128 + ending)
    assert "Traceback" not in process.stderr.read().decode()
    process.stdin.close()
    assert list(spool.iterdir()) == []


# -- what is not a file ----------------------------------------------------------------------------


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[Path]:
    """A FIFO no one writes to: opening it for reading the usual way waits forever."""
    path = tmp_path / "waiting.log"
    os.mkfifo(path)
    yield path


def _run_with(tmp_path: Path, config: str) -> Path:
    run = tmp_path / "run"
    for rank in (0, 1):
        (run / f"trace_rank{rank}.txt").parent.mkdir(parents=True, exist_ok=True)
        (run / f"trace_rank{rank}.txt").write_text(MEGATRON.read_text(encoding="utf-8").replace("rank:7:", f"rank:{rank}:"), encoding="utf-8")
    (tmp_path / "tlint.toml").write_text(config, encoding="utf-8")
    return run


@pytest.mark.parametrize("key", ["log", "workload"])
@pytest.mark.parametrize("target", ["fifo", "/dev/zero"])
def test_a_fifo_or_device_configured_as_a_log_or_workload_is_refused_not_waited_for(tmp_path: Path, fifo: Path, key: str, target: str) -> None:
    named = fifo if target == "fifo" else Path(target)
    run = _run_with(tmp_path, f'[runs."*"]\n{key} = "{named}"\n')
    result = tlint("check", str(run), "--no-cache", cwd=tmp_path)
    kind = "a FIFO" if target == "fifo" else "a device"
    assert result.returncode == 2 and f"{named}: {kind}, which is not read: only regular files are" in result.stderr


@pytest.mark.parametrize("option", ["--baseline", "--config"])
def test_a_fifo_as_baseline_or_configuration_is_refused_not_waited_for(tmp_path: Path, fifo: Path, option: str) -> None:
    trace = broken_trace(tmp_path / "trace_rank7.txt")
    result = tlint("check", str(trace), option, str(fifo), "--no-cache", cwd=tmp_path)
    assert result.returncode == 2 and f"{fifo}: a FIFO, which is not read" in result.stderr


def test_a_fifo_as_the_comm_group_of_a_chakra_run_is_refused_not_waited_for(tmp_path: Path, fifo: Path) -> None:
    from tests.synth.chakra_trace import collective, write

    write({"wl.0.et": {"nodes": [collective(1, pg_name="3")]}, "wl.1.et": {"nodes": [collective(1, pg_name="3")]}}, tmp_path)
    given = tlint("check", str(tmp_path / "wl.0.et"), "--comm-group", str(fifo), "--no-cache", cwd=tmp_path)
    assert given.returncode == 2 and f"--comm-group {fifo}: a FIFO, which is not read" in given.stderr
    os.mkfifo(tmp_path / "comm_group.json")  # beside the traces: passed over, as if there were none (TL524)
    assert findings(tlint("check", str(tmp_path / "wl.0.et"), "--no-cache", "--output-format", "json", cwd=tmp_path)) == [("wl.0.et", 2, "TL524")]


def test_fifos_and_devices_named_on_the_command_line_are_errors_and_the_other_paths_are_checked(tmp_path: Path, fifo: Path) -> None:
    trace = broken_trace(tmp_path / "trace_rank7.txt")
    result = tlint("check", str(fifo), "/dev/zero", str(trace), "--no-cache", cwd=tmp_path)
    assert result.returncode == 2 and "TL001" in result.stdout
    assert f"{fifo}: not a regular file or directory" in result.stderr and "/dev/zero: not a regular file or directory" in result.stderr


def test_a_fifo_in_a_walked_directory_is_passed_over_even_as_its_gitignore(tmp_path: Path) -> None:
    broken_trace(tmp_path / "traces" / "trace_rank7.txt")
    os.mkfifo(tmp_path / "traces" / "trace_rank8.txt")
    os.mkfifo(tmp_path / "traces" / ".gitignore")
    result = tlint("check", "traces", "--no-cache", cwd=tmp_path)
    assert result.returncode == 1 and result.stdout.startswith("traces/trace_rank7.txt:3:30: TL001")


# -- links out of the tree --------------------------------------------------------------------------


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A file outside the checked tree whose first line must not end up in a report (think ~/.ssh/id_rsa)."""
    path = tmp_path / "outside" / "secret.txt"
    path.parent.mkdir()
    path.write_text("rank:3:TOKEN=hunter2\n", encoding="utf-8")
    return path


def test_a_link_in_a_walked_directory_is_not_followed_out_of_it(tmp_path: Path, secret: Path) -> None:
    tree = tmp_path / "pr"
    broken_trace(tree / "trace_rank7.txt")
    (tree / "trace_rank3.txt").symlink_to(secret)
    (tree / "environ_rank4.txt").symlink_to("/proc/self/environ")
    (tree / "sub").mkdir()
    (tree / "sub" / "inside_rank7.txt").symlink_to(tree / "trace_rank7.txt")  # within the tree: followed
    result = tlint("check", "pr", "--no-cache", "--output-format", "full", cwd=tmp_path)
    assert result.returncode == 1 and "hunter2" not in result.stdout + result.stderr and "PYTHONPATH" not in result.stdout
    assert "pr/sub/inside_rank7.txt" in result.stdout
    assert "Checked 2 files (2 links out of the walked directory not followed; --verbose lists them)" in result.stderr
    listed = tlint("check", "pr", "--no-cache", "--verbose", cwd=tmp_path).stderr
    assert "pr/trace_rank3.txt: not followed: a symbolic link out of the walked directory (name it to check it)" in listed
    named = tlint("check", "pr/trace_rank3.txt", "--no-cache", cwd=tmp_path)  # named on the command line: followed
    assert named.returncode == 1 and "pr/trace_rank3.txt:1:" in named.stdout


def test_a_sibling_rank_file_linking_out_of_the_run_is_not_read(tmp_path: Path) -> None:
    run = _run_with(tmp_path, "")
    outside = tmp_path / "outside" / "elsewhere.txt"
    outside.parent.mkdir()
    shutil.copy(run / "trace_rank0.txt", outside)  # read as rank 2 of the run, it would claim rank 0 twice (TL501)
    (run / "trace_rank2.txt").symlink_to(outside)
    result = tlint("check", str(run / "trace_rank0.txt"), "--no-cache", "--output-format", "json", cwd=tmp_path)
    assert "trace_rank2" not in result.stdout and "TL501" not in result.stdout
    (run / "trace_rank2.txt").unlink()
    shutil.copy(outside, run / ".copy")
    (run / "trace_rank2.txt").symlink_to(run / ".copy")  # within the run's directory: followed
    result = tlint("check", str(run / "trace_rank0.txt"), "--no-cache", "--output-format", "json", cwd=tmp_path)
    assert "TL501" in result.stdout


# -- what cannot be read ----------------------------------------------------------------------------


def test_an_unreadable_directory_or_file_is_an_error_and_the_other_paths_are_checked(tmp_path: Path) -> None:
    needs_unprivileged()
    trace = broken_trace(tmp_path / "trace_rank7.txt")
    locked = tmp_path / "locked"
    broken_trace(locked / "trace_rank1.txt")
    unreadable = broken_trace(tmp_path / "unreadable_rank2.txt")
    unreadable.chmod(0)
    locked.chmod(0)
    try:
        result = tlint(
            "check", "locked", "locked/trace_rank1.txt", "unreadable_rank2.txt", str(trace), "--no-cache", cwd=tmp_path, env={"TEST_UNPRIVILEGED": "1"}
        )
    finally:
        locked.chmod(0o755)
    assert result.returncode == 2 and result.stdout.startswith(f"{trace}:3:30: TL001")
    errors = sorted(line for line in result.stderr.splitlines() if line.startswith("tlint: error:"))
    assert errors == [
        "tlint: error: locked/trace_rank1.txt: cannot read: Permission denied",
        "tlint: error: locked: cannot read directory: Permission denied",
        "tlint: error: unreadable_rank2.txt: cannot read: Permission denied",
    ]


# -- the cache --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda line: b'[[true,"megatron-trace"],[],{}]', id="findings-emptied"),
        pytest.param(lambda line: line.replace(b'"TL001"', b"null"), id="code-not-text"),
        pytest.param(lambda line: line.replace(b",3,30,", b',"3",30,'), id="line-not-a-number"),
        pytest.param(lambda line: b"garbage", id="garbage"),
    ],
)
def test_a_damaged_cache_entry_is_a_miss_not_a_crash_or_a_lost_finding(tmp_path: Path, damage: object) -> None:
    cache = tmp_path / "cache"
    trace = broken_trace(tmp_path / "trace_rank7.txt")
    env = {"TLINT_CACHE_DIR": str(cache)}
    first = tlint("check", str(trace), "--output-format", "full", cwd=tmp_path, env=env)
    (entry,) = (path for path in (cache / "v2" / "entries").rglob("*") if path.is_file())
    outcome, rest = entry.read_bytes().split(b"\n", 1)
    assert callable(damage)
    entry.write_bytes(damage(outcome) + b"\n" + rest)
    again = tlint("check", str(trace), "--output-format", "full", cwd=tmp_path, env=env)
    assert (again.returncode, again.stdout) == (first.returncode, first.stdout) == (1, first.stdout)
    assert "TL001" in again.stdout


# -- limits of the command line ---------------------------------------------------------------------


def test_jobs_are_capped_at_the_cores(tmp_path: Path) -> None:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    shown = tlint("check", str(MEGATRON), "--jobs", "100000", "--show-settings", cwd=tmp_path).stdout
    assert f"jobs: {cores}\n" in shown
    assert tlint("check", str(MEGATRON), "--jobs", "100000", "--no-cache", cwd=tmp_path).returncode == 0


def test_the_html_diff_carries_no_control_characters_from_row_names(tmp_path: Path) -> None:
    text = SIMAI.read_text(encoding="utf-8")
    changed = tmp_path / "b.txt"
    changed.write_text(text.replace("layernorm", "layer\x1b[31mnorm\x07\x9b\u202e", 1).replace("14600000", "29200000", 1), encoding="utf-8")
    result = tlint("diff", str(SIMAI), str(changed), "--output-format", "html", cwd=tmp_path)
    assert result.returncode == 1 and "layer\\x1b[31mnorm\\x07\\x9b\\u202e" in result.stdout
    assert not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", result.stdout)


# -- output that cannot be written ------------------------------------------------------------------


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
@pytest.mark.parametrize("extra", [[], ["--exit-zero"], ["--output-format", "json"]])
def test_a_full_disk_on_the_output_exits_2_even_with_exit_zero(tmp_path: Path, extra: list[str]) -> None:
    trace = broken_trace(tmp_path / "trace_rank7.txt")
    with open("/dev/full", "w") as full:
        result = tlint("check", str(trace), "--no-cache", *extra, cwd=tmp_path, stdout=full)
    assert result.returncode == 2 and "tlint: error: I/O error: No space left on device" in result.stderr


def test_a_reader_that_leaves_early_ends_tlint_quietly(tmp_path: Path) -> None:
    lines = MEGATRON.read_text(encoding="utf-8").splitlines()
    trace = tmp_path / "trace_rank7.txt"
    # A long report: broken lines between valid ones are a finding each (a run of them would be one).
    trace.write_text("\n".join([lines[0], "rank:7:x(" + "y" * 200] * 3000) + "\n", encoding="utf-8")
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-m", "lint", "check", str(trace), "--no-cache", "--max-findings", "0", "--exit-zero"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=environment,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.readline()
    process.stdout.close()  # as `| head -1` does
    assert process.wait(timeout=TIMEOUT) == 2
    assert process.stderr.read() == b""


def test_closed_standard_output_is_an_io_error_exit_2(tmp_path: Path) -> None:
    trace = broken_trace(tmp_path / "trace_rank7.txt")
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    for command in ("check", "diff"):
        paths = [str(trace)] if command == "check" else [str(MEGATRON), str(trace)]
        result = subprocess.run(
            ["sh", "-c", 'exec "$@" >&-', "sh", sys.executable, "-m", "lint", command, "--no-cache", *paths],
            env=environment,
            stdin=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
        assert result.returncode == 2 and result.stderr.endswith("tlint: error: I/O error: standard output is closed\n"), result.stderr


# -- numbers from the input that size a loop ---------------------------------------------------------
# A world size, a pipeline size, an NPU id is whatever the file says, up to int64 and past it: nothing may
# list 0..N-1 of such a number.  Without the memory limit, each of these grew until the machine's memory was gone.

HUGE = 1_000_000_000_000
LIMITED = 2 << 30  # bytes of address space: far more than any of these checks needs


def test_a_huge_world_size_or_pipeline_in_a_console_log_is_judged_without_listing_its_ranks(tmp_path: Path) -> None:
    log = (ROOT / "examples" / "optprime-log.txt").read_text(encoding="utf-8")
    world = tmp_path / "world.log"
    world.write_text(log.replace("> World size: 8", f"> World size: {HUGE}").replace("> World Size: 8", f"> World Size: {HUGE}"), encoding="utf-8")
    pipeline = tmp_path / "pipeline.log"
    pipeline.write_text(log.replace("> PP: 8", f"> PP: {HUGE}").replace("Pipeline Parallel Size: 8", f"Pipeline Parallel Size: {HUGE}"), encoding="utf-8")
    mesh = tmp_path / "mesh.log"
    mesh.write_text(log.replace("> TP: 1", f"> TP: {1 << 62}").replace("> DP: 1", f"> DP: {1 << 62}"), encoding="utf-8")
    result = tlint("check", str(world), str(pipeline), str(mesh), "--output-format", "json", "--no-cache", cwd=tmp_path, memory=LIMITED)
    messages: dict[tuple[str, str], list[str]] = {}
    for finding in json.loads(result.stdout)["findings"]:
        messages.setdefault((Path(finding["path"]).name, finding["code"]), []).append(finding["message"])
    assert not [key for key in messages if key[1] == "TL000"], messages
    assert "999,999,999,992 ranks (8-999999999999) printed nothing here" in messages["world.log", "TL220"][0]
    assert messages["pipeline.log", "TL205"] == [f"stage2rank lists stages 0-7; `> PP: {HUGE}` (line 16) gives stages 0-{HUGE - 1}"]
    width = 1 << 124
    assert messages["mesh.log", "TL205"][0].startswith(f"stage 0 has ranks [0]; the (pp, dp, tp) mesh gives it ranks [0-{width - 1}] (DP · TP")


@pytest.mark.parametrize("where", ["file name", "comm_group.json"])
def test_a_huge_npu_id_in_a_chakra_run_is_judged_without_listing_the_npus(tmp_path: Path, where: str) -> None:
    run = tmp_path / "run"
    run.mkdir()
    for npu in range(3):
        shutil.copyfile(ROOT / "tests" / "fixtures" / "chakra" / "dp.0.et", run / f"dp.{npu}.et")
    if where == "file name":
        (run / "dp.2.et").rename(run / f"dp.{HUGE}.et")
    else:
        (run / "comm_group.json").write_text(json.dumps({"1": [0, 1, 2, HUGE]}), encoding="utf-8")
    result = tlint("check", str(run), "--output-format", "json", "--no-cache", cwd=tmp_path, memory=LIMITED)
    found = {f["code"]: f["message"] for f in json.loads(result.stdout)["findings"]}
    first = 2 if where == "file name" else 3
    missing = HUGE + 1 - 3
    assert "TL000" not in found and found["TL521"].startswith(
        f"the run has no file for NPU {', '.join(map(str, range(first, first + 10)))} … ({missing:,} NPUs up to {HUGE:,}) ("
    )


def test_a_diff_of_a_trace_whose_stage_id_is_huge_ends_with_a_verdict(tmp_path: Path) -> None:
    changed = tmp_path / "trace_rank7.txt"
    changed.write_text(MEGATRON.read_text(encoding="utf-8").replace("stage_id=3", f"stage_id={HUGE}"), encoding="utf-8")
    result = tlint("diff", str(MEGATRON), str(changed), "--output-format", "json", "--no-cache", cwd=tmp_path, memory=LIMITED)
    assert result.returncode == 1 and json.loads(result.stdout)["summary"]["headline"].startswith(f"pp 4 → {HUGE + 1:,}")


def test_a_chakra_file_of_one_node_id_repeated_is_read_in_linear_time(tmp_path: Path) -> None:
    # 2 MiB of spaces frame 65,536 nodes of id 0, each with 16 control dependencies: the dependency graph added
    # each record's parents to its id's by copying them all (quadratic: 92 s for 1 MiB, past the timeout for 2).
    # Text is no trace to detection (no node's type key), so the format is named.
    path = tmp_path / "spaces.0.et"
    path.write_bytes(b" " * (2 * MIB))
    result = tlint("check", str(path), "--trace-format", "chakra-et", "--output-format", "json", "--no-cache", cwd=tmp_path)
    assert result.returncode == 1 and sorted({code for _, _, code in findings(result)}) == ["TL601", "TL602"]


def test_a_chakra_trace_is_not_compared_with_another_format(tmp_path: Path) -> None:
    result = tlint("diff", str(ROOT / "tests" / "fixtures" / "chakra" / "dp.0.et"), str(SIMAI), "--no-cache", cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.endswith(
        f"(chakra-et) has no per-layer profile to compare with {SIMAI} (simai-workload): compare it with another chakra-et file or run\n"
    )


def test_a_diff_of_files_whose_names_are_not_utf8_is_written(tmp_path: Path) -> None:
    a, b = os.path.join(bytes(tmp_path), b"a\xff.txt"), os.path.join(bytes(tmp_path), b"b\xfe.txt")
    shutil.copyfile(SIMAI, os.fsdecode(a))
    shutil.copyfile(SIMAI, os.fsdecode(b))
    for output_format in ("json", "html", "concise"):
        for cache in (["--no-cache"], [], []):  # read, then stored in the cache, then read from it
            result = tlint("diff", os.fsdecode(a), os.fsdecode(b), "--output-format", output_format, *cache, cwd=tmp_path)
            assert result.returncode == 0 and "a\ufffd.txt" in result.stdout and "b\ufffd.txt" in result.stdout, (output_format, result.stderr)


# -- configuration and patterns ---------------------------------------------------------------------


def test_an_integer_of_more_digits_than_python_converts_is_a_configuration_error(tmp_path: Path) -> None:
    shutil.copyfile(SIMAI, tmp_path / "w.txt")
    (tmp_path / "pyproject.toml").write_text(f"[tool.tlint]\n\nmax-findings = {'9' * 5000}\n", encoding="utf-8")
    result = tlint("check", "w.txt", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == f"tlint: error: {tmp_path / 'pyproject.toml'}:3: not valid TOML: an integer of more than 4,300 digits\n"


def test_a_pattern_with_a_range_backwards_matches_nothing_in_a_gitignore_and_is_an_error_as_an_exclude(tmp_path: Path) -> None:
    broken_trace(tmp_path / "traces" / "trace_rank7.txt")
    (tmp_path / "traces" / ".gitignore").write_text("[z-a]\n", encoding="utf-8")
    result = tlint("check", "traces", "--no-cache", cwd=tmp_path)
    assert result.returncode == 1 and result.stdout.startswith("traces/trace_rank7.txt:3:30: TL001")
    result = tlint("check", "traces", "--no-cache", "--extend-exclude", "scratch/,[z-a]", cwd=tmp_path)
    assert result.returncode == 2 and result.stderr == "tlint: error: exclude patterns: '[z-a]' is no pattern: bad character range z-a\n"


def test_a_layer_count_followed_by_a_form_feed_is_read_as_both_consumers_read_it(tmp_path: Path) -> None:
    lines = SIMAI.read_bytes().split(b"\n")
    lines[1] += b"\x0c"
    path = tmp_path / "workload.txt"
    path.write_bytes(b"\n".join(lines))
    for consumer in ("simai", "astra-sim-1"):
        result = tlint("check", str(path), "--consumer", consumer, "--output-format", "json", "--no-cache", cwd=tmp_path)
        assert ("workload.txt", 2, "TL000") not in findings(result) and ("workload.txt", 2, "TL427") not in findings(result)


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_an_output_of_another_encoding_gets_escapes_not_a_traceback(tmp_path: Path, encoding: str) -> None:
    # Before: UnicodeEncodeError traceback, exit 1, at the first character the output's encoding lacks.
    changed = tmp_path / "changed.txt"
    changed.write_text(SIMAI.read_text(encoding="utf-8").replace("model_parallel_NPU_group: 8", "model_parallel_NPU_group: 4", 1), encoding="utf-8")
    result = tlint("diff", str(SIMAI), str(changed), env={"PYTHONIOENCODING": encoding, "LC_ALL": "C"}, cwd=tmp_path)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert "tp 8 \\u2192 4" in result.stdout.splitlines()[0]


def test_the_junit_report_escapes_a_bidirectional_override_in_a_file_name(tmp_path: Path) -> None:
    # Before: the U+202E of the name stood raw in the testcase's name and in the failure's text.
    named = tmp_path / "trace\u202etxt.rank0.txt"
    named.write_text(MEGATRON.read_text(encoding="utf-8").replace("stage_id=", "stage_id=x", 1), encoding="utf-8")
    result = tlint("check", str(named), "--no-cache", "--output-format", "junit", cwd=tmp_path)
    assert result.returncode == 1 and "\u202e" not in result.stdout and "trace\\u202etxt.rank0.txt" in result.stdout


def test_a_double_star_pattern_does_not_descend_into_links_to_directories(tmp_path: Path) -> None:
    # Before: glob.glob(recursive=True) followed both links to `..` without end (the check hung); a link to /
    # would have walked the whole file system.
    run = tmp_path / "tree" / "run"
    run.mkdir(parents=True)
    shutil.copy(MEGATRON, run / "trace_rank0.txt")
    (run / "up").symlink_to("..")
    (run / "up_again").symlink_to("..")
    (run / "root").symlink_to("/")
    result = tlint("check", "tree/**/*.txt", "--no-cache", cwd=tmp_path)
    assert result.returncode == 0 and "Checked 1 file" in result.stdout + result.stderr, result.stdout + result.stderr
