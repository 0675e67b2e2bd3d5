"""Time ``tlint check`` on a whole generated run (default: 256 ranks, tp 4, pp 8, dp 8), --jobs 1 and 2.

    python benchmarks/bench_run.py [--tp 4] [--pp 8] [--dp 8] [--micro-batches 16] [--iterations 2] [--keep]
    python benchmarks/bench_run.py --tp 2 --pp 8 --dp 625 --micro-batches 2 --iterations 1 --temporary --jobs 2

The run is benchmarks/data/run_…/: reused when an earlier run kept it (--keep), else generated and
removed afterwards; with --temporary it is written to a temporary directory instead (a 10,000-rank run
is many files).  Besides wall time and MB/s, it prints the parent process's own peak RSS (the workers
left out): what grows with the number of ranks.

It also prints CPU seconds: the parent's own and its workers'.  On a shared machine wall times vary with
the other load, CPU times much less; with --repeat N the --jobs values are alternated N times and the
best wall time and median CPU times are shown.  From them, the speed-up --jobs N can reach on N idle
cores (Amdahl's law: everything the parent does itself stays serial, the workers' CPU divides by N).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path

from generate_run import add_layout_arguments, run_name, spec_from, write_run
from measure import TLINT_CHECK, Measurement, generated_input, run_measured


def main() -> int:
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_layout_arguments(arguments)
    arguments.add_argument("--keep", action="store_true", help="keep the generated run in benchmarks/data/ for the next run")
    arguments.add_argument("--temporary", action="store_true", help="generate the run in a temporary directory, removed afterwards")
    arguments.add_argument("--jobs", type=int, action="append", help="the --jobs values to time (default: 1 and 2)")
    arguments.add_argument("--repeat", type=int, default=1, help="alternate the --jobs values this many times (best wall, median CPU)")
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
        measured: dict[int, list[Measurement]] = {}
        for _ in range(max(1, args.repeat)):
            for jobs in args.jobs or [1, 2]:
                measurement = run_measured([*TLINT_CHECK, str(directory), "--output-format", "json", "--jobs", str(jobs)])
                if measurement.exit_code not in (0, 1):
                    print(f"tlint check failed with exit code {measurement.exit_code}")
                    return 2
                measured.setdefault(jobs, []).append(measurement)
        for jobs, runs in measured.items():
            seconds = min(m.seconds for m in runs)
            summary = json.loads(runs[0].stdout)["summary"]
            parent_rss = max((m.parent_peak_rss_mib for m in runs if m.parent_peak_rss_mib is not None), default=None)
            parent = f"{parent_rss:.1f} MiB" if parent_rss is not None else "unknown"
            print(
                f"--jobs {jobs:<4} wall {seconds:.2f} s  {size_mb / seconds:.1f} MB/s  "
                f"peak RSS {max(m.peak_rss_mib for m in runs):.1f} MiB (parent alone {parent})  "
                f"findings {summary['findings']} (files checked: {summary['checked']})"
            )
            own = [m.parent_cpu_seconds for m in runs if m.parent_cpu_seconds is not None]
            if own:
                parent_cpu, workers_cpu = statistics.median(own), statistics.median(m.cpu_seconds for m in runs) - statistics.median(own)
                print(f"            CPU: parent {parent_cpu:.2f} s, workers {workers_cpu:.2f} s")
                if jobs > 1 and 1 in measured:
                    alone = statistics.median(m.cpu_seconds for m in measured[1])
                    bound = alone / (parent_cpu + workers_cpu / jobs)
                    print(
                        f"            on {jobs} idle cores at most {bound:.2f}x --jobs 1 "
                        f"(the parent's {parent_cpu:.2f} s, {parent_cpu / alone:.0%} of --jobs 1's CPU, stays serial)"
                    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
