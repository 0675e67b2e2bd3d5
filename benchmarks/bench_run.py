"""Time ``tlint check`` on a whole generated run (default: 256 ranks, tp 4, pp 8, dp 8), --jobs 1 and 2.

    python benchmarks/bench_run.py [--tp 4] [--pp 8] [--dp 8] [--micro-batches 16] [--iterations 2] [--keep]
    python benchmarks/bench_run.py --tp 2 --pp 8 --dp 625 --micro-batches 2 --iterations 1 --temporary --jobs 2

The run is benchmarks/data/run_…/: reused when an earlier run kept it (--keep), else generated and
removed afterwards; with --temporary it is written to a temporary directory instead (a 10,000-rank run
is many files).  Besides wall time and MB/s, it prints the parent process's own peak RSS (the workers
left out): what grows with the number of ranks.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path

from generate_run import add_layout_arguments, run_name, spec_from, write_run
from measure import TLINT_CHECK, generated_input, run_measured


def main() -> int:
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_layout_arguments(arguments)
    arguments.add_argument("--keep", action="store_true", help="keep the generated run in benchmarks/data/ for the next run")
    arguments.add_argument("--temporary", action="store_true", help="generate the run in a temporary directory, removed afterwards")
    arguments.add_argument("--jobs", type=int, action="append", help="the --jobs values to time (default: 1 and 2)")
    args = arguments.parse_args()
    spec = spec_from(args)
    with ExitStack() as stack:
        if args.temporary:
            directory = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="tlint-run-")))
            write_run(spec, directory)
        else:
            directory = stack.enter_context(generated_input(run_name(spec), lambda out: write_run(spec, out), args.keep))
        files = sorted(directory.iterdir())
        size_mb = sum(path.stat().st_size for path in files) / 10**6
        print(f"run         {directory} ({len(files)} rank files, {size_mb:.1f} MB)")
        for jobs in args.jobs or [1, 2]:
            measurement = run_measured([*TLINT_CHECK, str(directory), "--output-format", "json", "--jobs", str(jobs)])
            if measurement.exit_code not in (0, 1):
                print(f"tlint check failed with exit code {measurement.exit_code}")
                return 2
            summary = json.loads(measurement.stdout)["summary"]
            parent = f"{measurement.parent_peak_rss_mib:.1f} MiB" if measurement.parent_peak_rss_mib is not None else "unknown"
            print(
                f"--jobs {jobs:<4} wall {measurement.seconds:.2f} s  {size_mb / measurement.seconds:.1f} MB/s  "
                f"peak RSS {measurement.peak_rss_mib:.1f} MiB (parent alone {parent})  "
                f"findings {summary['findings']} (files checked: {summary['checked']})"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
