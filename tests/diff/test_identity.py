"""diff(x, x) is empty for every format: a property over generated runs, workloads and tables.

Each example is written twice, to two paths, so that nothing short-circuits on equal names.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Callable
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from lint.formats.neusight_tsv.records import COLUMNS, CommType, HeaderRecord, LayerRecord
from lint.formats.simai_workload.records import Header, LayerCount, LayerRow
from tests.diff.conftest import diff_of
from tests.render import render_neusight, render_simai
from tests.synth.megatron_run import RunSpec, write_run
from tests.test_synth import run_specs

Writer = Callable[[Path], object]


def assert_identical(write: Writer) -> None:
    with tempfile.TemporaryDirectory() as directory:
        a, b = Path(directory) / "a", Path(directory) / "b"
        for side in (a, b):
            side.mkdir()
            write(side)
        report = diff_of(a, b)
    assert report.changes == [], [(c.category, c.key, c.field) for c in report.changes]
    if report.a.errors:  # a generated input with errors (BROADCAST rows, say): the same on both sides, and said
        assert report.summary.verdict == "inconclusive" and report.b.errors == report.a.errors
    else:
        assert report.summary.verdict == "identical" and not report.failing


@settings(max_examples=8, deadline=None)
@given(run_specs())
def test_megatron_runs(spec: RunSpec) -> None:
    assert_identical(lambda directory: write_run(spec, directory))


names = st.sampled_from(["embedding_layer", "attention_layer", "mlp_layer", "grad_norm", "layernorm", "moe_route", "optimizer1"])
comm_types = st.sampled_from(["NONE", "ALLREDUCE", "ALLGATHER", "REDUCESCATTER_DP_EP", "ALLTOALL_EP", "BROADCAST"])
sizes = st.integers(0, 2**34)


@st.composite
def simai_rows(draw: st.DrawFn) -> LayerRow:
    (fwd_type, fwd_size), (ig_type, ig_size), (wg_type, wg_size) = [(draw(comm_types), draw(sizes)) for _ in range(3)]
    times = [draw(st.integers(0, 10**8)) for _ in range(3)]
    return LayerRow(0, 1, draw(names), -1, times[0], fwd_type, fwd_size, times[1], ig_type, ig_size, times[2], wg_type, wg_size, 100)


@settings(max_examples=15, deadline=None)
@given(st.integers(1, 16), st.integers(1, 4), st.lists(simai_rows(), min_size=1, max_size=40))
def test_simai_workloads(tp: int, pp: int, rows: list[LayerRow]) -> None:
    render = render_simai
    header = Header(1, 1, "HYBRID_TRANSFORMER_FWD_IN_BCKWD", tp=tp, pp=pp, all_gpus=tp * pp * 2, key_order=("model_parallel_NPU_group", "pp", "all_gpus"))
    text = "\n".join([render(header), render(LayerCount(2, 1, len(rows))), *map(render, rows)]) + "\n"
    assert_identical(lambda directory: (directory / "workload.txt").write_text(text, encoding="utf-8"))


neusight_names = st.builds(
    lambda layer, part, grad: f"transformer_h_{layer}_{part}{grad}",
    st.integers(0, 3),
    st.sampled_from(["ln_1", "attn_c_attn", "mlp_c_fc"]),
    st.sampled_from(["", "_grad"]),
) | st.sampled_from(["getitem", "addmm", "matmul"])
times = st.floats(0, 50, allow_nan=False)
neusight_comm: st.SearchStrategy[tuple[CommType | None, int]] = st.sampled_from([(None, 0), ("ALLREDUCE", 4096), ("ALLREDUCE_ASYNC", 2560), ("SENDRECV", 1024)])


@st.composite
def neusight_rows(draw: st.DrawFn) -> LayerRecord:
    forward, backward, weight_grad = draw(neusight_comm), draw(neusight_comm), draw(neusight_comm)
    return LayerRecord(0, 1, draw(neusight_names), draw(times), *forward, draw(times), *backward, draw(times), *weight_grad, 0.0)


@settings(max_examples=15, deadline=None)
@given(st.lists(neusight_rows(), min_size=1, max_size=40))
def test_neusight_tables(rows: list[LayerRecord]) -> None:
    render = render_neusight
    text = "\n".join([render(HeaderRecord(1, 1, COLUMNS)), *map(render, rows)]) + "\n"
    assert_identical(lambda directory: (directory / "table.tsv").write_text(text, encoding="utf-8"))


@st.composite
def optprime_logs(draw: st.DrawFn) -> str:
    """A completed OptimusPrime run: config, stage2rank, per-step layer timings and progress lines."""
    pp, steps, gas = draw(st.integers(1, 3)), draw(st.integers(1, 4)), draw(st.sampled_from([1, 4, 32]))
    lines = [f"> World size: {pp}", f"> GAS: {gas}", f"> PP: {pp}", "> TP: 1", "> DP: 1", "stage2rank = {" + ", ".join(f"{s}: [{s}]" for s in range(pp)) + "}"]
    groups = {stage: [str(stage)] for stage in range(pp)}
    groups[0].insert(0, "embed")
    groups[pp - 1].append("lm_head")
    for step in range(1, steps + 1):
        for stage in range(pp):
            lines.append(f"[rank:{stage} stage:{stage}] transformer-block(module) forward time (no send/recv) - step {step}")
            for layer in groups[stage]:
                total = draw(st.floats(0.1, 500, allow_nan=False))
                lines.append(f"  layer[{layer}]: total={total:.3f}ms, ops={gas}, avg/op={total / gas:.3f}ms")
        ms, loss = draw(st.floats(100, 9000)), draw(st.floats(0.5, 9))
        lines.append(f"| epoch   1 | {step:5d}/{steps:5d} batches | lr 0.00 | ms/batch {ms:5.2f} | loss {loss:5.2f} | ppl {math.exp(loss):8.2f}")
    lines += [f"[rank:{stage}, run completed ..." for stage in range(pp)]
    return "\n".join(lines) + "\n"


@settings(max_examples=15, deadline=None)
@given(optprime_logs())
def test_optprime_logs(text: str) -> None:
    assert_identical(lambda directory: (directory / "train.log").write_text(text, encoding="utf-8"))
