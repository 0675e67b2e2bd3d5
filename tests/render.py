"""The writers' side of each small format: a record back to the text its writer prints.

Round-trip tests (``parse(render(r)) == r``) and the synthetic workload generator use these; tlint itself
only reads.  megatron-trace's renderer stays beside its parser, whose private key tables it shares, and
serves the benchmark generator too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lint.formats.neusight_tsv.records import COLUMNS, HeaderRecord, LayerRecord
from lint.formats.optprime_log.records import SETTINGS, DeviceMesh, Record
from lint.formats.simai_workload import parser as simai_workload
from lint.formats.simai_workload.records import CHECKPOINT_KEYS, SETTING_FIELDS, Header, LayerCount, LayerRow, TrailingText
from tests.narrow import typed_parser

# -- neusight-tsv ---------------------------------------------------------------------------------


def render_neusight(record: HeaderRecord | LayerRecord) -> str:
    """The line the writer prints for ``record`` (parse(render(r)) == r)."""
    if isinstance(record, HeaderRecord):
        return "\t".join(record.columns)
    # str() is what the writer used: `None` for no comm, Python's shortest float repr for times.
    return "\t".join(str(getattr(record, column)) for column in COLUMNS)


# -- simai-workload -------------------------------------------------------------------------------


def render_simai(record: Header | LayerCount | LayerRow | TrailingText) -> str:
    """The line a writer prints for ``record``: parsing it gives ``record`` back (but for its line number)."""
    if isinstance(record, Header):
        return _render_header(record)
    if isinstance(record, LayerCount):
        return str(record.count)
    if isinstance(record, TrailingText):
        return record.text
    rule = "row" if record.parallelism is None else "customized_row"
    columns = [str(getattr(record, name)) for name in typed_parser("simai-workload", simai_workload.Parser).grammar.field_names(rule)]
    return "\t".join([*columns, *record.extra_columns])


def _render_header(header: Header) -> str:
    words = [header.parallelism]
    settings = {key: getattr(header, name) for key, name in SETTING_FIELDS.items()}
    if header.dlrm_last_bottom_layer is not None and "DLRM_LAST_BOTTOM_LAYER" not in header.key_order:
        words.append(str(header.dlrm_last_bottom_layer))
    for key in header.key_order:
        if key in settings:
            colon = ":" if key != "pp_comm" or header.pp_comm_colon else ""
            words.append(f"{key}{colon} {settings[key]}")
        elif key in CHECKPOINT_KEYS:
            layers = getattr(header, key)
            words.append(" ".join(map(str, (f"{key}:", len(layers), *layers))))
        else:
            words.append(f"{key}: {header.unknown[key]}")
    return " ".join(words)


# -- optprime-log ---------------------------------------------------------------------------------


def render_optprime(record: Record) -> str:
    """The text the writer prints for ``record``: parse(render(r)) == r, and a line is the
    concatenation of its records' renderings."""
    return _RENDER[record.kind](record)


def _render_mesh(mesh: DeviceMesh) -> str:
    names = f", mesh_dim_names={mesh.dim_names!r}" if mesh.dim_names is not None else ""
    if mesh.style == "legacy_list":
        return f"DeviceMesh:({list(mesh.ranks or ())})"
    if mesh.style == "list":
        return f"DeviceMesh({list(mesh.ranks or ())}{names})"
    if mesh.style == "device_list":
        return f"DeviceMesh({mesh.device!r}, {list(mesh.ranks or ())}{names})"
    sizes = mesh.sizes or ()
    dims = f"({', '.join(f'{n}={s}' for n, s in zip(mesh.dim_names, sizes, strict=False))})" if mesh.dim_names is not None else repr(sizes)
    ranks = f", Mesh: {list(mesh.ranks)}" if mesh.ranks is not None else ""
    return f"DeviceMesh({dims}, {mesh.device!r}, stride={mesh.stride!r}{ranks})"


def _render_config(record: Any) -> str:
    grouped = SETTINGS[record.label] == "parameters"
    return f"{record.label}{record.value:,}" if grouped else f"{record.label}{record.value}"


def _render_fx_node(record: Any) -> str:
    key = "n." if record.listing == "graph" else "node."
    lead = "" if record.listing == "graph" else "-- "
    return (
        f"{lead}{key}op:{record.op}, {key}name:{record.name}, {key}target:{record.target}, {key}args:{record.args}, "
        f"{key}all_input_nodes:[{', '.join(record.input_nodes)}]"
    )


def _render_metadata_range(record: Any) -> str:
    ranges = repr(list(record.ranges))
    if record.listing == "placement":
        return f" # rank = {record.rank}, metadata_range:{ranges}"
    return f"  rank:{record.rank},  {record.listing} metadata_range: {ranges}"


