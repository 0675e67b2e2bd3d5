"""The practical floor under a megatron-trace check written in Python, against tlint's own rate.

    python benchmarks/bench_megatron_floor.py [--size-mb 200] [--keep]

Issue 13 measured it as "a strict regex with typed tuples": per line, the full match of the record's regex
derived from the grammar (the layout of the bench's trace), then the sub-operation list split by the strict
sub-operation regex into (function, duration, timestamp) tuples with the times as floats: no record object,
no memo, no rule.  On the issue's machine that ran at 89.7 MB/s against tlint's 47.8, and the >= 80 MB/s
target sits between them; machines differ, so this prints both rates on this one (CPU seconds, best of three
for the floor, of one check pinned to one core for tlint), and tlint's rate as a share of the floor.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from generate_trace import MB, write_trace
from measure import ROOT, TLINT_CHECK, best_cpu, first_cpu, generated_input, run_measured

sys.path.insert(0, str(ROOT))

from lint.parse.grammar import Grammar

TARGET_MB_PER_S = 80.0
ISSUE_FLOOR, ISSUE_TLINT = 89.7, 47.8  # MB/s on the machine issue 13 was measured on


def _typed_records(path: Path) -> int:
    """Reads ``path`` the least a check must: every line matched, every sub-operation split and typed."""
    grammar = Grammar("megatron-trace", start=["record"])
    # The bench's trace is of the V1 layout (tests/synth/megatron_run.py); its list is checked below.
    record = grammar.derive("record_v1", {"sub_operations"}, loose={"sub_operations": r"\[(?s:.*)\]"}).regex
    sub_op = re.compile(grammar.derive("sub_op", {"trace_src_func", "sub_duration", "sub_timestamp"}).regex.pattern)
    groups = sub_op.groupindex
    func, duration, timestamp = groups["trace_src_func"], groups["sub_duration"], groups["sub_timestamp"]
    sub_operations = 0
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            match = record.fullmatch(line.rstrip("\n"))
            if match is None:
                raise SystemExit(f"{path}: a line the V1 record regex rejects: {line[:80]!r}")
            typed = [(found.group(func), float(found.group(duration)), float(found.group(timestamp))) for found in sub_op.finditer(match["sub_operations"])]
            sub_operations += len(typed)
    return sub_operations


def main() -> int:
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    arguments.add_argument("--size-mb", type=float, default=200.0, help="size of the trace, MB of 10^6 bytes (default 200)")
    arguments.add_argument("--keep", action="store_true", help="keep the generated trace in benchmarks/data/ for the next run")
    args = arguments.parse_args()
    with generated_input(f"trace_{args.size_mb:g}mb.txt", lambda out: write_trace(out, args.size_mb), args.keep) as path:
        size_mb = path.stat().st_size / MB
        sub_operations = _typed_records(path)
        floor = best_cpu(lambda: _typed_records(path))
        check = run_measured([*TLINT_CHECK, "-q", str(path)], cpu=first_cpu())
    floor_rate, tlint_rate = size_mb / floor, size_mb / check.cpu_seconds
    print(f"megatron-trace {size_mb:.1f} MB, {sub_operations:,} sub-operations (CPU seconds)")
    print(f"  floor (strict regex, typed tuples): {floor:.2f} s = {floor_rate:.1f} MB/s")
    print(f"  tlint check, all rules, start-up included: {check.cpu_seconds:.2f} s = {tlint_rate:.1f} MB/s, {tlint_rate / floor_rate:.0%} of the floor")
    print(
        f"  on issue 13's machine: floor {ISSUE_FLOOR} MB/s, tlint {ISSUE_TLINT} MB/s ({ISSUE_TLINT / ISSUE_FLOOR:.0%}); the target {TARGET_MB_PER_S:g} MB/s is {TARGET_MB_PER_S / ISSUE_FLOOR:.0%} of that floor"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
