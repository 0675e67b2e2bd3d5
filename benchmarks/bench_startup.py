"""Start-up: repeated wall time of ``tlint --version`` and of a check of one small file, and what they import.

    python benchmarks/bench_startup.py [--runs 20]

Each command runs --runs times in a fresh interpreter (the checkout's ``python -m lint``, so the
interpreter's own start-up is included; a shell wrapper such as pyenv's would add to it); prints the
minimum and the median of its wall and CPU time, and the number of modules imported (``python -X importtime``).
The target (issue 13): ``tlint --version`` < 80 ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

from measure import ROOT, bytecode_compiled

TARGET_VERSION_MS = 80.0
COMMANDS = {
    "--version": ["--version"],
    "check one small file": ["check", "--no-cache", "examples/megatron-trace_rank7.txt"],
    "check a neusight file": ["check", "--no-cache", "examples/neusight-gpt2-large.tsv"],
    "(python -c pass)": None,
}


def main() -> int:
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    arguments.add_argument("--runs", type=int, default=20)
    args = arguments.parse_args()
    bytecode_compiled()
    for label, argv in COMMANDS.items():
        command = [sys.executable, "-m", "lint", *argv] if argv is not None else [sys.executable, "-c", "pass"]
        times, cpu = [], []
        for _ in range(args.runs):
            start = time.perf_counter()
            child = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            _, _, usage = os.wait4(child.pid, 0)  # this child's own CPU time: steadier than wall time on a shared machine
            times.append((time.perf_counter() - start) * 1000)
            cpu.append((usage.ru_utime + usage.ru_stime) * 1000)
        traced = subprocess.run([command[0], "-X", "importtime", *command[1:]], cwd=ROOT, capture_output=True, text=True, check=False)
        modules = sum(1 for line in traced.stderr.splitlines() if line.startswith("import time:") and "|" in line) - 1
        verdict = f"  (target < {TARGET_VERSION_MS:g} ms: {'met' if min(times) < TARGET_VERSION_MS else 'NOT met'})" if argv == ["--version"] else ""
        print(
            f"{label:<22} min {min(times):6.1f} ms  median {statistics.median(times):6.1f} ms  "
            f"CPU min {min(cpu):6.1f} ms  median {statistics.median(cpu):6.1f} ms  modules imported {modules}{verdict}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