_RENDER: dict[str, Callable[[Any], str]] = {
    "rank_prefix": lambda r: f"[rank{r.rank}]:" + (" " if r.spaced else ""),
    "tee_prefix": lambda r: f"[{r.role}{r.local_rank}]:",
    "tp_head_adjust": lambda r: f"{r.marker}model_layers_{r.layer_id}_self_attn_{r.projection}_proj {r.arrow} node.args[3]:{r.heads}",
    "torch_log": lambda r: f"{r.level}{r.time} {r.pid} {r.source}:{r.source_line}] {r.message or ''}",
    "c10_log": lambda r: f"[{r.level}{r.time} {r.source}:{r.source_line}] {r.message or ''}",
    "python_log": lambda r: f"{r.level}:{r.logger}:{r.message or ''}",
    "python_warning": lambda r: f"{r.path}:{r.source_line}: {r.category}: {r.message or ''}",
    "env_check": lambda r: f"[rank:{r.rank}] {r.package} version {r.version} or higher --> {r.status}",
    "config": _render_config,
    "device_mode": lambda r: f"{r.device} mode is used.",
    "device_use": lambda r: ">>> Using CPU ..." if r.device_index is None else f">>> Using GPU ... cuda:{r.device_index}",
    "process_groups": lambda r: f"> [rank:{r.rank}] " + ", ".join(f"{g.name} group:{_render_mesh(g)}" for g in r.groups),
    "tp_adjust": lambda r: f"> TP adjust view{r.detail or ''}",
    "split_plan": lambda r: f"{r.label}{r.value}",
    "stage2rank": lambda r: "stage2rank = " + repr({stage: list(members) for stage, members in r.stages.items()}),
    "mode_banner": lambda r: f"{r.mode} mode >> [rank:{r.rank}, local_world_size:{r.local_world_size}]",
    "mode_processing": lambda r: f"[rank:{r.rank}, local_rank:{r.local_rank}] {r.mode} MODE PROCESSING ...",
    "split_stats": lambda r: f"length:{r.length}, modcnt:{r.modcnt}, num_stage:{r.num_stage}, segment:{r.segment}",
    "metadata_range": _render_metadata_range,
    "partitioner_ranges": lambda r: f"[IR.{r.partitioner}] " + ("post-split " if r.post_split else "") + f"metadata_range = {list(r.ranges)!r}",
    # The dash runs are decoration the record does not keep; these are the writer's.
    "fx_graph_header": lambda r: ">> ------------------ FX graph" + (" (split)" if r.split else "") + " --------------------------------",
    "fx_node": _render_fx_node,
    "split_summary": lambda r: f">> Split graph summary: {r.call_module} call_module, {r.call_function} call_function, {r.get_attr} get_attr",
    "split_warning": lambda r: f">> WARNING: {r.message}",
    "getitem_table_header": lambda r: " ========= getitem_dic =========",
    "getitem_entry": lambda r: f" --- key:{r.key}, values:('{r.module}', {r.index})",
    "stage_wiring": lambda r: f" ***** stage:{r.stage} >>  from_:{r.source}, to_:{r.target}",
    "module_placement": lambda r: (
        f" ### Rank:{r.rank}, name:{r.module}, move {r.moved_module} to " + ("cpu" if r.device_index is None else f"cuda:{r.device_index}")
    ),
    "clean_module_memory": lambda r: f" ### Rank:{r.rank}, clean_module_memory ...",
    "cross_ref_header": lambda r: f" *********** rank:{r.rank} cross-referenced nodes *****************",
    "special_nodes": lambda r: f"   special_nodes: {r.nodes!r}",
    "separator": lambda r: r.text,
    "timing_header": lambda r: f"[rank:{r.rank} stage:{r.stage}] transformer-block(module) forward time (no send/recv) - step {r.step}",
    "layer_timing": lambda r: f"  layer[{r.layer}]: total={r.total_ms:.3f}ms, ops={r.ops}, avg/op={r.avg_ms:.3f}ms",
    "epoch_progress": lambda r: (
        f"| epoch {r.epoch:3d} | {r.batch:5d}/{r.batches:5d} batches | lr {r.lr:02.2f} | "
        + (f"ms/batch {r.ms_per_batch:5.2f}" if r.ms_per_batch is not None else f"elapsed {r.elapsed_s:5.2f}")
        + f" | loss {r.loss:5.2f} | ppl {r.ppl:8.2f}"
    ),
    "run_completed": lambda r: f"[rank:{r.rank}, run completed ...",
    "time_elapsed": lambda r: f"Time elapsed: {r.seconds:.3f} sec ",
    "rank_notice": lambda r: f" rank={r.rank} ...",
    "barrier": lambda r: f"[rank:{r.rank} >> barrier ...",
    "rank_banner": lambda r: f" >> rank:{r.rank} " + "-" * 40,
    "last_layer": lambda r: f"rank: {r.rank}, #### last layer id:{r.layer_id}",
    "traceback": lambda r: "Traceback (most recent call last):",
    "exception_ignored": lambda r: f"Exception ignored in: {r.ignored_in}",
    "traceback_frame": lambda r: f'  File "{r.path}", line {r.source_line}' + ("" if r.function is None else f", in {r.function}"),
    "exception": lambda r: r.name if r.message is None else f"{r.name}: {r.message}",
    "child_failed": lambda r: f"failed (exitcode: {r.exitcode}) local_rank: {r.local_rank} (pid: {r.pid}) of binary: {r.binary}",
    "closing_signal": lambda r: f"Sending process {r.pid} closing signal {r.signal}",
    "death_signal": lambda r: f"Received {r.signal} death signal, shutting down workers",
    "usage_error": lambda r: f"{r.program}: error: {r.message}",
    "failure_title": lambda r: f"{r.script} FAILED",
    "failure_section": lambda r: "Root Cause (first observed failure):" if r.root_cause else "Failures:",
    "no_other_failures": lambda r: "  <NO_OTHER_FAILURES>",
    "failure_index": lambda r: f"[{r.index}]:",
    "failure_rank": lambda r: f"  rank      : {r.rank} (local_rank: {r.local_rank})",
    "failure_exitcode": lambda r: f"  exitcode  : {r.exitcode} (pid: {r.pid})" + ("" if r.exit_signal is None else f"  ({r.exit_signal})"),
    "failure_signal": lambda r: f"  traceback : Signal {r.signal_number} ({r.signal}) received by PID {r.pid}",
    "failure_field": lambda r: f"  {r.key:<10}: {r.value or ''}",
    "other": lambda r: r.text,
}
