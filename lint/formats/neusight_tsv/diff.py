"""``neusight-tsv`` tables as diff profiles (docs/formats/neusight-tsv.md).

* knobs layers (``…h_I_…`` names) and hidden (H from the layernorm gradient rows, 2·H elements); structure
  ``rows``: how many (bookkeeping);
* structure ``row NAME#K`` (names are unique in practice; K counts repeats) and its comm type per phase;
* comm ``row NAME#K`` bytes per phase and ``GROUP KIND`` totals: ``ALLREDUCE`` is the TP activation
  all-reduce, ``ALLREDUCE_ASYNC`` the DP gradient all-reduce, ``SENDRECV`` pipeline p2p.  Sizes are
  element counts in the file; bytes assume float32 (4 bytes), as the format's consumers do;
* timing ``OPKIND PHASE compute`` over the rows of one op kind (the name without its numbers:
  ``getitem_3`` and ``getitem_4`` are both ``getitem``), and ``table compute``, the sum (one sample).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from lint.formats.neusight_tsv.records import LayerRecord
from lint.formats.neusight_tsv.summary import NeusightTable
from lint.layout import Knobs
from lint.profile.layers import LayerProfileBuilder
from lint.profile.profile import Profile, Timing, put, typical_message
from lint.profile.side import Reading, single_source
from lint.read.source import Source

NAME = "neusight-tsv"
ELEMENT_BYTES = 4
PHASES = ("forward", "backward", "weight_grad")
GROUP_KIND = {"ALLREDUCE": "tp allreduce", "ALLREDUCE_ASYNC": "dp allreduce", "SENDRECV": "pp sendrecv"}
_LAYER = re.compile(r"(?:^|_)h_(\d+)_")
_NUMBERS = re.compile(r"_\d+")
PLOTTED = 12


def load(path: str, sources: list[Source], reading: Reading) -> Profile:
    source = single_source(path, sources, NAME)
    found = reading.records(source, NAME)
    table = NeusightTable.from_records(found)
    units = {"time": "ms", "comm": f"elements × {ELEMENT_BYTES} bytes (float32 assumed)"}
    profile = Profile(format=NAME, path=path, files=1, units=units)
    layers = {int(match.group(1)) for row in table.rows if (match := _LAYER.search(row.name))}
    profile.knobs = Knobs(layers=len(layers) or None, hidden=_hidden(table.rows)).values()
    for key, known in profile.knobs.items():
        if known is not None:
            profile.config[key] = {"": known}
    put(profile.structure, "rows", count=len(table.rows))
    totals: Counter[str] = Counter()
    calls: Counter[str] = Counter()
    messages: dict[str, Counter[int]] = defaultdict(Counter)  # size -> calls
    compute: dict[str, list[float]] = defaultdict(list)
    seen: Counter[str] = Counter()
    for row in table.rows:
        key = f"row {row.name}#{seen[row.name]}"
        seen[row.name] += 1
        put(profile.structure, key, **{f"{phase}_comm": str(getattr(row, f"{phase}_comm_type")) for phase in PHASES})
        for phase, comm_type, size in _comms(row):
            put(profile.comm, key, **{f"{phase}_bytes": size})
            name = GROUP_KIND[comm_type]
            totals[name] += size
            calls[name] += 1
            messages[name][size] += 1
        kind = _NUMBERS.sub("", row.name)
        for phase in PHASES:
            compute[f"{kind} {phase} compute"].append(getattr(row, f"{phase}_compute_time"))
    for name in sorted(calls):
        put(profile.comm, name, bytes=totals[name], calls=calls[name], message_bytes=typical_message(messages[name]))
    profile.total_bytes = float(sum(totals.values()))
    compute = {key: samples for key, samples in compute.items() if any(samples)}
    profile.timing = {key: Timing.of(samples, per_step=len(samples)) for key, samples in compute.items()}
    profile.timing["table compute"] = Timing.of([sum(sum(samples) for samples in compute.values())])
    profile.step_key = "table compute"
    profile.plot_keys = sorted(compute, key=lambda key: -sum(compute[key]))[:PLOTTED]
    profile.common = _layers(table).build(NAME, path, 1, units)
    return profile


def _comms(row: LayerRecord) -> list[tuple[str, str, int]]:
    """(phase, comm type, bytes) of each real communication of ``row``."""
    found = []
    for phase in PHASES:
        comm_type = getattr(row, f"{phase}_comm_type")
        if comm_type is not None:
            found.append((phase, comm_type, getattr(row, f"{phase}_comm_size") * ELEMENT_BYTES))
    return found


def _hidden(rows: list[LayerRecord]) -> int | None:
    """H from the layernorm gradient rows, which all-reduce weight and bias: 2·H elements."""
    sizes = Counter(row.backward_comm_size // 2 for row in rows if row.grad_of and "ln" in row.grad_of and row.backward_comm_size)
    return sizes.most_common(1)[0][0] if sizes else None


def _layers(table: NeusightTable) -> LayerProfileBuilder:
    builder = LayerProfileBuilder()
    compute: dict[tuple[int, str], float] = defaultdict(float)
    for row in table.rows:
        match = _LAYER.search(row.name)
        if match is None or row.grad_of is not None:  # gradient rows are DP sync, not the layer's work
            continue
        layer = int(match.group(1))
        if (layer, "fwd") not in compute:
            builder.layer_pass(layer)
        compute[layer, "fwd"] += row.forward_compute_time
        compute[layer, "bwd"] += row.backward_compute_time + row.weight_grad_compute_time
        for phase, comm_type, size in _comms(row):
            group, kind = GROUP_KIND[comm_type].split()
            builder.collective(layer, "fwd" if phase == "forward" else "bwd", group, kind, size)
    for (layer, phase), ms in compute.items():
        builder.compute(layer, phase, ms)
    return builder
