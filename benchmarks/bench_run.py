"""Time ``tlint check`` on a whole generated run (default: 256 ranks, tp 4, pp 8, dp 8).

    python benchmarks/bench_run.py [--tp 4] [--pp 8] [--dp 8] [--micro-batches 16] [--iterations 2] [--keep]

The run is benchmarks/data/run_…/: reused when an earlier run kept it (--keep), else generated and
removed afterwards.  It is checked with ``--jobs 1`` and ``--jobs 2`` when ``tlint check`` has that
option, else once.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

from generate_run import add_layout_arguments, run_name, spec_from, write_run
from measure import ROOT, TLINT_CHECK, generated_input, run_measured


def supports_jobs() -> bool:
    usage = subprocess.run([*TLINT_CHECK, "--help"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return "--jobs" in usage


def main() -> int:
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_layout_arguments(arguments)
    arguments.add_argument("--keep", action="store_true", help="keep the generated run in benchmarks/data/ for the next run")
    args = arguments.parse_args()
    spec = spec_from(args)
    with generated_input(run_name(spec), lambda out: write_run(spec, out), args.keep) as directory:
        files = sorted(directory.iterdir())
        size_mb = sum(path.stat().st_size for path in files) / 10**6
        print(f"run         {directory} ({len(files)} rank files, {size_mb:.1f} MB)")
        variants = [["--jobs", "1"], ["--jobs", "2"]] if supports_jobs() else [[]]
        if variants == [[]]:
            print("tlint check has no --jobs option yet: checked once, in one process")
        for extra in variants:
            measurement = run_measured([*TLINT_CHECK, str(directory), "--output-format", "json", *extra])
            if measurement.exit_code not in (0, 1):
                print(f"tlint check failed with exit code {measurement.exit_code}")
                return 2
            summary = json.loads(measurement.stdout)["summary"]
            label = " ".join(extra) or "(default)"
            print(f"{label:<11} wall {measurement.seconds:.2f} s  {size_mb / measurement.seconds:.1f} MB/s  "
                  f"peak RSS {measurement.peak_rss_mib:.1f} MiB  findings {summary['findings']} (files checked: {summary['checked']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
