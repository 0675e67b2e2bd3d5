"""Write a generated multi-rank Megatron run, one megatron-trace file per rank (default: 256 ranks).

python benchmarks/generate_run.py OUT_DIR [--tp 4] [--pp 8] [--dp 8] [--micro-batches 16] [--iterations 2]
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the generator lives in the checkout's test tree

from tests.synth.megatron_run import RunSpec
from tests.synth.megatron_run import write_run as write_run  # the benchmarks write their runs through this module

# A 7B-class GPT (32 layers, hidden 4096) in bfloat16; spec_from gives it the layout asked for.
MODEL = RunSpec(layers=32, hidden=4096, seq=2048, micro_batch_size=1, vocab=50432, dtype="torch.bfloat16")
LAYOUT_DEFAULTS = {"tp": 4, "pp": 8, "dp": 8, "micro_batches": 16, "iterations": 2}


def add_layout_arguments(arguments: argparse.ArgumentParser) -> None:
    for name, default in LAYOUT_DEFAULTS.items():
        arguments.add_argument(f"--{name.replace('_', '-')}", type=int, default=default, help=f"default {default}")


def spec_from(args: argparse.Namespace) -> RunSpec:
    return replace(MODEL, **{name: getattr(args, name) for name in LAYOUT_DEFAULTS})


def run_name(spec: RunSpec) -> str:
    return f"run_tp{spec.tp}_pp{spec.pp}_dp{spec.dp}_mb{spec.micro_batches}_it{spec.iterations}"


def main() -> None:
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    arguments.add_argument("out", type=Path, help="the directory to write the rank files to")
    add_layout_arguments(arguments)
    args = arguments.parse_args()
    paths = write_run(spec_from(args), args.out)
    print(f"{len(paths)} rank files, {sum(p.stat().st_size for p in paths) / 10**6:.1f} MB")


if __name__ == "__main__":
    main()
