"""``megatron-trace`` runs as diff profiles: one rank file, or the per-rank files of a run directory.

Each file is streamed once into the compact :class:`~lint.runs.summary.RankSummary` that run rules use
(no record is kept), and the summaries assembled into a :class:`~lint.runs.model.Run`.

Identity of what is compared:

* config ``layout`` (tp, pp, dp, world), ``model`` (hidden, seq, micro-batch size, dtype, layers) from
  the p2p and layer-collective tensors, ``schedule`` (micro-batches per step, steps, global batch);
* structure ``stage S OP`` (ops per step) and ``stage S OP GROUP KIND`` (collectives per call): the
  majority over the stage's ranks and steps;
* comm ``GROUP KIND``: bytes and calls per step of one rank of each stage, summed over the stages,
  the typical message (the size most calls move: every stage's gradient all-reduce has a size of its
  own, and a median of two would be a size no message has) and its dtype;
* timing (ms) ``step`` (per step: the slowest rank's wall time), ``stage S step``, ``op OP``,
  ``stage S OP`` and ``stage S layer J forward|backward`` (between consecutive layer collectives),
  sampled over ranks, micro-batches and steps.  With two or more steps the first is a warm-up and is
  left out of timing.

A trace does not state TP: it is inferred from the data-parallel all-reduce, which holds one TP rank's
parameters of a GPT stage, ``L·((12h² + 7h)/tp + 6h)`` plus the embeddings the stage holds (the word
embedding's TP shard from the embedding all-reduce, ``seq·h`` position embeddings on the first stage,
the final layernorm on the last).  Stages whose count fits no whole tp leave it unknown, and so does a
run without a pipeline, which has no embedding all-reduce to tell the word embedding's size.  A run
whose forward steps record collectives but no layer all-reduce at all has tp 1: Megatron's ``_reduce``
(``megatron/core/tensor_parallel/mappings.py``) returns before communicating when the tensor-parallel
group has one rank, so the profiler sees no layer collective.  Where tp stays unknown on one side, the
diff does not show it as a change.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from functools import cached_property
from operator import itemgetter
from pathlib import Path
from statistics import median
from typing import NamedTuple

from lint.diff.common import LayerProfileBuilder
from lint.diff.profile import Items, Profile, Timing, put, typical_message
from lint.diff.sides import DiffInputError, SideOptions, broken_note
from lint.engine import read_summary
from lint.executor import run_each
from lint.layout import Sizes
from lint.models.megatron_trace import P2P_OPS, tensor_bytes
from lint.runs.assemble import LayoutSources, assemble
from lint.runs.discovery import RunKey, run_key, split_by_time
from lint.runs.model import Run
from lint.runs.summary import Collective, OpStep, RankSummary
from lint.source import Source

NAME = "megatron-trace"
LAYER_OPS = {"forward_step": "forward", "backward_step": "backward"}
COLLECTIVES_PER_LAYER = 2  # Megatron's GPT layer all-reduces after attention and after the MLP, in each direction

Iteration = list[OpStep]


def load(path: str, sources: list[Source], options: SideOptions) -> Profile:
    run, broken = _read(path, sources, options)
    view = _RunView(run)
    profile = Profile(
        format=NAME,
        path=path,
        files=len(sources),
        broken=broken,
        units={"time": "ms (trace durations)", "comm": f"bytes = shape × dtype size ({view.dtype or 'no tensors'})"},
    )
    _config(view, profile.config)
    _structure(view, profile.structure)
    profile.total_bytes = _comm(view, profile.comm)
    profile.timing = _timing(view)
    profile.step_key = "step" if "step" in profile.timing else None
    profile.plot_keys = [f"stage {stage} step" for stage in view.stages if f"stage {stage} step" in profile.timing]
    profile.common = _layers(view).build(NAME, path, len(sources), profile.units)
    return profile


def _read(path: str, sources: list[Source], options: SideOptions) -> tuple[Run, list[str]]:
    named = [run_key(source.path, options.rank_regex) for source in sources]
    stems = sorted({name.key.stem for name in filter(None, named)})
    runs = [
        f"{key.stem}*" + (f" (run of {key.started})" if key.started else "")
        for stem in stems
        for key in split_by_time(n for n in named if n is not None and n.key.stem == stem)
    ]
    if len(runs) > 1:
        raise DiffInputError(f"{path}: holds the files of {len(runs)} runs ({', '.join(runs)}); name one")
    read = list(run_each(_summary, NAME, sources, options.backend))
    # A rank named by neither records nor file name is numbered by its place.
    files = [(summary, name.rank if name else index) for index, ((summary, _), name) in enumerate(zip(read, named, strict=True))]
    broken = [broken_note(source.display, []) for source, (_, parsed) in zip(sources, read, strict=True) if not parsed]
    if not any(summary.steps for summary, _ in files):
        raise DiffInputError(f"{path}: no {NAME} record could be read")
    key = RunKey(str(Path(path)), "")
    run = assemble(key, files, frozenset(s.display for s in sources), LayoutSources(), minimum_ranks=1)
    assert run is not None
    return run, broken


def _summary(format_name: str, source: Source) -> tuple[RankSummary, bool]:
    """A rank file's summary, and whether it was read without a syntax error (run by the executor)."""
    return read_summary(source, format_name)


