"""Overlong lines: a 10 MB line costs about ten times what a 1 MB line of the same shape costs, in time
and in memory.  Super-linear work on one line (regex backtracking, re-scanning, quadratic joins) shows
up here long before a real 200 MB trace would time out."""

from __future__ import annotations

import io
import multiprocessing
import resource
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path

import pytest

from lint.cli import main

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
MB = 1_000_000
TIME_FACTOR = 25  # allowed for 10x the size: linear work with generous room for noise and caches
SHORTEST_MEASURED = 0.02  # seconds: below this, a 1 MB time is mostly timer and start-up noise
MEMORY_PER_BYTE = 40  # peak bytes per byte of the line: the worst shape (a str per 3-byte token) needs ~30

_TRACE = (FIXTURES / "seeds" / "000_14848477538be528.txt").read_text(encoding="utf-8").splitlines()[2]
_TABLE_HEADER = (FIXTURES / "seeds" / "003_891053d3e8445d09.txt").read_text(encoding="utf-8").splitlines()[0]
_SUB_OPERATION = (
    "'trace_src_func=allreduce,duration=3.22,timestamp=4509232464.15,input__shape=[4096, 5120],"
    "input__dtype=torch.float32,func_name=linear_fwd,group=tp,comm_func=allreduce'"
)
_TRACE_HEAD = _TRACE[: _TRACE.index("sub_operations=[") + len("sub_operations=[")]
_WORKLOAD_HEAD = "HYBRID_TRANSFORMER model_parallel_NPU_group: 8\n1\n"

# name -> (format, the file's text for a line of about n characters)
SHAPES: dict[str, tuple[str, Callable[[int], str]]] = {
    "trace-sub-operations": ("megatron-trace", lambda n: _TRACE_HEAD + ", ".join([_SUB_OPERATION] * (n // len(_SUB_OPERATION))) + "])\n"),
    "trace-description": ("megatron-trace", lambda n: _TRACE.replace("description=None", "description=" + "d," * (n // 2)) + "\n"),
    "trace-garbage": ("megatron-trace", lambda n: "rank:0:forward_step(" + "x" * n + "\n"),
    "trace-nested-brackets": ("megatron-trace", lambda n: _TRACE_HEAD + "[" * (n // 2) + "]" * (n // 2) + "])\n"),
    "trace-sub-operation-garbage": ("megatron-trace", lambda n: _TRACE_HEAD + "'" + "x=" * (n // 2) + "'])\n"),
    "table-layer-name": ("neusight-tsv", lambda n: f"{_TABLE_HEADER}\n{'n' * n}\t0\tNone\t0\t0\tNone\t0\t0\tNone\t0\t0\n"),
    "table-digits": ("neusight-tsv", lambda n: f"{_TABLE_HEADER}\nn\t{'9' * n}\tNone\t{'9' * 30}\t0\tNone\t0\t0\tNone\t0\t0\n"),
    "workload-layer-name": ("simai-workload", lambda n: _WORKLOAD_HEAD + "l" * n + "\t-1\t1\tNONE\t0\t1\tNONE\t0\t1\tNONE\t0\t1\n"),
    "workload-tiny-tokens": ("simai-workload", lambda n: _WORKLOAD_HEAD + "12 " * (n // 3) + "\n"),
    "no-newline": ("megatron-trace", lambda n: "a" * n),
    "nul-bytes": ("simai-workload", lambda n: "\0" * n),
}


def measure(path: Path, format_name: str) -> tuple[float, int]:
    """(CPU seconds, growth of the peak resident memory in bytes) of checking ``path`` as ``format_name``.

    The check runs in a forked child: its peak is then this check's alone, and the grammars and rules
    the parent has loaded cost it nothing.
    """
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_measure_in_child, args=(path, format_name, sender))
    child.start()
    code, elapsed, growth = receiver.recv()
    child.join()
    assert code in (0, 1)
    return elapsed, growth


def _measure_in_child(path: Path, format_name: str, sender: Connection) -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.process_time()  # CPU time: other work on a shared machine does not count against the check
    code = check(path, format_name)
    elapsed = time.process_time() - started
    growth = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024  # Linux counts KiB
    sender.send((code, elapsed, growth))


def check(path: Path, format_name: str) -> int:
    return main(["check", str(path), "--trace-format", format_name, "--jobs", "1", "--no-cache"], stdout=io.StringIO(), stderr=io.StringIO())


@pytest.mark.parametrize("shape", SHAPES)
def test_a_ten_times_longer_line_costs_at_most_linearly_more(shape: str, tmp_path: Path) -> None:
    format_name, text_of = SHAPES[shape]
    path = tmp_path / "long.txt"
    path.write_text(text_of(MB), encoding="utf-8")
    check(path, format_name)  # grammars and rules load here, before the measured children fork
    short_time, _ = min(measure(path, format_name) for _ in range(2))
    path.write_text(text_of(10 * MB), encoding="utf-8")
    size = path.stat().st_size
    long_time, long_peak = measure(path, format_name)
    limit = TIME_FACTOR * max(short_time, SHORTEST_MEASURED)
    if long_time > limit:  # measured again once: on a machine busy with other work, CPU time too grows (caches)
        long_time = min(long_time, measure(path, format_name)[0])
    assert long_time <= limit, (short_time, long_time)
    assert long_peak <= MEMORY_PER_BYTE * size, f"{long_peak / size:.1f} bytes per byte"
