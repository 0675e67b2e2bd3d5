"""The parallel layout of a job (TP, PP, DP, EP, world) as far as its files show it: the one owner of that inference.

Every reader of a layout — the rule helpers (:mod:`lint.formats.megatron_trace.rulekit`), run assembly (:mod:`lint.runs.assemble`),
the configured logs and workloads (:mod:`lint.check.stated`) and the differ's adapters — takes its sizes
from here, so that a size is inferred the same way wherever it is used.

Policy: a size is known where a file states it, where its writer implies it, or where ``world = tp · pp · dp``
determines it from the other three; otherwise it is unknown (``None``), never assumed.  A rule or a
comparison that needs an unknown size says that it cannot tell (a rule skips its check) instead of
guessing 1.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, replace

SIZES = ("tp", "pp", "dp", "ep", "world")

# OptimusPrime prints its data- and tensor-parallel sizes only above 1, on the line of the pipeline size
# (setting -> the label the log prints it under): where PP is printed without them, they are 1.
OPTPRIME_PRINTED_ABOVE_ONE = {"dp": "DP", "tp": "TP"}
# The settings of an optprime log that are parallel sizes (size -> setting name).
_OPTPRIME_SETTINGS = {"tp": "tp", "pp": "pp", "dp": "dp", "world": "world_size"}


@dataclass(frozen=True)
class Sizes:
    """The parallel sizes of one job; ``None`` where unknown."""

    tp: int | None = None
    pp: int | None = None
    dp: int | None = None
    ep: int | None = None
    world: int | None = None

    def known(self) -> dict[str, int]:
        """The known sizes by name, in :data:`SIZES` order."""
        return {f.name: value for f in fields(self) if (value := getattr(self, f.name)) is not None}

    def completed(self) -> Sizes:
        """With what ``world = tp · pp · dp`` determines: the world from its three factors, or one missing
        factor from the world and the other two where it divides evenly."""
        tp, pp, dp, world = self.tp, self.pp, self.dp, self.world
        if None not in (tp, pp, dp):
            return self if world is not None else replace(self, world=_product(tp, pp, dp))
        if world is None or [tp, pp, dp].count(None) != 1:
            return self
        others = _product(*(size for size in (tp, pp, dp) if size is not None))
        if not others or world % others:
            return self
        missing = next(name for name, size in (("tp", tp), ("pp", pp), ("dp", dp)) if size is None)
        return replace(self, **{missing: world // others})


def _product(*sizes: int | None) -> int:
    product = 1
    for size in sizes:
        assert size is not None
        product *= size
    return product


def _positive(value: object) -> int | None:
    """A printed size, where it is one (a positive whole number)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0 or value != int(value):
        return None
    return int(value)


def optprime_implied(name: str, printed: Mapping[str, object]) -> int | None:
    """The value an optprime log implies for a setting it did not print: 1 for DP and TP next to a printed PP."""
    if name in OPTPRIME_PRINTED_ABOVE_ONE and name not in printed and "pp" in printed:
        return 1
    return None


def optprime_sizes(settings: Mapping[str, object]) -> Sizes:
    """The sizes an optprime log shows: printed (its first value of each), or implied by what it printed."""
    values: dict[str, int | None] = {}
    for size, setting in _OPTPRIME_SETTINGS.items():
        printed = _positive(settings[setting]) if setting in settings else None
        values[size] = printed if printed is not None else optprime_implied(setting, settings)
    return Sizes(**values)


def simai_sizes(tp: int | None, pp: int | None, ep: int | None, all_gpus: int | None) -> Sizes:
    """The sizes a SimAI workload header gives (as SimAI reads them), with DP = all_gpus / (tp · pp) as SimAI
    computes it (``Layer::report``); a key the header lacks stays unknown."""
    return Sizes(tp=_positive(tp), pp=_positive(pp), ep=_positive(ep), world=_positive(all_gpus)).completed()


@dataclass(frozen=True)
class StageParameters:
    """What a megatron pipeline stage's traces show of its parameters: its transformer layers, the elements
    its DP gradient all-reduce moves (its parameters on one TP rank), and its vocabulary shard where it
    holds an embedding (the first and last stage; None where no embedding all-reduce shows it)."""

    stage: int
    layers: int
    gradient_elements: int
    vocab_shard: int | None


