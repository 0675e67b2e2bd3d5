"""Start-up: repeated wall time of ``tlint --version`` and of a check of one small file, and what they import.

    python benchmarks/bench_startup.py [--runs 20] [--pairs 9]

Each command runs once to warm up, then --runs times in a fresh interpreter (the checkout's ``python -m
lint``, so the interpreter's own start-up is included; a shell wrapper such as pyenv's would add to it),
with a cache directory of its own; prints the minimum and the median of its wall and CPU time, and the
number of modules imported (``python -X importtime``).  "served from the cache" is the check a pre-commit
hook repeats on an unchanged file.

Then the check of one small file against a bare interpreter (``python -c pass``), in --pairs interleaved
pairs (so that a machine others load weighs on both alike): the median of the pairs' ratios, of CPU time
and of wall time.
The targets: ``tlint --version`` < 80 ms (issue 13); a check of one small file at most 6x a bare Python
start (issue 25).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from measure import ROOT, bytecode_compiled

TARGET_VERSION_MS = 80.0
TARGET_RATIO = 6.0
SMALL_FILE = ["check", "--no-cache", "examples/megatron-trace_rank7.txt"]
COMMANDS = {
    "--version": ["--version"],
    "check one small file": SMALL_FILE,
    "... served from the cache": ["check", "examples/megatron-trace_rank7.txt"],
    "check a neusight file": ["check", "--no-cache", "examples/neusight-gpt2-large.tsv"],
    "(python -c pass)": None,
}


def main() -> int:
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    arguments.add_argument("--runs", type=int, default=20)
    arguments.add_argument("--pairs", type=int, default=9, help="interleaved pairs of a small check and a bare interpreter (default 9)")
    args = arguments.parse_args()
    bytecode_compiled()
    with tempfile.TemporaryDirectory(prefix="tlint-cache-") as cache:
        env = {**os.environ, "TLINT_CACHE_DIR": cache}
        for label, argv in COMMANDS.items():
            _measure(label, argv, args.runs, env)
        met = _ratio(args.pairs, env)
    return 0 if met else 1


def _run(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU milliseconds of one run of ``command``."""
    start = time.perf_counter()
    child = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, _, usage = os.wait4(child.pid, 0)
    return (time.perf_counter() - start) * 1000, (usage.ru_utime + usage.ru_stime) * 1000


def _ratio(pairs: int, env: dict[str, str]) -> bool:
    """A small check over a bare interpreter start, in interleaved pairs: whether the CPU ratio meets the target."""
    check, bare = [sys.executable, "-m", "lint", *SMALL_FILE], [sys.executable, "-c", "pass"]
    _run(check, env)
    cpu, wall = [], []
    for _ in range(pairs):
        bare_wall, bare_cpu = _run(bare, env)
        check_wall, check_cpu = _run(check, env)
        cpu.append(check_cpu / bare_cpu)
        wall.append(check_wall / bare_wall)
    ratio = statistics.median(cpu)
    print(
        f"{'small check / bare python':<26} CPU {ratio:5.1f}x  wall {statistics.median(wall):5.1f}x  (median of {pairs} interleaved pairs; "
        f"target <= {TARGET_RATIO:g}x: {'met' if ratio <= TARGET_RATIO else 'NOT met'})"
    )
    return ratio <= TARGET_RATIO


def _measure(label: str, argv: list[str] | None, runs: int, env: dict[str, str]) -> None:
    command = [sys.executable, "-m", "lint", *argv] if argv is not None else [sys.executable, "-c", "pass"]
    subprocess.run(command, cwd=ROOT, capture_output=True, check=False, env=env)  # the rule catalog and grammar memos, the file's entry
    times, cpu = [], []
    for _ in range(runs):
        start = time.perf_counter()
        child = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        _, _, usage = os.wait4(child.pid, 0)  # this child's own CPU time: steadier than wall time on a shared machine
        times.append((time.perf_counter() - start) * 1000)
        cpu.append((usage.ru_utime + usage.ru_stime) * 1000)
    traced = subprocess.run([command[0], "-X", "importtime", *command[1:]], cwd=ROOT, capture_output=True, text=True, check=False, env=env)
    modules = sum(1 for line in traced.stderr.splitlines() if line.startswith("import time:") and "|" in line) - 1
    verdict = f"  (target < {TARGET_VERSION_MS:g} ms: {'met' if min(times) < TARGET_VERSION_MS else 'NOT met'})" if argv == ["--version"] else ""
    print(
        f"{label:<26} min {min(times):6.1f} ms  median {statistics.median(times):6.1f} ms  "
        f"CPU min {min(cpu):6.1f} ms  median {statistics.median(cpu):6.1f} ms  modules imported {modules}{verdict}"
    )


if __name__ == "__main__":
    sys.exit(main())