class _RunView:
    """The run's ranks by the stage their records name, split into steps, with the model's tensors."""

    def __init__(self, run: Run) -> None:
        self.run = run
        by_stage: dict[int, list[int]] = defaultdict(list)
        for rank, summary in sorted(run.ranks.items()):
            by_stage[summary.stage if summary.stage is not None else run.stage_of(rank)].append(rank)
        self.stages = dict(sorted(by_stage.items()))
        self.iterations = {rank: _iterations(summary) for rank, summary in run.ranks.items()}
        steps = [step for summary in run.ranks.values() for step in summary.steps]
        activation = Counter(c for step in steps for c in step.collectives if c.kind in P2P_OPS and c.shape and len(c.shape) == 3)
        layer = Counter(step.layer_collective for step in steps if step.layer_collective is not None)
        self.activation = activation.most_common(1)[0][0] if activation else None
        self.layer_tensor = layer.most_common(1)[0][0] if layer else None
        tensor = self.activation or self.layer_tensor
        self.dtype = _short(tensor.dtype) if tensor else None
        self.hidden = tensor.shape[-1] if tensor and tensor.shape else None

    def timed(self, rank: int) -> list[Iteration]:
        """The steps whose timing counts: all but a warm-up first one."""
        iterations = self.iterations[rank]
        return iterations[1:] if len(iterations) >= 2 else iterations

    def stage_iterations(self, stage: int, *, timed: bool = False) -> Iterable[tuple[int, Iteration]]:
        for rank in self.stages[stage]:
            for iteration in self.timed(rank) if timed else self.iterations[rank]:
                yield rank, iteration

    def layers_per_stage(self, stage: int) -> int:
        """ceil(layer collectives / 2) of the stage's forward step: a layer that lost a collective still counts."""
        counts = Counter(step.layer_collectives for _, it in self.stage_iterations(stage) for step in it if step.op == "forward_step")
        return math.ceil(counts.most_common(1)[0][0] / COLLECTIVES_PER_LAYER) if counts else 0

    @cached_property
    def tp(self) -> int | None:
        return _infer_tp(self)

    @property
    def world(self) -> int | None:
        """The world size, when every rank of it has a file (a lone rank file does not tell it)."""
        layout = self.run.layout
        return layout.world if len(self.run.ranks) == layout.world else None

    @property
    def dp(self) -> int | None:
        return Sizes(tp=self.tp, pp=self.run.layout.pp, world=self.world).completed().dp

    @property
    def complete(self) -> bool:
        """Every stage of the pipeline is present: model-wide numbers (layers, offsets) are known."""
        return list(self.stages) == list(range(self.run.layout.pp))