def megatron_tp(hidden: int, pp: int, stages: Iterable[StageParameters], first_stage_tokens: int | None) -> int | None:
    """The TP size that splits a GPT's transformer layers into the stages' gradient elements, as most stages
    agree (None where none tells it).

    Per layer, 12·h² + 7·h parameters are split over TP (QKV, projection, MLP and their biases) and 6·h are
    not (layer norms, the biases added after a TP all-reduce); the first stage also holds its word and
    position embeddings (``vocab_shard``·h and ``first_stage_tokens``·h), the last its word embedding and
    final layer norm (2·h).
    """
    found: Counter[int] = Counter()
    for described in stages:
        if not described.layers or not described.gradient_elements:
            continue
        extra = _embeddings(described, hidden, pp, first_stage_tokens)
        if extra is None:  # its word embedding's size is unknown (no pipeline: no embedding all-reduce)
            continue
        split = described.gradient_elements - extra - 6 * hidden * described.layers
        sharded = described.layers * (12 * hidden * hidden + 7 * hidden)
        if split > 0 and sharded % split == 0:
            found[sharded // split] += 1
    return found.most_common(1)[0][0] if found else None


def megatron_layers(hidden: int, pp: int, stages: Iterable[StageParameters], first_stage_tokens: int | None, tp: int) -> int | None:
    """The model's transformer layers from every stage's gradient elements at a known ``tp`` (as
    :func:`megatron_tp` splits them: ``L·((12·h² + 7·h)/tp + 6·h)`` plus the embeddings a stage holds); None
    where a stage's elements fit no whole number of layers (another model than GPT's, or a gradient bucket
    rather than the whole stage).  What a tp-1 run tells of its layers: Megatron skips the layer all-reduces
    of a one-rank group, so no layer collective counts them."""
    per_layer = whole(12 * hidden * hidden + 7 * hidden, tp)
    if per_layer is None:
        return None
    total = 0
    for described in stages:
        extra = _embeddings(described, hidden, pp, first_stage_tokens)
        layers = whole(described.gradient_elements - extra, per_layer + 6 * hidden) if extra is not None else None
        if layers is None:
            return None
        total += layers
    return total


def _embeddings(described: StageParameters, hidden: int, pp: int, first_stage_tokens: int | None) -> int | None:
    """What a stage holds besides its layers: the word embedding's TP shard (first and last stage), the position
    embeddings (first), the final layer norm (last); None where the word embedding's size is unknown."""
    first, last = described.stage == 0, described.stage == pp - 1
    if (first or last) and described.vocab_shard is None:
        return None
    extra = described.vocab_shard * hidden if (first or last) and described.vocab_shard else 0
    extra += first_stage_tokens * hidden if first and first_stage_tokens else 0
    return extra + (2 * hidden if last else 0)


def tp_activation_size(rows_per_layer: Mapping[str, int], sizes_per_layer: Mapping[str, Counter[int]]) -> tuple[int, int] | None:
    """A workload's TP activation size (2·mbs·seq·hidden) and how many forward TP collectives carry it, from
    the rows of each layer name and the sizes of their forward TP collectives (None where it is not known).

    AICB sizes the forward TP collective of every transformer layer 2·mbs·seq·hidden and writes one row per
    layer instance, so that size is the one most forward TP collectives of repeated layer names carry;
    one-off rows (embedding, loss) carry other sizes.  The size is known only when more than half of those
    collectives agree on it.
    """
    repeated = [layer for layer in sizes_per_layer if rows_per_layer.get(layer, 0) > 1]
    sizes = Counter[int]()
    for layer in repeated:  # in place: adding Counters copies the sum so far at each layer
        sizes.update(sizes_per_layer[layer])
    if not sizes:
        return None
    size, collectives = sizes.most_common(1)[0]
    if 2 * collectives <= sizes.total() or size <= 1:
        return None
    return size, collectives


# -- the knobs of a job, as users name them -------------------------------------------------------------
# What `tlint diff` shows of each side and compares first.  A knob is known where a file states it, where
# its writer implies it (a size computed from the knobs), or where an identity of them determines it; else
# it is None ("?"), never assumed.

KNOBS = ("tp", "pp", "dp", "ep", "sp", "vpp", "mbs", "seq", "gbs", "layers", "hidden", "experts", "recompute", "phase")
Knob = int | bool | str | None


@dataclass(frozen=True)
class Knobs:
    """tp, pp, dp, ep: parallel sizes; sp: sequence parallelism; vpp: virtual pipeline stages (AICB: the layers
    of one stage); mbs: micro-batch size; seq: sequence length; gbs: global batch; layers: transformer layers of
    the model; hidden: hidden size; experts: MoE experts (0 for a dense model); recompute: activation
    recomputation; phase: train, or decode or prefill of inference."""

    tp: int | None = None
    pp: int | None = None
    dp: int | None = None
    ep: int | None = None
    sp: bool | None = None
    vpp: int | None = None
    mbs: int | None = None
    seq: int | None = None
    gbs: int | None = None
    layers: int | None = None
    hidden: int | None = None
    experts: int | None = None
    recompute: bool | None = None
    phase: str | None = None

    def values(self) -> dict[str, Knob]:
        """Every knob by name, in :data:`KNOBS` order; None where unknown."""
        return {name: getattr(self, name) for name in KNOBS}


def whole(numerator: int | None, denominator: int | None) -> int | None:
    """``numerator / denominator`` where both are known and it divides into a positive whole number, else None."""
    if numerator is None or not denominator or numerator <= 0 or numerator % denominator:
        return None
    return numerator // denominator


def product(*factors: int | None) -> int | None:
    """The product of known factors; None when one is unknown."""
    if any(factor is None for factor in factors):
        return None
    return _product(*factors)


# -- AICB's SimAI workloads ---------------------------------------------------------------------------
# aliyun/aicb workload_generator/SimAI_training_workload_generator.py (SIMAI_workload.workload_generate,
# workload_generate_aiob, dump_file), SimAI_inference_workload_generator.py (SimAIWorkload) and
# utils/utils.py (get_params): every size below is the expression they write.

AICB_PATHS = {"plain": "AICB (plain path)", "aiob": "AICB (AIOB path)", "inference": "AICB (inference)"}
# Training: `{gpu}-{model}-world_size{W}-tp{T}-pp{P}-ep{E}-gbs{G}-mbs{M}-seq{S}-MOE-…`; inference
# (SimAI_inference_workload_generator.py `__main__`): `{model}-world_size{W}-tp{T}-pp{P}-ep{E}-bs{M}-seq{S}-{phase}`.
_AICB_NAME = re.compile(
    r"world_size(?P<world>\d+)-tp(?P<tp>\d+)-pp(?P<pp>\d+)-ep(?P<ep>\d+)-(?:gbs(?P<gbs>\d+)-mbs|bs)(?P<mbs>\d+)-seq(?P<seq>\d+)(?:-(?P<phase>decode|prefill)\b)?"
)


@dataclass(frozen=True)
class AicbRows:
    """What the rows of an AICB workload say of its configuration (read by the format's code).

    ``path``: which generator wrote it: the training generator's plain path (its first row ``grad_norm``),
    its AIOB path (``grad_gather``), or the inference generator (header ``mode: 1``).  Sizes are bytes as
    written; None where the workload has no such row (or AICB zeroed its size: a ``NONE`` comm of the AIOB
    path, a collective of a one-rank group)."""

    path: str
    sp: bool  # rows of column- and row-parallel linears (`attention_column`, `mlp_row`, …): sequence parallelism
    moe: bool  # `mlp_moelayer` rows
    tokens: int | None  # a cross_entropy row's forward all-reduce: seq·mbs·4
    embedding: int | None  # embedding_layer's forward size: tp_comm_size = 2·mbs·seq·hidden
    mlp: int | None  # a dense MLP row's forward size: tp_comm_size
    attention: int | None  # an attention row's forward size: tp_comm_size, doubled under recomputation (plain path)
    embedding_norm: int | None  # embedding_norm's forward all-reduce: vocab·hidden·2 (plain path)
    expert_gather: int | None  # a MoE layer's first all-gather: 2·ep·experts·tp
    dispatch: int | None  # a MoE layer's forward ALLTOALL_EP: tp_comm_size·topk // tp
    attention_rows: int  # attention_layer rows (the inference generator writes one per layer)


@dataclass(frozen=True)
class AicbHeader:
    tp: int | None
    pp: int | None
    ep: int | None
    vpp: int | None
    ga: int | None
    world: int | None
    pp_comm: int | None


def aicb_name_settings(name: str, header: AicbHeader) -> dict[str, int | str]:
    """mbs, seq, gbs and phase as AICB's file name states them, where the name is AICB's and agrees with the
    header on the sizes both state (a renamed or stale name says nothing)."""
    match = _AICB_NAME.search(name)
    if match is None:
        return {}
    for key, stated in (("world", header.world), ("tp", header.tp), ("pp", header.pp), ("ep", header.ep)):
        if stated is not None and int(match.group(key)) != stated:
            return {}
    found: dict[str, int | str] = {key: int(match.group(key)) for key in ("mbs", "seq", "gbs") if match.group(key)}
    if match.group("phase"):
        found["phase"] = match.group("phase")
    return found


def aicb_knobs(header: AicbHeader, rows: AicbRows, stated: dict[str, int | str]) -> tuple[Knobs, dict[str, Knob]]:
    """The knobs of an AICB workload, and the other settings it tells (world, micro-batches, vocab, topk).

    ``stated``: :func:`aicb_name_settings`.  The rows tell seq·mbs (the cross-entropy all-reduce, ``seq·mbs·4``)
    but not each: those come from the name where it states them and their product agrees.
    """
    sizes = simai_sizes(header.tp, header.pp, header.ep, header.world)
    tp, pp, dp = sizes.tp, sizes.pp, sizes.dp
    tokens = whole(rows.tokens, 4)
    mbs, seq = _split_tokens(tokens, stated)
    inference = rows.path == "inference"
    phase = str(stated.get("phase", "inference")) if inference else "train"
    if inference:
        # tp_comm_size = 2·m·hidden, m = the batch in decode, the sequence in prefill (SimAIWorkload.get_comm_size)
        per_token = {"decode": mbs, "prefill": seq}.get(phase)
        hidden = whole(rows.attention, product(2, per_token))
        knobs = Knobs(tp=tp, pp=pp, dp=dp, ep=sizes.ep, mbs=mbs, seq=seq, layers=rows.attention_rows if pp == 1 else None, hidden=hidden, phase=phase)
        return knobs, {"world": sizes.world}
    activation = rows.embedding or rows.mlp
    hidden = whole(activation, product(2, tokens))
    if hidden is None and header.pp_comm and tokens:  # pp_comm = 2·mbs·seq·hidden, divided by tp under SP (dump_file)
        hidden = whole(header.pp_comm * (tp or 0 if rows.sp else 1), 2 * tokens)
    activation = activation or product(2, tokens, hidden)
    recompute = None
    if rows.path == "plain" and activation and rows.attention:  # the AIOB path doubles the attention's compute time only
        recompute = {activation: False, 2 * activation: True}.get(rows.attention)
    experts = 0 if not rows.moe else whole(rows.expert_gather, product(2, sizes.ep, tp))
    settings: dict[str, Knob] = {
        "world": sizes.world,
        "micro-batches": header.ga,
        "vocab": whole(rows.embedding_norm, product(2, hidden)),
        "topk": whole(product(rows.dispatch, tp), activation) if rows.moe else None,
    }
    knobs = Knobs(
        tp=tp,
        pp=pp,
        dp=dp,
        ep=sizes.ep,
        sp=rows.sp,
        vpp=header.vpp,
        mbs=mbs,
        seq=seq,
        gbs=product(header.ga, mbs, dp) or _stated_int(stated, "gbs"),
        layers=product(header.vpp, pp),  # dump_file writes `vpp: num_layers` after get_params divided it by pp
        hidden=hidden,
        experts=experts,
        recompute=recompute,
        phase=phase,
    )
    return knobs, settings


def _split_tokens(tokens: int | None, stated: dict[str, int | str]) -> tuple[int | None, int | None]:
    """(mbs, seq) of seq·mbs = ``tokens`` as the name states them, where their product agrees."""
    mbs, seq = _stated_int(stated, "mbs"), _stated_int(stated, "seq")
    if mbs is None or seq is None or (tokens is not None and mbs * seq != tokens):
        return None, None
    return mbs, seq


def _stated_int(stated: dict[str, int | str], key: str) -> int | None:
    value = stated.get(key)
    return value if isinstance(value, int) else None
