"""Write one large, realistic single-rank megatron-trace file, streamed so that memory stays flat.

    python benchmarks/generate_trace.py OUT [--size-mb 200]

The rank is the last pipeline stage of a run shaped like seed 000 (tp 2, pp 4, hidden 5120, seq 2048,
micro-batch 2, 10 layers per stage) with 32 micro-batches per iteration: its forward steps carry 23
sub-operations, its backward steps 21, and its loss_func and dp_allreduce descriptions contain commas.
Whole iterations are written until the file reaches the size.
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the generator lives in the checkout's test tree

from lint.formats.megatron_trace.parser import Parser
from tests.narrow import typed_parser
from tests.synth.megatron_run import RunSpec, rank_records, write_records

MB = 10**6
TRACE_SPEC = RunSpec(tp=2, pp=4, dp=1, micro_batches=32, layers=40, hidden=5120, seq=2048, micro_batch_size=2, vocab=50432)
TRACE_RANK = 7


def write_trace(path: Path, size_mb: float) -> int:
    """Writes at least ``size_mb`` MB (10^6 bytes) of whole iterations to ``path``; returns its size in bytes."""
    render = typed_parser("megatron-trace", Parser).render
    iteration_bytes = sum(len(render(record)) + 1 for record in rank_records(TRACE_SPEC, TRACE_RANK))
    iterations = max(1, math.ceil(size_mb * MB / iteration_bytes))
    write_records(path, rank_records(replace(TRACE_SPEC, iterations=iterations), TRACE_RANK))
    return path.stat().st_size


def main() -> None:
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    arguments.add_argument("out", type=Path, help="the trace file to write")
    arguments.add_argument("--size-mb", type=float, default=200.0, help="size to reach, in MB of 10^6 bytes (default 200)")
    args = arguments.parse_args()
    size = write_trace(args.out, args.size_mb)
    print(f"{args.out}: {size / MB:.1f} MB")


if __name__ == "__main__":
    main()
