"""Time ``tlint check`` on one large megatron-trace file, on one core, against the performance targets.

    python benchmarks/bench_check.py [--size-mb 200] [--keep]
    python benchmarks/bench_check.py --rss-scaling [--keep]

The file is benchmarks/data/trace_{size}mb.txt: reused when an earlier run kept it (--keep), else
generated and removed afterwards.  Exit status: 0 when the targets are met (with --rss-scaling: the
RSS target at both sizes, and flat RSS), 1 when one is missed, 2 when the check itself failed.
"""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from generate_trace import MB, write_trace
from measure import TLINT_CHECK, Measurement, first_cpu, generated_input, run_measured

TARGET_MB_PER_S = 80.0  # issue 13: megatron-trace, every rule, one core
TARGET_PEAK_RSS_MIB = 250.0
SCALING_SIZES_MB = (50.0, 200.0)
FLAT_RSS_GROWTH = 0.10  # what "RSS does not grow with size" tolerates between the two sizes


@dataclass
class FileRun:
    path: Path
    size_mb: float
    measurement: Measurement

    @property
    def mb_per_s(self) -> float:
        return self.size_mb / self.measurement.seconds


def check_file(size_mb: float, stack: ExitStack, keep: bool) -> FileRun:
    path = stack.enter_context(generated_input(f"trace_{size_mb:g}mb.txt", lambda out: write_trace(out, size_mb), keep))
    measurement = run_measured([*TLINT_CHECK, str(path), "--output-format", "json"], cpu=first_cpu())
    if measurement.exit_code not in (0, 1):
        print(f"tlint check failed with exit code {measurement.exit_code} on {path}", file=sys.stderr)
        sys.exit(2)
    return FileRun(path, path.stat().st_size / MB, measurement)


def verdict(met: bool) -> str:
    return "met" if met else "NOT met"


def report(run: FileRun) -> bool:
    """Prints one file's figures against the targets; True when both are met."""
    summary = json.loads(run.measurement.stdout)["summary"]
    fast = run.mb_per_s >= TARGET_MB_PER_S
    lean = run.measurement.peak_rss_mib <= TARGET_PEAK_RSS_MIB
    print(f"file        {run.path}")
    print(f"size        {run.size_mb:.1f} MB")
    print(f"wall time   {run.measurement.seconds:.2f} s (one core, start-up included)")
    print(f"throughput  {run.mb_per_s:.1f} MB/s    target >= {TARGET_MB_PER_S:g} MB/s: {verdict(fast)}")
    print(f"peak RSS    {run.measurement.peak_rss_mib:.1f} MiB   target <= {TARGET_PEAK_RSS_MIB:g} MiB: {verdict(lean)}")
    print(f"findings    {summary['findings']} (files checked: {summary['checked']})")
    return fast and lean


def main() -> int:
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    arguments.add_argument("--size-mb", type=float, default=200.0, help="size of the trace, in MB of 10^6 bytes (default 200)")
    arguments.add_argument("--keep", action="store_true", help="keep generated files in benchmarks/data/ for the next run")
    arguments.add_argument(
        "--rss-scaling", action="store_true", help=f"check {' and '.join(f'{s:g}' for s in SCALING_SIZES_MB)} MB files and compare their peak RSS"
    )
    args = arguments.parse_args()
    with ExitStack() as stack:
        if not args.rss_scaling:
            return 0 if report(check_file(args.size_mb, stack, args.keep)) else 1
        small_file, large_file = (check_file(size, stack, args.keep) for size in SCALING_SIZES_MB)
        report(small_file)
        print()
        report(large_file)
        small_rss, large_rss = small_file.measurement.peak_rss_mib, large_file.measurement.peak_rss_mib
        growth = large_rss / small_rss - 1
        flat = growth <= FLAT_RSS_GROWTH
        print(
            f"\nRSS {small_file.size_mb:.0f} MB -> {large_file.size_mb:.0f} MB: {small_rss:.1f} -> {large_rss:.1f} MiB "
            f"({growth:+.1%}); flat within {FLAT_RSS_GROWTH:.0%}: {verdict(flat)}"
        )
        return 0 if flat and large_rss <= TARGET_PEAK_RSS_MIB and small_rss <= TARGET_PEAK_RSS_MIB else 1


if __name__ == "__main__":
    sys.exit(main())
