"""``simai-workload`` files as diff profiles (docs/formats/simai-workload.md).

* knobs: tp, pp, ep from the header, dp = all_gpus / (tp·pp) as SimAI computes it; for a workload of
  AICB's generators every other knob its rows and header tell (:func:`lint.layout.aicb_knobs`): seq·mbs
  from the cross-entropy all-reduce, hidden from the TP activation (or pp_comm), sp from column- and
  row-parallel rows, recompute from the doubled attention size, layers = vpp·pp, gbs = ga·mbs·dp,
  experts from a MoE layer's all-gather; mbs and seq each from AICB's file name where it states them;
* config: the other settings (world, micro-batches, vocab, topk, seq·mbs) and ``header``: the kind and
  the keys no knob or comm item carries, as written (checkpoints, unknown keys); ``pp_comm`` is the comm
  item ``pp p2p`` (message bytes);
* structure ``rows``: declared, present and the micro-batch copies (bookkeeping, not configuration);
  ``row NAME#K``: the K-th row of that name (AICB repeats names per layer) and its comm
  type per phase: a row whose collective became ``NONE`` lost it.  AICB writes the rows of one
  micro-batch once per micro-batch (``ga`` copies): the rows are keyed within one copy, and the number of
  copies is counted (``rows copies``), so that a run with fewer micro-batches has no "removed rows";
* comm ``row NAME#K`` bytes per phase, and ``GROUP KIND`` per workload pass: bytes, calls, the typical
  message (the size most calls move: a median would mix the kind's unrelated rows).  The group is what SimAI picks: no suffix is TP (fwd, ig) or DP (wg), ``_EP``, ``_DP_EP``;
* timing ``NAME PHASE compute``: one sample per row of that name (ns in the file, ms here), and
  ``workload compute``, the sum of every compute time (a single sample: its significance cannot be
  judged), where any time was measured.  AICB's 1 ns placeholder ("not measured") and the 0 it writes for rows
  without compute (loss, optimizer, inference's backward columns) are no samples: a name with nothing but those
  has no timing, and a workload with nothing but those (the plain path) no total.

Per-layer (common) profile: a row named ``attention*`` opens a transformer layer, ``mlp*``/``moe*``
rows continue it and ``embedding_layer`` starts the next pass at layer 0.  AICB writes a compute time
of 1 ns where it measured none: such times count as unknown there.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

from lint.formats.simai_workload.records import CHECKPOINT_KEYS, SETTING_FIELDS, Comm, Header, LayerRow
from lint.formats.simai_workload.summary import Workload
from lint.layout import AICB_PATHS, AicbHeader, AicbRows, Knob, Knobs, Sizes, aicb_knobs, aicb_name_settings, simai_sizes, whole
from lint.profile.layers import LayerProfileBuilder
from lint.profile.profile import Profile, Scalar, Timing, put, typical_message
from lint.profile.side import Reading, single_source
from lint.read.source import Source

NAME = "simai-workload"
NS_PER_MS = 1_000_000
PLACEHOLDER_NS = 1  # AICB's "no measured time"
PLOTTED = 12


def load(path: str, sources: list[Source], reading: Reading) -> Profile:
    source = single_source(path, sources, NAME)
    found = reading.records(source, NAME)
    workload = Workload.from_records(found)
    units = {"time": "ns (SimAI), shown in ms", "comm": "bytes as written"}
    profile = Profile(format=NAME, path=path, files=1, units=units, literal_config=["header"])
    if workload.header is not None:
        _config(workload, Path(source.display).name, profile)
    micro_batches = workload.header.read("ga") if workload.header is not None else None
    copies = _micro_batch_copies(workload.rows, micro_batches or 1)
    put(profile.structure, "rows", declared=workload.declared_count, present=len(workload.rows), copies=copies[2] if copies else None)
    totals: Counter[str] = Counter()
    calls: Counter[str] = Counter()
    messages: dict[str, Counter[int]] = defaultdict(Counter)  # size -> calls
    compute: dict[str, list[float]] = defaultdict(list)
    for key, row in _keyed(workload.rows, copies):
        if key is not None:
            put(profile.structure, key, **{f"{comm.phase}_comm": comm.type for comm in row.comms()})
            put(profile.comm, key, **{f"{comm.phase}_bytes": comm.size for comm in row.comms() if comm.family})
        for comm in row.comms():
            if comm.family:
                name = f"{group(comm)} {comm.family.lower()}"
                totals[name] += comm.size
                calls[name] += 1
                messages[name][comm.size] += 1
        for phase in ("fwd", "ig", "wg"):
            ns = getattr(row, f"{phase}_compute")
            if ns > PLACEHOLDER_NS:  # 1 ns is AICB's "not measured", 0 its "no compute": no sample, nothing to plot
                compute[f"{row.name} {phase} compute"].append(ns / NS_PER_MS)
    for name in sorted(calls):
        put(profile.comm, name, bytes_per_pass=totals[name], calls_per_pass=calls[name], message_bytes=typical_message(messages[name]))
    if workload.header is not None and workload.header.pp_comm is not None:  # the pipeline's p2p message, as SimAI reads it
        put(profile.comm, "pp p2p", message_bytes=workload.header.read("pp_comm"))
    profile.total_bytes = float(sum(totals.values()))
    profile.timing = {key: Timing.of(samples, per_step=len(samples)) for key, samples in compute.items()}
    if compute:  # a workload of 1 ns placeholders only (AICB's plain path) measured nothing: no total, not 0 ms
        profile.timing["workload compute"] = Timing.of([sum(sum(samples) for samples in compute.values())])
        profile.step_key = "workload compute"
    busiest = sorted(compute, key=lambda key: -sum(compute[key]))[:PLOTTED]
    profile.plot_keys = [key for key in busiest if sum(compute[key])]
    profile.common = _layers(workload).build(NAME, path, 1, units)
    return profile


def _keyed(rows: list[LayerRow], copies: tuple[int, int, int] | None) -> list[tuple[str | None, LayerRow]]:
    """Rows by identity: name and occurrence of that name; the rows of the second and later micro-batch
    copies have none (they repeat the first copy's)."""
    start, period, count = copies or (0, 0, 1)
    seen: Counter[str] = Counter()
    keyed: list[tuple[str | None, LayerRow]] = []
    for index, row in enumerate(rows):
        if start + period <= index < start + period * count:
            keyed.append((None, row))
            continue
        keyed.append((f"row {row.name}#{seen[row.name]}", row))
        seen[row.name] += 1
    return keyed


def _micro_batch_copies(rows: list[LayerRow], copies: int) -> tuple[int, int, int] | None:
    """(first row, rows per copy, copies) of the block AICB repeats once per micro-batch, or None.

    The header's ``ga`` (micro-batches per iteration) says how many copies there are: a model's
    layers repeat too, so the repetition alone cannot tell them apart.  Rows are alike when their names
    and collectives are (compute times vary from copy to copy); every row that repeats must do so a
    multiple of ``copies`` times, and those rows must form one contiguous run of identical blocks.
    """
    signatures = [(row.name, row.comms()) for row in rows]
    counts = Counter(signatures)
    if copies < 2 or any(n % copies for n in counts.values() if n > 1) or not any(n > 1 for n in counts.values()):
        return None
    inside = [index for index, signature in enumerate(signatures) if counts[signature] > 1]  # each a multiple of copies, as checked above
    start, period = inside[0], len(inside) // copies
    if inside != list(range(start, start + len(inside))):
        return None
    block = signatures[start : start + period]
    if any(signatures[start + offset] != block[offset % period] for offset in range(len(inside))):
        return None
    return start, period, copies


def _config(workload: Workload, name: str, profile: Profile) -> None:
    """The knobs, the other settings, and the header's keys that no knob carries, as written."""
    header = workload.header
    assert header is not None
    written: dict[str, Scalar] = {"kind": header.parallelism}
    for key in header.key_order:
        if key in SETTING_FIELDS:
            if SETTING_FIELDS[key] not in AS_KNOBS:
                written[key] = getattr(header, SETTING_FIELDS[key])
        elif key in CHECKPOINT_KEYS:
            written[key] = " ".join(map(str, getattr(header, key)))
        else:
            written[key] = header.unknown[key]
    profile.config["header"] = written
    sizes = _sizes(header)
    knobs = Knobs(tp=sizes.tp, pp=sizes.pp, dp=sizes.dp, ep=sizes.ep)
    settings: dict[str, Knob] = {"world": sizes.world}
    rows = aicb_rows(workload)
    if rows is not None:
        numbers = AicbHeader(sizes.tp, sizes.pp, sizes.ep, header.read("vpp"), header.read("ga"), sizes.world, header.read("pp_comm"))
        knobs, settings = aicb_knobs(numbers, rows, aicb_name_settings(name, numbers))
        settings["seq·mbs"] = whole(rows.tokens, 4)
        profile.mode = AICB_PATHS[rows.path]
        profile.mode_sensitive = MODE_SENSITIVE
        profile.stages = 1 if rows.path != "inference" else None  # the training generator writes one pipeline stage
    profile.knobs = knobs.values()
    for key, known in [*knobs.values().items(), *settings.items()]:
        if known is not None:
            profile.config[key] = {"": known}


# The header keys a knob or a setting carries: compared as those (model_parallel_NPU_group as tp, vpp, …).
AS_KNOBS = frozenset({"tp", "ep", "pp", "vpp", "ga", "all_gpus", "pp_comm"})
# What differs between AICB's paths by the path alone (SimAI_training_workload_generator.py): the AIOB path
# writes grad_gather, grad_param_comm, grad_param_compute and embedding_grads instead of grad_norm, no
# embedding_norm, no input-gradient collective on dense layer rows (NONE, and a column row's reduce-scatter
# instead), the embedding's all-reduce where the plain path's sequence parallelism writes NONE, measured
# compute times instead of 1 ns; the totals per collective follow.
MODE_SENSITIVE = [
    r"^structure row (grad_\w+|embedding_grads|embedding_norm|layernorm)#",
    r"^structure row embedding_layer#[\d,-]+ fwd comm$",
    r"^structure row \w+#[\d,-]+ (ig|wg) comm$",
    r"^structure rows ",
    r"^comm row \w+#[\d,-]+ (ig|wg) bytes$",
    r"^comm row (grad_\w+|embedding_grads|embedding_norm|layernorm)#",
    r"^comm row embedding_layer#[\d,-]+ (fwd bytes)?$",
    r"^comm (tp|dp|ep|dp_ep) \w+ ",
    r"^timing ",
]


def aicb_rows(workload: Workload) -> AicbRows | None:
    """What the rows of a workload of AICB's generators say of its configuration (:class:`~lint.layout.AicbRows`);
    None for a workload of another writer, or of an AICB too old to tell which path wrote it."""
    header = workload.header
    if header is None or not header.from_aicb or not workload.rows:
        return None
    names = {row.name for row in workload.rows}
    if header.unknown.get("mode") == "1":
        path = "inference"
    elif "grad_norm" in names:
        path = "plain"
    elif "grad_gather" in names:
        path = "aiob"
    else:
        return None

    def forward(*wanted: str, kind: str | None = None) -> int | None:
        """The forward size of the first row of these names (and comm type) that moves bytes."""
        return next((row.fwd_comm_size for row in workload.rows if row.name in wanted and row.fwd_comm_size > 0 and kind in (None, row.fwd_comm_type)), None)

    return AicbRows(
        path=path,
        sp=bool(names & {"attention_column", "attention_row", "mlp_column", "mlp_row"}),
        moe="mlp_moelayer" in names,
        tokens=forward("cross_entropy1", "cross_entropy2", "cross_entropy3"),
        embedding=forward("embedding_layer"),
        mlp=forward("mlp_layer", "mlp_row", "mlp_column"),
        attention=forward("attention_layer", "attention_row", "attention_column"),
        embedding_norm=forward("embedding_norm"),
        expert_gather=forward("mlp_moelayer", kind="ALLGATHER"),
        dispatch=forward("mlp_moelayer", kind="ALLTOALL_EP"),
        attention_rows=sum(row.name == "attention_layer" for row in workload.rows),
    )


def _sizes(header: Header) -> Sizes:
    return simai_sizes(header.read("tp"), header.read("pp"), header.read("ep"), header.read("all_gpus"))


def group(comm: Comm) -> str:
    """The group SimAI gives a collective: by its suffix, and by phase when it has none."""
    suffix = comm.suffix
    if suffix == "":
        return "dp" if comm.phase == "wg" else "tp"
    return {"_EP": "ep", "_DP_EP": "dp_ep"}.get(suffix, "-")


def _layers(workload: Workload) -> LayerProfileBuilder:
    builder = LayerProfileBuilder()
    layer = -1
    previous = ""
    compute: dict[str, float] = {}

    def flush() -> None:
        for phase, ms in compute.items():
            builder.compute(layer, phase, ms)
        compute.clear()

    for row in workload.rows:
        name = row.name.lower()
        if name.startswith("attention"):
            if not previous.startswith("attention"):
                flush()
                layer += 1
                builder.layer_pass(layer)
        elif not (name.startswith(("mlp", "moe")) and "grad" not in name and layer >= 0):
            flush()
            if name.startswith("embedding_layer"):
                layer = -1
            previous = name
            continue
        previous = name
        for comm in row.comms():
            if comm.family:
                builder.collective(layer, "fwd" if comm.phase == "fwd" else "bwd", group(comm), comm.family.lower(), comm.size)
        for phase, times in (("fwd", (row.fwd_compute,)), ("bwd", (row.ig_compute, row.wg_compute))):
            known = [ns for ns in times if ns > PLACEHOLDER_NS]
            if known:
                compute[phase] = compute.get(phase, 0.0) + sum(known) / NS_PER_MS
    flush()
    return builder
