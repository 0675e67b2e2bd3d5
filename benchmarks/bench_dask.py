"""The same run checked through a Dask cluster of 2 workers and through ``--jobs 2``; and what 64 workers would take.

    python benchmarks/bench_dask.py [--tp 2] [--pp 4] [--dp 125] [--micro-batches 4] [--iterations 1]

The run (default 1,000 ranks) is generated into a temporary directory; the cluster is a
``distributed.LocalCluster`` of two single-threaded worker processes started here, which the checked
``tlint check --dask-scheduler`` connects to.  From the cluster's rate per worker the script projects
the time of a 10,000-rank run of 100 MB per rank (1 TB) on 64 such workers, reading from shared storage
as fast as here (the projection ignores the storage's own limit, which on a real cluster is likely to be
the bound).  Needs the ``distributed`` package (``pip install '.[dask]'``).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from generate_run import add_layout_arguments, spec_from, write_run
from measure import TLINT_CHECK, run_measured

WORKERS = 2
PROJECTED_BYTES = 10_000 * 100 * 10**6
PROJECTED_WORKERS = 64


def main() -> int:
    try:
        from distributed import LocalCluster
    except ImportError:
        print("needs the 'distributed' package: pip install '.[dask]'")
        return 2
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_layout_arguments(arguments)
    arguments.set_defaults(tp=2, pp=4, dp=125, micro_batches=4, iterations=1)
    args = arguments.parse_args()
    spec = spec_from(args)
    with (
        tempfile.TemporaryDirectory(prefix="tlint-run-") as scratch,
        LocalCluster(n_workers=WORKERS, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
    ):
        directory = Path(scratch)
        write_run(spec, directory)
        size_mb = sum(path.stat().st_size for path in directory.iterdir()) / 10**6
        print(f"run         {spec.world_size} rank files, {size_mb:.1f} MB")
        rates = {}
        reports = {}
        for label, extra in ((f"Dask, {WORKERS} workers", ["--dask-scheduler", cluster.scheduler_address]), ("--jobs 2", ["--jobs", "2"])):
            measurement = run_measured([*TLINT_CHECK, str(directory), "--output-format", "json", *extra])
            if measurement.exit_code not in (0, 1):
                print(f"{label}: tlint check failed with exit code {measurement.exit_code}")
                return 2
            reports[label] = json.loads(measurement.stdout)
            rates[label] = size_mb / measurement.seconds
            parent = f"{measurement.parent_peak_rss_mib:.1f}" if measurement.parent_peak_rss_mib is not None else "?"
            print(
                f"{label:<16} wall {measurement.seconds:6.2f} s  {rates[label]:6.1f} MB/s  parent peak RSS {parent} MiB  "
                f"findings {reports[label]['summary']['findings']}"
            )
        same = len({json.dumps(report, sort_keys=True) for report in reports.values()}) == 1
        print(f"reports identical: {same}")
        per_worker = rates[f"Dask, {WORKERS} workers"] / WORKERS
        hours = PROJECTED_BYTES / 10**6 / (per_worker * PROJECTED_WORKERS) / 3600
        print(
            f"projected: 10,000 ranks x 100 MB on {PROJECTED_WORKERS} workers at {per_worker:.1f} MB/s each: {hours:.1f} h "
            "(start-up and the parent's run rules included in the measured rate)"
        )
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
