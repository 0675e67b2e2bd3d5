"""Start-up: repeated wall time of ``tlint --version`` and of a check of one small file, and what they import.

    python benchmarks/bench_startup.py [--runs 20]

Each command runs once to warm up, then --runs times in a fresh interpreter (the checkout's ``python -m
lint``, so the interpreter's own start-up is included; a shell wrapper such as pyenv's would add to it),
with a cache directory of its own; prints the minimum and the median of its wall and CPU time, and the
number of modules imported (``python -X importtime``).  "served from the cache" is the check a pre-commit
hook repeats on an unchanged file.
The target (issue 13): ``tlint --version`` < 80 ms.
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
COMMANDS = {
    "--version": ["--version"],
    "check one small file": ["check", "--no-cache", "examples/megatron-trace_rank7.txt"],
    "... served from the cache": ["check", "examples/megatron-trace_rank7.txt"],
    "check a neusight file": ["check", "--no-cache", "examples/neusight-gpt2-large.tsv"],
    "(python -c pass)": None,
}


def main() -> int:
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    arguments.add_argument("--runs", type=int, default=20)
    args = arguments.parse_args()
    bytecode_compiled()
    with tempfile.TemporaryDirectory(prefix="tlint-cache-") as cache:
        env = {**os.environ, "TLINT_CACHE_DIR": cache}
        for label, argv in COMMANDS.items():
            _measure(label, argv, args.runs, env)
    return 0


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
