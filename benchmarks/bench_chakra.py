"""MB/s, nodes/s and peak RSS of ``tlint check`` on a generated Chakra run (default: 8 NPUs, 1 GB in all).

    python benchmarks/bench_chakra.py [--size-mb 1000] [--npus 8] [--jobs 1 2] [--keep]

Each NPU's trace is what a data-parallel training run converted by chakra's Text converter looks like, made
realistic for the reader: per layer a forward and two backward COMP nodes (durations), a weight-gradient
ALL_REDUCE in a process group, each depending on the one before; the files are valid (no finding), written by
the test writer's encoder (tests/synth/chakra_trace.py) with the ids and dependencies changed per node.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the writer lives in the checkout's test tree

from measure import TLINT_CHECK, generated_input, run_measured

from tests.synth.chakra_trace import metadata, node, varint


def _records(layer: int, first_id: int) -> list[bytes]:
    """The four nodes of one layer of one pass, ids from ``first_id``, each after the one before."""
    name = f"layer_{layer % 54}"
    specs = [
        {"id": first_id, "name": f"COMP_NODE_{name}_FWD", "duration": 3456 + layer % 7, "data": [first_id - 1] if first_id else []},
        {"id": first_id + 1, "name": f"COMP_NODE_{name}_BWD_WG", "duration": 7488, "data": [first_id]},
        {
            "id": first_id + 2,
            "name": f"COMM_COLL_NODE_{name}_ALLREDUCE",
            "type": "COMM_COLL_NODE",
            "data": [first_id + 1],
            "attrs": {"is_cpu_op": False, "comm_type": 0, "comm_size": 65536 * (1 + layer % 9), "pg_name": "1"},
        },
        {"id": first_id + 3, "name": f"COMP_NODE_{name}_BWD_IG", "duration": 3648, "data": [first_id + 2]},
    ]
    return [node(spec) for spec in specs]


def write_run(directory: Path, size_mb: float, npus: int) -> int:
    """Writes the run; returns the nodes per file."""
    directory.mkdir(parents=True)
    per_file = size_mb * 10**6 / npus
    (directory / "comm_group.json").write_text(json.dumps({"1": list(range(npus))}), encoding="utf-8")
    nodes = 0
    for npu in range(npus):
        with open(directory / f"dp.{npu}.et", "wb") as out:
            head = metadata({"version": "0.0.4"})
            out.write(varint(len(head)) + head)
            written = 0
            layer = 0
            chunk: list[bytes] = []
            while written < per_file:
                for record in _records(layer, 4 * layer):
                    chunk.append(varint(len(record)) + record)
                    written += len(chunk[-1])
                layer += 1
                if len(chunk) >= 4096:
                    out.write(b"".join(chunk))
                    chunk.clear()
            out.write(b"".join(chunk))
            nodes = 4 * layer
    return nodes


def main() -> int:
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    arguments.add_argument("--size-mb", type=float, default=1000.0, help="the run's size in MB (10^6 bytes), all files together")
    arguments.add_argument("--npus", type=int, default=8)
    arguments.add_argument("--jobs", type=int, nargs="+", default=[1, 2], help="the --jobs values to time")
    arguments.add_argument("--keep", action="store_true", help="keep the generated run in benchmarks/data/ for the next run")
    args = arguments.parse_args()
    name = f"chakra_{args.npus}npus_{args.size_mb:g}mb"
    nodes_per_file = 0

    def make(out: Path) -> None:
        nonlocal nodes_per_file
        nodes_per_file = write_run(out, args.size_mb, args.npus)

    with generated_input(name, make, args.keep) as directory:
        files = sorted(directory.glob("*.et"))
        size = sum(path.stat().st_size for path in files)
        if not nodes_per_file:  # a kept run: count its nodes from the size of one layer's records
            layer = sum(len(varint(len(record))) + len(record) for record in _records(1, 4))
            nodes_per_file = 4 * round(files[0].stat().st_size / layer)
        nodes = nodes_per_file * len(files)
        print(f"run      {directory} ({len(files)} files, {size / 10**6:.0f} MB, {nodes:,} nodes)")
        for jobs in args.jobs:
            measurement = run_measured([*TLINT_CHECK, str(directory), "--output-format", "json", "--jobs", str(jobs)])
            if measurement.exit_code not in (0, 1):
                print(f"tlint check failed with exit code {measurement.exit_code}")
                return 2
            findings = len(json.loads(measurement.stdout)["findings"])
            print(
                f"--jobs {jobs}  wall {measurement.seconds:7.1f} s  {size / 10**6 / measurement.seconds:6.1f} MB/s  "
                f"{nodes / measurement.seconds:10,.0f} nodes/s  peak RSS {measurement.peak_rss_mib:7.1f} MiB  "
                f"CPU {measurement.cpu_seconds:7.1f} s  findings {findings}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
