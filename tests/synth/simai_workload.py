"""The SimAI workload AICB would write for a :class:`~tests.synth.megatron_run.RunSpec` (docs/formats/simai-workload.md).

AICB's training generator (header generation 4, its plain path): gradient sync rows once, then per
micro-batch the embedding, two rows per transformer layer (attention, MLP) with a forward and an
input-gradient TP all-reduce of ``2·mbs·seq·hidden`` bytes, the embedding-norm, cross-entropy and optimizer
all-reduces.  AICB assumes 2-byte activations and parameters, whatever the run's dtype; without
measured compute it writes 1 ns.  The rows are one pipeline stage's: AICB divides ``num_layers`` by pp
(``get_params``) and writes that many layers, and ``vpp: num_layers`` of one stage (``dump_file``).
"""

from __future__ import annotations

from pathlib import Path

from lint.formats.simai_workload.records import Header, LayerCount, LayerRow
from tests.render import render_simai
from tests.synth.megatron_run import RunSpec

KIND = "HYBRID_TRANSFORMER_FWD_IN_BCKWD"
NO_TIME = 1


def _row(name: str, fwd: tuple[str, int] = ("NONE", 0), ig: tuple[str, int] = ("NONE", 0), wg: tuple[str, int] = ("NONE", 0)) -> LayerRow:
    return LayerRow(0, 1, name, -1, NO_TIME, *fwd, NO_TIME, *ig, NO_TIME, *wg, 100)


def workload_rows(spec: RunSpec) -> list[LayerRow]:
    activation = 2 * spec.micro_batch_size * spec.seq * spec.hidden
    parameters = spec.stage_parameters(0)
    rows = [
        _row("grad_norm", fwd=("ALLGATHER", 2 * parameters), wg=("REDUCESCATTER", 4 * parameters)),
        _row("layernorm", ig=("ALLREDUCE", 2 * parameters)),
    ]
    for _ in range(spec.micro_batches):
        rows.append(_row("embedding_layer", fwd=("ALLREDUCE", activation), ig=("ALLREDUCE", activation)))
        for _ in range(spec.layers_per_stage):
            rows.append(_row("attention_layer", fwd=("ALLREDUCE", activation), ig=("ALLREDUCE", activation)))
            rows.append(_row("mlp_layer", fwd=("ALLREDUCE", activation), ig=("ALLREDUCE", activation)))
        rows.append(_row("embedding_norm", fwd=("ALLREDUCE", spec.vocab * spec.hidden * 2)))
        rows += [_row(f"cross_entropy{i}", fwd=("ALLREDUCE", spec.seq * spec.micro_batch_size * 4)) for i in (1, 2, 3)]
        rows += [_row(f"optimizer{i}", fwd=("ALLREDUCE", 4)) for i in (1, 2, 3, 4)]
    return rows


def workload_header(spec: RunSpec) -> Header:
    pp_comm = 2 * spec.micro_batch_size * spec.seq * spec.hidden if spec.pp > 1 else 0
    return Header(
        1,
        1,
        KIND,
        tp=spec.tp,
        ep=1,
        pp=spec.pp,
        vpp=spec.layers_per_stage,
        ga=spec.micro_batches,
        all_gpus=spec.world_size,
        pp_comm=pp_comm,
        pp_comm_colon=True,
        checkpoints=(),
        checkpoint_initiates=(),
        key_order=("model_parallel_NPU_group", "ep", "pp", "vpp", "ga", "all_gpus", "checkpoints", "checkpoint_initiates", "pp_comm"),
    )


def write_workload(spec: RunSpec, path: Path | str) -> Path:
    path = Path(path)
    render = render_simai
    rows = workload_rows(spec)
    lines = [render(workload_header(spec)), render(LayerCount(2, 1, len(rows))), *(render(row) for row in rows)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
