"""SimAI workloads as AICB's generators write them, for any setting of the knobs users turn.

The rows and sizes follow aliyun/aicb ``workload_generator/SimAI_training_workload_generator.py``
(``SIMAI_workload.workload_generate``, the plain path, and ``workload_generate_aiob``, the AIOB path; their
``dump_file``) and ``SimAI_inference_workload_generator.py`` (``SimAIWorkload``), as they print for a GPT of
Megatron's mocked model (``MockedMegatron.py``):

* header ``model_parallel_NPU_group: tp ep: ep pp: pp vpp: layers/pp ga: gbs/(mbs·dp) all_gpus: world
  checkpoints: 0 checkpoint_initiates: 0 pp_comm: 2·mbs·seq·hidden`` (divided by tp under SP, 0 without a
  pipeline); the inference generator writes ``mode: 1``, ``vpp: 1 ga: 1``;
* the gradient rows (``grad_norm`` plain, ``grad_gather``/``grad_param_comm``/``grad_param_compute`` and
  ``embedding_grads`` AIOB; ``layernorm`` without SP; ``moe_grad_norm1/2`` where ep ≠ dp);
* per micro-batch: ``embedding_layer``, per layer ``attention_layer`` and ``mlp_layer`` (without SP) or
  ``attention_column``/``attention_row`` and ``mlp_column``/``mlp_row`` (SP), five ``mlp_moelayer`` rows
  for a MoE MLP, ``final_column`` (SP), ``embedding_norm`` (plain path), each moving
  ``tp_comm_size = 2·mbs·seq·hidden``; the attention's doubled under recomputation (plain path);
* ``cross_entropy1-3`` of ``seq·mbs·4`` bytes and ``optimizer1-4`` of 4 bytes.

The parameter counts of the gradient rows are this generator's own (a GPT stage's), not AICB's mocked
model's: no knob is read from them.  Compute times are AICB's 1 ns placeholder, or a made-up measured time
on the AIOB path.  Files are named as AICB names them, so that the name states mbs, seq and gbs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

Row = tuple[str, int, str, int, int, str, int, int, str, int]  # name, fwd time, comm, size, ig time, comm, size, wg time, comm, size
NOT_MEASURED = 1
MEASURED_NS = 250_000  # the AIOB path's compute time of a layer row (made up)


@dataclass(frozen=True)
class AicbSpec:
    world: int = 16
    tp: int = 2
    pp: int = 2
    ep: int = 1
    gbs: int = 64
    mbs: int = 1
    seq: int = 1024
    layers: int = 8
    hidden: int = 1024
    vocab: int = 50257
    sp: bool = False
    recompute: bool = False
    experts: int = 0  # 0: a dense MLP
    topk: int = 2
    path: str = "plain"  # "plain", "aiob" or "inference"
    phase: str = "decode"  # of the inference generator

    @property
    def dp(self) -> int:
        return self.world // (self.tp * self.pp)

    @property
    def ga(self) -> int:
        return self.gbs // (self.mbs * self.dp)

    @property
    def stage_layers(self) -> int:
        return self.layers // self.pp  # get_params: num_layers //= pipeline_model_parallel

    @property
    def name(self) -> str:
        if self.path == "inference":
            return f"Qwen3-Moe-world_size{self.world}-tp{self.tp}-pp{self.pp}-ep{self.ep}-bs{self.mbs}-seq{self.seq}-{self.phase}.txt"
        moe = self.experts > 0
        return f"None-gpt-world_size{self.world}-tp{self.tp}-pp{self.pp}-ep{self.ep}-gbs{self.gbs}-mbs{self.mbs}-seq{self.seq}-MOE-{moe}-GEMM-False-flash_attn-False.txt"


def _row(name: str, fwd: tuple[str, int] = ("NONE", 0), ig: tuple[str, int] = ("NONE", 0), wg: tuple[str, int] = ("NONE", 0), time: int = NOT_MEASURED) -> Row:
    return (name, time, *fwd, time, *ig, time, *wg)


def _gradient_rows(spec: AicbSpec, parameters: int, expert_parameters: int) -> list[Row]:
    dense = parameters - expert_parameters
    if spec.path == "aiob":
        rows = [
            _row("grad_gather", wg=("ALLGATHER", 2 * dense)),
            _row("grad_param_comm", wg=("REDUCESCATTER", 4 * dense)),
            _row("grad_param_compute"),
        ]
    else:
        rows = [_row("grad_norm", fwd=("ALLGATHER", 2 * parameters), wg=("REDUCESCATTER", 4 * parameters))]
    if not spec.sp:
        rows.append(_row("layernorm", ig=("ALLREDUCE", 2 * parameters)))
    if spec.path == "aiob":
        rows.append(_row("embedding_grads", ig=("ALLREDUCE" if spec.tp > 1 else "NONE", _activation(spec))))
    if spec.ep != spec.dp:
        rows += [
            _row("moe_grad_norm1", wg=("ALLGATHER_DP_EP", 2 * expert_parameters)),
            _row("moe_grad_norm2", wg=("REDUCESCATTER_DP_EP", 4 * expert_parameters)),
        ]
    return rows


def _activation(spec: AicbSpec) -> int:
    return 2 * spec.mbs * spec.seq * spec.hidden  # tp_comm_size


def _layer_rows(spec: AicbSpec) -> list[Row]:
    tp_comm = _activation(spec)
    aiob = spec.path == "aiob"
    time = MEASURED_NS if aiob else NOT_MEASURED
    attention = 2 * tp_comm if spec.recompute and not aiob else tp_comm  # the AIOB path doubles the compute time instead
    rows: list[Row] = []
    if not spec.sp:
        ig = ("NONE", 0) if aiob else ("ALLREDUCE", tp_comm)
        rows += [_row("attention_layer", ("ALLREDUCE", attention), ig, time=time), _row("mlp_layer", ("ALLREDUCE", tp_comm), ig, time=time)]
        return rows
    for part in ("attention", "mlp") if not spec.experts else ("attention",):
        size = attention if part == "attention" else tp_comm
        if aiob:
            rows += [
                _row(f"{part}_column", ("ALLGATHER", size), ("REDUCESCATTER", 0), time=time),
                _row(f"{part}_row", ("REDUCESCATTER", size), ("ALLGATHER", tp_comm), time=time),
            ]
        else:
            rows += [_row(f"{part}_column", ("ALLGATHER", size)), _row(f"{part}_row", ("REDUCESCATTER", size), ("NONE", tp_comm))]
    if spec.experts:
        dispatch = tp_comm * spec.topk // spec.tp
        rows += [
            _row("mlp_moelayer", ("ALLGATHER", 2 * spec.ep * spec.experts * spec.tp)),
            _row("mlp_moelayer", ("ALLTOALL_EP", dispatch), ("ALLTOALL_EP", dispatch)),
            _row("mlp_moelayer", ("ALLGATHER", tp_comm * spec.topk), ("REDUCESCATTER", tp_comm * spec.topk)),
            _row("mlp_moelayer", ("REDUCESCATTER", tp_comm * spec.topk), ("ALLGATHER", tp_comm * spec.topk)),
            _row("mlp_moelayer", ("ALLTOALL_EP", dispatch), ("ALLTOALL_EP", dispatch)),
        ]
    return rows


def training_rows(spec: AicbSpec) -> list[Row]:
    h, tp_comm = spec.hidden, _activation(spec)
    per_layer = 12 * h * h // spec.tp
    expert_parameters = spec.stage_layers * spec.experts // spec.ep * 8 * h * h // spec.tp
    parameters = spec.stage_layers * per_layer + spec.vocab * h // spec.tp + expert_parameters
    rows = _gradient_rows(spec, parameters, expert_parameters)
    aiob = spec.path == "aiob"
    for _ in range(spec.ga):
        if spec.sp and not aiob:
            rows.append(_row("embedding_layer", ("NONE", tp_comm), ("NONE", tp_comm)))  # the plain path leaves SP's sizes in place
        elif aiob:
            rows.append(_row("embedding_layer", ("ALLREDUCE" if spec.tp > 1 else "NONE", tp_comm if spec.tp > 1 else 0)))
        else:
            rows.append(_row("embedding_layer", ("ALLREDUCE", tp_comm), ("ALLREDUCE", tp_comm)))
        for _ in range(spec.stage_layers):
            rows += _layer_rows(spec)
        if spec.sp:
            rows.append(_row("final_column", ("ALLGATHER", tp_comm), ("REDUCESCATTER", 0) if aiob else ("NONE", 0)))
        if not aiob:
            rows.append(_row("embedding_norm", ("ALLREDUCE", spec.vocab * h * 2)))
    rows += [_row(f"cross_entropy{i}", ("ALLREDUCE", spec.seq * spec.mbs * 4), time=0) for i in (1, 2, 3)]
    rows += [_row(f"optimizer{i}", ("ALLREDUCE", 4), time=0) for i in (1, 2, 3, 4)]
    return rows


def inference_rows(spec: AicbSpec) -> list[Row]:
    m = spec.mbs if spec.phase == "decode" else spec.seq
    tp_comm = 2 * m * spec.hidden
    combine = tp_comm * spec.topk // spec.tp
    rows: list[Row] = []
    for _ in range(spec.layers):
        rows += [
            _row("attention_norm"),
            _row("attention_layer", ("ALLREDUCE" if spec.tp > 1 else "NONE", tp_comm if spec.tp > 1 else 0)),
            _row("moe_norm"),
            _row("moe_route", ("ALLTOALL_EP", int(combine * 1.03125))),
            _row("moe_expert", ("ALLTOALL_EP", combine)),
        ]
    return rows


def header(spec: AicbSpec) -> str:
    if spec.path == "inference":
        pipeline = 2 * spec.mbs * spec.seq * spec.hidden if spec.pp > 1 else 0
        return (
            f"HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: {spec.tp} ep: {spec.ep} pp: {spec.pp} all_gpus: {spec.world} "
            f"mode: 1 vpp: 1 ga: 1 checkpoints: 0 checkpoint_initiates: 0 pp_comm: {pipeline}"
        )
    pp_comm: float = _activation(spec)
    if spec.sp:
        pp_comm /= spec.tp  # a float, as dump_file writes it (`1048576.0`)
    return (
        f"HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: {spec.tp} ep: {spec.ep} pp: {spec.pp} vpp: {spec.stage_layers} "
        f"ga: {spec.ga} all_gpus: {spec.world} checkpoints: 0 checkpoint_initiates: 0 pp_comm: {pp_comm if spec.pp > 1 else 0}"
    )


def write_aicb(spec: AicbSpec, directory: Path, name: str | None = None) -> Path:
    """The workload in ``directory``, named as AICB names it (or ``name``)."""
    rows = inference_rows(spec) if spec.path == "inference" else training_rows(spec)
    lines = [header(spec), str(len(rows)), *("\t".join([row[0], "-1", *map(str, row[1:]), "100"]) for row in rows)]
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / (name or spec.name)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
