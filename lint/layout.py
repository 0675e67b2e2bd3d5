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
        first, last = described.stage == 0, described.stage == pp - 1
        if not described.layers or not described.gradient_elements:
            continue
        if (first or last) and described.vocab_shard is None:  # its word embedding's size is unknown (no pipeline: no embedding all-reduce)
            continue
        extra = described.vocab_shard * hidden if (first or last) and described.vocab_shard else 0
        extra += first_stage_tokens * hidden if first and first_stage_tokens else 0
        extra += 2 * hidden if last else 0
        split = described.gradient_elements - extra - 6 * hidden * described.layers
        sharded = described.layers * (12 * hidden * hidden + 7 * hidden)
        if split > 0 and sharded % split == 0:
            found[sharded // split] += 1
    return found.most_common(1)[0][0] if found else None


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