def _iterations(summary: RankSummary) -> list[Iteration]:
    """The rank's complete steps (ending in optimizer_step), or what there is of one when none ended."""
    split: dict[int, Iteration] = defaultdict(list)
    for step in summary.steps:
        split[step.iteration].append(step)
    complete = [split[i] for i in range(summary.iterations)]
    return complete or list(split.values())[:1]


def _short(dtype: str | None) -> str | None:
    return dtype.removeprefix("torch.") if dtype else None


def _majority(values: Iterable[int]) -> int | None:
    counts = Counter(values)
    return counts.most_common(1)[0][0] if counts else None


# -- config ---------------------------------------------------------------------------------------


def _config(view: _RunView, config: Items) -> None:
    layout = view.run.layout
    put(config, "layout", tp=view.tp, pp=layout.pp, dp=view.dp, world=view.world)
    seq = mbs = None
    if view.activation is not None and view.activation.shape:
        seq, mbs, _ = view.activation.shape
    layers = sum(view.layers_per_stage(stage) for stage in view.stages) if view.complete else None
    put(config, "model", hidden=view.hidden, seq=seq, micro_batch_size=mbs, dtype=view.dtype, layers=layers or None)
    micro_batches = _majority(sum(step.op == "forward_step" for step in iteration) for iterations in view.iterations.values() for iteration in iterations)
    steps = max((summary.iterations for summary in view.run.ranks.values()), default=0)
    global_batch = micro_batches * mbs * view.dp if micro_batches and mbs and view.dp else None
    put(config, "schedule", micro_batches=micro_batches or None, steps=steps or None, global_batch=global_batch)


