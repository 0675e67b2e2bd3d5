"""Chakra runs (or single traces) as diff profiles (docs/formats/chakra-et.md, "tlint diff").

* config ``run``: NPUs (files) and the schema the traces state;
* structure ``TYPE nodes``: node counts per node type over the run, and per NPU (the most any NPU has);
* comm ``group G TYPE``: bytes and calls of each process group's collectives (``default`` for all NPUs),
  ``p2p COMM_SEND_NODE``/``COMM_RECV_NODE`` for point-to-point, summed over the NPUs;
* timing ``compute``: each NPU's summed COMP ``duration_micros``, in ms (one sample per NPU).

Each file is read by the differ's ``read_summary`` (the summary, no rules).
"""

from __future__ import annotations

from collections import Counter
from typing import cast

from lint.formats.chakra_et.records import collective_name
from lint.formats.chakra_et.schema import NODE_TYPES
from lint.formats.chakra_et.summary import RankSummary
from lint.profile.profile import Profile, Timing, put
from lint.profile.side import Reading
from lint.read.source import Source

NAME = "chakra-et"


def load(path: str, sources: list[Source], reading: Reading) -> Profile:
    summaries: list[RankSummary] = []
    for source in sorted(sources, key=lambda found: found.display):
        read, _ = reading.read_summary(source, NAME)  # a file's syntax errors are its side's check's to report
        summaries.append(cast(RankSummary, read))  # the format's own summary
    profile = Profile(format=NAME, path=path, files=len(summaries), units={"time": "ms", "comm": "bytes"})
    schemas = sorted({summary.stated_schema for summary in summaries if summary.stated_schema})
    put(profile.config, "run", npus=len(summaries), schema=", ".join(schemas) or None)
    totals: Counter[int] = Counter()
    most: Counter[int] = Counter()
    comm_bytes: Counter[tuple[str, int | None]] = Counter()
    calls: Counter[tuple[str, int | None]] = Counter()
    for summary in summaries:
        totals.update(summary.node_types)
        for kind, count in summary.node_types.items():
            most[kind] = max(most[kind], count)
        comm_bytes.update(summary.comm_bytes)
        for collective in summary.collectives:
            calls[(collective.group, collective.comm_type)] += 1
        calls[("p2p", 5)] += len(summary.sends)
        calls[("p2p", 6)] += len(summary.recvs)
    for kind in sorted(totals):
        put(profile.structure, f"{NODE_TYPES.get(kind, f'type {kind}')} nodes", count=totals[kind], per_npu=most[kind])
    for group, comm_type in sorted(comm_bytes, key=repr):
        name = NODE_TYPES[comm_type or 0] if group == "p2p" else collective_name(comm_type)
        shown = "p2p" if group == "p2p" else f"group {group or 'default'}"
        put(profile.comm, f"{shown} {name}", bytes=comm_bytes[(group, comm_type)], calls=calls[(group, comm_type)])
    profile.total_bytes = float(sum(comm_bytes.values()))
    profile.timing["compute"] = Timing.of(summary.compute_micros / 1000 for summary in summaries)
    profile.step_key = "compute"
    return profile
