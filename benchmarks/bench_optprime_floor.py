"""The floor under any optprime-log check written in Python: how fast the least a check must do runs.

    python benchmarks/bench_optprime_floor.py [--size-mb 20]

A long training run's log (tests/synth/optprime_log.py, as ``bench_formats.py --long-run``) is three quarters
per-layer timing lines.  The least any check of it does per such line is to match it and test its numbers.
This measures, in this process, best of three (CPU seconds): reading the file; one ``findall`` of a regex for
the layer lines over the whole text (C speed, no record object, no line number, no other line kind); one
arithmetic test per layer line (TL211's, the cheapest rule).  With tlint's start-up (a check of the bundled
sample, measured as ``bench_formats.py`` measures a check), that gives the fastest rate a Python check of the
file could reach, to hold against the >= 30 MB/s target of issue 13.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

from generate_trace import MB
from measure import ROOT, TLINT_CHECK, best_cpu, first_cpu, run_measured

sys.path.insert(0, str(ROOT))  # the log generator lives in the checkout's test tree

from tests.synth.optprime_log import write_long_run

_LAYER_LINE = re.compile(r"^  layer\[([^\]\n]*)\]: total=(\d+\.\d+)ms, ops=(\d+), avg/op=(\d+\.\d+)ms$", re.M)
_TOLERANCE_MS = 0.0005  # TL211's (rules/tl211_layer_average_mismatch.py: a rule module is not importable from here under mypy)


def _off_average(rows: list[tuple[str, str, str, str]]) -> int:
    off = 0
    for _layer, total, ops, average in rows:
        count = int(ops)
        if count and abs(float(total) / count - float(average)) > _TOLERANCE_MS:
            off += 1
    return off


def main() -> int:
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    arguments.add_argument("--size-mb", type=float, default=20.0, help="size of the log, MB of 10^6 bytes (default 20)")
    args = arguments.parse_args()
    with tempfile.TemporaryDirectory(prefix="tlint-floor-") as directory:
        path = Path(directory) / "optprime-log.txt"
        write_long_run(path, args.size_mb)
        size_mb = path.stat().st_size / MB
        text = path.read_text(encoding="utf-8")
        rows = _LAYER_LINE.findall(text)
        reading = best_cpu(lambda: path.read_text(encoding="utf-8"))
        matching = best_cpu(lambda: _LAYER_LINE.findall(text))
        testing = best_cpu(lambda: _off_average(rows))
    startup = run_measured([*TLINT_CHECK, "-q", str(ROOT / "examples" / "optprime-log.txt")], cpu=first_cpu())
    floor = reading + matching + testing
    print(f"optprime-log {size_mb:.1f} MB, {len(rows):,} layer lines: read {reading:.3f} s, match {matching:.3f} s, test {testing:.3f} s (CPU)")
    print(f"  the floor alone: {floor:.3f} s = {size_mb / floor:.1f} MB/s")
    print(f"  with tlint's start-up ({startup.cpu_seconds:.3f} s CPU, a check of the bundled sample): {size_mb / (floor + startup.cpu_seconds):.1f} MB/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