def _infer_tp(view: _RunView) -> int | None:
    hidden, pp = view.hidden, view.run.layout.pp
    if not hidden:
        return None
    forwards = [step for iterations in view.iterations.values() for iteration in iterations for step in iteration if step.op == "forward_step"]
    if forwards and all(step.layer_collectives == 0 for step in forwards) and any(step.collectives for step in forwards):
        return 1
    found: Counter[int] = Counter()
    for stage in view.stages:
        layers = view.layers_per_stage(stage)
        steps = [step for _, iteration in view.stage_iterations(stage) for step in iteration]
        parameters = _majority(_elements(c) for step in steps for c in step.collectives if c.kind == "dp_allreduce")
        vocab_shard = _majority(c.shape[0] for step in steps for c in step.collectives if c.kind == "ep_allreduce" and c.shape)
        if not layers or not parameters:
            continue
        first, last = stage == 0, stage == pp - 1
        if (first or last) and vocab_shard is None:  # its word embedding's size is unknown (no pipeline: no embedding all-reduce)
            continue
        embeddings = vocab_shard * hidden if (first or last) and vocab_shard else 0
        extra = embeddings + (view.activation.shape[0] * hidden if first and view.activation and view.activation.shape else 0)
        extra += 2 * hidden if last else 0
        split = parameters - extra - 6 * hidden * layers
        sharded = layers * (12 * hidden * hidden + 7 * hidden)
        if split > 0 and sharded % split == 0:
            found[sharded // split] += 1
    return found.most_common(1)[0][0] if found else None


def _elements(collective: Collective) -> int:
    return math.prod(collective.shape) if collective.shape else 0


# -- structure ------------------------------------------------------------------------------------


def _structure(view: _RunView, structure: Items) -> None:
    for stage in view.stages:
        iterations = [iteration for _, iteration in view.stage_iterations(stage)]
        ops = sorted({step.op for iteration in iterations for step in iteration})
        calls_of: dict[str, list[Counter[str]]] = defaultdict(list)
        counted: dict[tuple[str, int], Counter[str]] = {}  # by op and collectives (one tuple for equal ones): read, never changed
        for iteration in iterations:
            for step in iteration:
                key = (step.op, id(step.collectives))
                if key not in counted:
                    counted[key] = Counter(_name(c) for c in step.collectives if c.kind != step.op)
                calls_of[step.op].append(counted[key])
        for op in ops:
            put(structure, f"stage {stage} {op}", per_step=_majority(sum(s.op == op for s in it) for it in iterations))
            calls = calls_of[op]
            for name in sorted(set().union(*calls)):
                put(structure, f"stage {stage} {op} {name}", per_call=_majority(call[name] for call in calls))


def _name(collective: Collective) -> str:
    """'tp allreduce', 'pp send_forward', 'dp dp_allreduce': the group (or '-') and kind of a collective."""
    return f"{collective.group or '-'} {collective.kind}"


# -- comm -----------------------------------------------------------------------------------------


class _Tally(NamedTuple):
    """One iteration's traffic, by collective name."""

    calls: Counter[str]
    moved: Counter[str]  # bytes (a tensor of unknown size counts 0)
    sizes: dict[str, Counter[int]]  # the message sizes it moves, where known
    dtypes: dict[str, Counter[str]]


def _tally(iteration: Iteration) -> _Tally:
    tally = _Tally(Counter(), Counter(), defaultdict(Counter), defaultdict(Counter))
    for step in iteration:
        for c in step.collectives:
            name = _name(c)
            size = tensor_bytes(c.shape, c.dtype)
            tally.calls[name] += 1
            tally.moved[name] += size or 0
            if size is not None:
                tally.sizes[name][size] += 1
            if c.dtype:
                tally.dtypes[name][_short(c.dtype) or ""] += 1
    return tally


_COLLECTIVES = itemgetter(OpStep._fields.index("collectives"))


def _comm(view: _RunView, comm: Items) -> float:
    """Fills ``comm``; returns the bytes per step of all kinds together."""
    step_bytes: dict[str, float] = defaultdict(float)  # sums of medians
    step_calls: dict[str, float] = defaultdict(float)
    messages: dict[str, Counter[int]] = defaultdict(Counter)
    dtypes: dict[str, Counter[str]] = defaultdict(Counter)
    tallies: dict[tuple[int, ...], _Tally] = {}  # by the iteration's tuples of collectives (equal ones are one tuple)
    for stage in view.stages:
        per_rank_bytes: dict[str, list[float]] = defaultdict(list)
        per_rank_calls: dict[str, list[float]] = defaultdict(list)
        for rank in view.stages[stage]:
            bytes_per_step: dict[str, list[int]] = defaultdict(list)
            calls_per_step: dict[str, list[int]] = defaultdict(list)
            for iteration in view.iterations[rank]:
                signature = tuple(map(id, map(_COLLECTIVES, iteration)))  # in C: ranks of a stage repeat their iterations
                tally = tallies.get(signature)
                if tally is None:
                    tally = tallies[signature] = _tally(iteration)
                for name, sizes in tally.sizes.items():
                    messages[name].update(sizes)
                for name, counted in tally.dtypes.items():
                    dtypes[name].update(counted)
                for name, count in tally.calls.items():
                    bytes_per_step[name].append(tally.moved[name])
                    calls_per_step[name].append(count)
            for name in calls_per_step:
                per_rank_bytes[name].append(median(bytes_per_step[name]))
                per_rank_calls[name].append(median(calls_per_step[name]))
        for name in per_rank_calls:
            step_bytes[name] += median(per_rank_bytes[name])
            step_calls[name] += median(per_rank_calls[name])
    for name in sorted(step_calls):
        put(
            comm,
            name,
            bytes_per_step=step_bytes[name] or None,
            calls_per_step=step_calls[name],
            message_bytes=typical_message(messages[name].elements()),
            dtype=dtypes[name].most_common(1)[0][0] if dtypes[name] else None,
        )
    return float(sum(step_bytes.values()))


# -- timing ---------------------------------------------------------------------------------------


def _wall_time(iteration: Iteration) -> float | None:
    timed = [(step.end, step.duration) for step in iteration if step.end is not None and step.duration is not None]
    if not timed:
        return None
    (first_end, first_duration), (last_end, _) = timed[0], timed[-1]
    return last_end - (first_end - first_duration)


def _timing(view: _RunView) -> dict[str, Timing]:
    samples: dict[str, list[float]] = defaultdict(list)
    occurrences: dict[str, list[int]] = defaultdict(list)  # per op key: how often a rank runs it per step
    by_step: dict[int, list[float]] = defaultdict(list)
    for stage in view.stages:
        for rank in view.stages[stage]:
            for index, iteration in enumerate(view.timed(rank)):
                wall = _wall_time(iteration)
                if wall is not None:
                    samples[f"stage {stage} step"].append(wall)
                    by_step[index].append(wall)
                for op, count in Counter(step.op for step in iteration).items():
                    occurrences[f"op {op}"].append(count)
                    occurrences[f"stage {stage} {op}"].append(count)
                for step in iteration:
                    if step.duration is None:
                        continue
                    samples[f"op {step.op}"].append(step.duration)
                    samples[f"stage {stage} {step.op}"].append(step.duration)
                    for layer, ms in _layer_times(step):
                        samples[f"stage {stage} layer {layer} {LAYER_OPS[step.op]}"].append(ms)

    def per_step(key: str) -> float:
        # a layer runs as often as the forward or backward step that holds it
        op_key = re.sub(r" layer \d+ (forward|backward)$", lambda m: f" {m.group(1)}_step", key)
        return median(occurrences[op_key]) if occurrences.get(op_key) else 1.0

    timing = {key: Timing.of(values, per_step=per_step(key)) for key, values in samples.items()}
    ranks = len(view.run.ranks)
    steps = [max(walls) for _, walls in sorted(by_step.items()) if len(walls) == ranks]
    if steps:
        timing["step"] = Timing.of(steps)
    return timing


def _layer_times(step: OpStep) -> list[tuple[int, float]]:
    """(local layer, ms) of a forward or backward step whose layer collectives come two per layer.

    A layer's time runs from the end of the previous layer's last collective (the op's start for the
    first) to the end of its own last one; the backward step meets the layers last to first.
    """
    ends = step.layer_ends
    if step.op not in LAYER_OPS or not ends or len(ends) % COLLECTIVES_PER_LAYER:
        return []
    boundaries = [0.0, *ends[COLLECTIVES_PER_LAYER - 1 :: COLLECTIVES_PER_LAYER]]
    layers = len(boundaries) - 1
    times = [round(boundaries[i + 1] - boundaries[i], 2) for i in range(layers)]
    if step.op == "backward_step":
        return [(layers - 1 - i, ms) for i, ms in enumerate(times)]
    return list(enumerate(times))


# -- common per-layer profile ---------------------------------------------------------------------


def _layers(view: _RunView) -> LayerProfileBuilder:
    builder = LayerProfileBuilder()
    layout = view.run.layout
    builder.layout = {name: v for name, v in (("tp", view.tp), ("pp", layout.pp), ("dp", view.dp), ("world", view.world)) if v}
    offset = 0
    for stage in view.stages:
        layers = view.layers_per_stage(stage)
        first_layer = offset if view.complete else stage * layers
        offset += layers
        for _, iteration in view.stage_iterations(stage, timed=True):
            for step in iteration:
                if step.op not in LAYER_OPS or step.layer_collective is None:
                    continue
                phase = "fwd" if step.op == "forward_step" else "bwd"
                tensor = step.layer_collective
                size = tensor_bytes(tensor.shape, tensor.dtype) or 0
                for index in range(step.layer_collectives):
                    local = index // COLLECTIVES_PER_LAYER
                    if phase == "bwd":
                        local = layers - 1 - local
                    builder.collective(first_layer + local, phase, tensor.group or "-", tensor.kind, size)
                if phase == "fwd":
                    for local in range(layers):
                        builder.layer_pass(first_layer + local)
                for local, ms in _layer_times(step):
                    builder.compute(first_layer + local, phase, ms)
    return builder
