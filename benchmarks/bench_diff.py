"""Time ``tlint diff`` of two generated runs that differ only in their timing seed (default: 1,024 ranks).

    python benchmarks/bench_diff.py [--tp 2] [--pp 8] [--dp 64] [--micro-batches 2] [--iterations 1] [--keep] [--temporary] [--jobs N ...]

The runs are benchmarks/data/run_…_seed{0,1}/: reused when an earlier run kept them (--keep), else
generated and removed afterwards; with --temporary they are written to a temporary directory instead.  It
prints wall time, MB/s (both runs' bytes over the wall time), the peak RSS of the largest process and the
parent's own (the workers left out): the parent merges what the workers send for every rank, so its RSS
is what grows with the number of ranks.  Then the CPU seconds of the parent and of its workers.  These
read every file (``--no-cache``: a diff checks each side and profiles it).  Last, with the first ``--jobs``
value, the same diff twice in an empty cache: the first fills it, the second reads no file.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from contextlib import ExitStack
from dataclasses import replace
from functools import partial
from pathlib import Path

from generate_run import add_layout_arguments, run_name, spec_from, write_run
from measure import generated_input, run_measured

LAYOUT = {"tp": 2, "pp": 8, "dp": 64, "micro_batches": 2, "iterations": 1}  # 1,024 ranks of two short steps


def main() -> int:
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_layout_arguments(arguments)
    arguments.set_defaults(**LAYOUT)
    arguments.add_argument("--keep", action="store_true", help="keep the generated runs in benchmarks/data/ for the next run")
    arguments.add_argument("--temporary", action="store_true", help="generate the runs in a temporary directory, removed afterwards")
    arguments.add_argument("--jobs", type=int, action="append", help="the --jobs values to time (default: 2)")
    args = arguments.parse_args()
    runs: list[Path] = []
    with ExitStack() as stack:
        for seed in (0, 1):
            spec = replace(spec_from(args), seed=seed)
            if args.temporary:
                directory = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix=f"tlint-diff-{seed}-")))
                write_run(spec, directory)
            else:
                directory = stack.enter_context(generated_input(f"{run_name(spec)}_seed{seed}", partial(write_run, spec), args.keep))
            runs.append(directory)
        files = [path for run in runs for path in run.iterdir()]
        size_mb = sum(path.stat().st_size for path in files) / 10**6
        print(f"runs        {runs[0]} and {runs[1]} ({len(files)} rank files, {size_mb:.1f} MB)")
        for jobs in args.jobs or [2]:
            measurement = run_measured([sys.executable, "-m", "lint", "diff", *map(str, runs), "--output-format", "json", "--jobs", str(jobs), "--no-cache"])
            if measurement.exit_code not in (0, 1):
                print(f"tlint diff failed with exit code {measurement.exit_code}")
                return 2
            parent_rss = f"{measurement.parent_peak_rss_mib:.1f} MiB" if measurement.parent_peak_rss_mib is not None else "unknown"
            print(
                f"--jobs {jobs:<4} wall {measurement.seconds:.2f} s  {size_mb / measurement.seconds:.1f} MB/s  "
                f"peak RSS {measurement.peak_rss_mib:.1f} MiB (parent alone {parent_rss})  "
                f"verdict: {json.loads(measurement.stdout)['summary']['verdict']}"
            )
            if measurement.parent_cpu_seconds is not None:
                workers = measurement.cpu_seconds - measurement.parent_cpu_seconds
                print(f"            CPU: parent {measurement.parent_cpu_seconds:.2f} s, workers {workers:.2f} s")
        cache = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="tlint-diff-cache-")))
        command = [sys.executable, "-m", "lint", "diff", *map(str, runs), "--output-format", "json", "--jobs", str((args.jobs or [2])[0])]
        first, second = (run_measured(command, env={**os.environ, "TLINT_CACHE_DIR": str(cache)}) for _ in range(2))
        print(f"cache       first diff {first.seconds:.2f} s, second diff {second.seconds:.2f} s ({first.seconds / second.seconds:.1f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
