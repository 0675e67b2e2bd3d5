"""MB/s and peak RSS of ``tlint check`` on one file of each format, on one core.

    python benchmarks/bench_formats.py [--size-mb 5] [--format NAME ...] [--long-run]

Inputs, generated into a temporary directory:
- megatron-trace: the realistic single-rank trace of generate_trace.py;
- simai-workload: the workload AICB writes for a 32-layer model (tests/synth/simai_workload.py), with as
  many micro-batches as the size needs;
- neusight-tsv and optprime-log: the bundled sample (examples/) with its body repeated to the size
  (the repeats may draw findings; the figure is about reading speed);
- optprime-log with ``--long-run``: a valid log of a long training run grown from that sample
  (tests/synth/optprime_log.py: its set-up once, then as many steps of per-rank timing as the size needs).
The target: megatron-trace >= 80 MB/s (issue 13).  The 30 MB/s that issue 13 set the others on 20 MB files is
retired (issue 25): no user has such files (the largest real workload is 277 KB, real OptimusPrime logs
under 100 kB), so the others' rates are printed for comparison, with no target.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from generate_trace import MB, write_trace
from measure import ROOT, TLINT_CHECK, first_cpu, run_measured

sys.path.insert(0, str(ROOT))  # the workload generator lives in the checkout's test tree

from tests.synth.megatron_run import RunSpec
from tests.synth.optprime_log import write_long_run
from tests.synth.simai_workload import write_workload

TARGET_MB_PER_S = {"megatron-trace": 80.0}


def _simai(path: Path, size_mb: float) -> None:
    rows_per_micro_batch, row_bytes = 2 * 32 + 8, 70  # about: see workload_rows
    micro_batches = max(1, math.ceil(size_mb * MB / (rows_per_micro_batch * row_bytes)))
    write_workload(RunSpec(tp=2, pp=4, dp=2, micro_batches=micro_batches, layers=32, hidden=4096, seq=2048, vocab=50432), path)


def _repeated(sample: Path, header_lines: int) -> Callable[[Path, float], None]:
    """The sample's first ``header_lines`` once, then its remaining lines again and again to the size."""

    def write(path: Path, size_mb: float) -> None:
        lines = sample.read_text(encoding="utf-8").splitlines(keepends=True)
        head, body = "".join(lines[:header_lines]), "".join(lines[header_lines:])
        repeats = max(1, math.ceil((size_mb * MB - len(head)) / len(body.encode())))
        with open(path, "w", encoding="utf-8") as out:
            out.write(head)
            for _ in range(repeats):
                out.write(body)

    return write


WRITERS: dict[str, Callable[[Path, float], object]] = {
    "megatron-trace": write_trace,
    "simai-workload": _simai,
    "neusight-tsv": _repeated(ROOT / "examples" / "neusight-gpt2-large.tsv", header_lines=1),
    "optprime-log": _repeated(ROOT / "examples" / "optprime-log.txt", header_lines=0),
}


def main() -> int:
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    arguments.add_argument("--size-mb", type=float, default=5.0, help="size of each file, MB of 10^6 bytes (default 5)")
    arguments.add_argument("--format", action="append", choices=sorted(WRITERS), help="only these formats (default: all)")
    arguments.add_argument("--long-run", action="store_true", help="optprime-log: a long training run's log, not the sample repeated")
    args = arguments.parse_args()
    writers = WRITERS | ({"optprime-log": write_long_run} if args.long_run else {})
    failed = False
    with tempfile.TemporaryDirectory(prefix="tlint-formats-") as directory:
        for name in args.format or list(WRITERS):
            path = Path(directory) / f"{name}.txt"
            writers[name](path, args.size_mb)
            size_mb = path.stat().st_size / MB
            measurement = run_measured([*TLINT_CHECK, str(path), "--trace-format", name, "--output-format", "json"], cpu=first_cpu())
            if measurement.exit_code not in (0, 1):
                print(f"{name}: tlint check failed with exit code {measurement.exit_code}")
                failed = True
                continue
            findings = json.loads(measurement.stdout)["summary"]["findings"]
            rate = size_mb / measurement.seconds
            target = TARGET_MB_PER_S.get(name)
            verdict = f" (target >= {target:g}: {'met' if rate >= target else 'NOT met'})" if target is not None else ""
            print(
                f"{name:<15} {size_mb:7.1f} MB  {measurement.seconds:7.2f} s  {rate:7.2f} MB/s{verdict}  "
                f"peak RSS {measurement.peak_rss_mib:6.1f} MiB  findings {findings}"
            )
    return 2 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
