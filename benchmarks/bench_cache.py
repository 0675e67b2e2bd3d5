"""Cold versus warm cache: ``tlint check`` of a generated run, first with an empty cache, then again.

    python benchmarks/bench_cache.py [--tp 4] [--pp 8] [--dp 8] [--micro-batches 16] [--iterations 2] [--keep]

The cache is a fresh temporary directory ($TLINT_CACHE_DIR).  Three timed checks, each with --jobs 1:
cold (empty cache), warm (unchanged tree), and moved (the same tree under another name: its file
entries hit, its run's findings are worked out again).  The target (issue 13): warm >= 20x faster than cold.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

from generate_run import add_layout_arguments, run_name, spec_from, write_run
from measure import TLINT_CHECK, generated_input, run_measured

TARGET_SPEED_UP = 20.0
CACHED_CHECK = [arg for arg in TLINT_CHECK if arg != "--no-cache"]


def main() -> int:
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_layout_arguments(arguments)
    arguments.add_argument("--keep", action="store_true", help="keep the generated run in benchmarks/data/ for the next run")
    args = arguments.parse_args()
    spec = spec_from(args)
    with (
        generated_input(run_name(spec), lambda out: write_run(spec, out), args.keep) as directory,
        tempfile.TemporaryDirectory(prefix="tlint-cache-") as scratch,
    ):
        size_mb = sum(path.stat().st_size for path in directory.iterdir()) / 10**6
        env = {**os.environ, "TLINT_CACHE_DIR": str(Path(scratch) / "cache")}
        moved = Path(scratch) / "moved"
        shutil.copytree(directory, moved)
        print(f"run         {directory} ({sum(1 for _ in directory.iterdir())} rank files, {size_mb:.1f} MB)")
        timings, cpu = {}, {}
        for label, target in (("cold", directory), ("warm", directory), ("moved", moved)):
            measurement = run_measured([*CACHED_CHECK, str(target), "--output-format", "json", "--jobs", "1"], env=env)
            if measurement.exit_code not in (0, 1):
                print(f"tlint check failed with exit code {measurement.exit_code}")
                return 2
            timings[label], cpu[label] = measurement.seconds, measurement.cpu_seconds
            print(f"{label:<6} wall {measurement.seconds:6.2f} s  CPU {measurement.cpu_seconds:6.2f} s  peak RSS {measurement.peak_rss_mib:6.1f} MiB")
        speed_up = timings["cold"] / timings["warm"]
        print(
            f"warm is {speed_up:.1f}x faster than cold (target >= {TARGET_SPEED_UP:g}x: {'met' if speed_up >= TARGET_SPEED_UP else 'NOT met'}); "
            f"moved tree {timings['cold'] / timings['moved']:.1f}x; in CPU time warm {cpu['cold'] / cpu['warm']:.1f}x, moved {cpu['cold'] / cpu['moved']:.1f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
