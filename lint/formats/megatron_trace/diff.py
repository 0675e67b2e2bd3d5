"""``megatron-trace`` runs as diff profiles: one rank file, or the per-rank files of a run directory.

Each file is streamed once into the compact :class:`~lint.formats.megatron_trace.summary.RankSummary` that run rules use
(no record is kept), which the worker reading it reduces further to a :class:`RankDigest`: counts of what
the comparison looks at (value -> how often), per-rank medians and per-step wall times, none of its steps.
The parent merges each digest as it arrives and keeps only its stepless summary, to assemble the
:class:`~lint.runs.model.Run`: its memory grows with the distinct values met, not with ranks × steps.  A
majority's tie goes to the value met first, as it did over all the steps in one list: a digest's counters
list values in the order its rank first meets them; run-wide ones are merged in the run's order of files
(by path), per-stage ones with the rank and place where each value was first met (:class:`_FirstMet`).

Identity of what is compared:

* the knobs (``_config``): tp, pp, dp; seq, mbs and hidden from the p2p tensor ``[s, b, h]``, or without p2p
  (scaling mode) from the embedding's ``[b, s, h]`` and the LM head's ``[s, b, h]`` TP all-reduces; layers (two
  layer all-reduces each; at tp 1 from the gradient all-reduce); experts from the expert all-gather of the
  per-expert token counts; ep, and tp or layers where the trace cannot tell, from the writer's file names;
  gbs = micro-batches·mbs·dp; vpp 1; sp and recompute from the layer all-reduces; config world, dtype,
  vocab (the word embedding's shard × tp), micro-batches per step and steps;
* the writer's mode (``mg_state`` None throughout: the scaling mode, ``profiler_log``) and what follows from
  it (:data:`MODE_SENSITIVE`); moe_mg's two names of the expert gradient all-reduce (:data:`ALIASES`);
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
group has one rank, so the profiler sees no layer collective.  Where a knob stays unknown on one side, the
diff shows it as ``?`` there, not as a change.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property, lru_cache
from operator import itemgetter
from pathlib import Path
from typing import Generic, NamedTuple, TypeVar

from lint.formats.megatron_trace.records import P2P_OPS, tensor_bytes
from lint.formats.megatron_trace.summary import Collective, OpStep, RankSummary, Run
from lint.layout import Knobs, Sizes, StageParameters, megatron_layers, megatron_tp, product
from lint.profile.layers import LayerProfileBuilder
from lint.profile.profile import Items, Profile, Timing, put, typical_message
from lint.profile.side import DiffInputError, Reading, UnreadableSide
from lint.profile.stats import median
from lint.read.source import Source
from lint.runs.assemble import LayoutSources, assemble
from lint.runs.discovery import RunKey, name_layout, run_key, split_by_time

NAME = "megatron-trace"
REALISTIC, SCALING = "realistic_trace", "profiler_log (scaling mode)"
REALISTIC_STATES = frozenset({"warmup", "steady", "cooldown", "finalize"})
# What the scaling mode records otherwise than the realistic one (docs/formats/megatron-trace.md, "Scaling
# mode"): no p2p op (one process simulates one rank); get_batch with group_kind tp; one micro-batch; the
# gradient all-reduces as placeholders, their tensors with the vocabulary padded for tp 1
# (_vocab_size_with_padding pads to make_vocab_size_divisible_by × tensor_model_parallel_size, which is 1
# there: --fake-tp only shapes the layers); collectives that do not communicate, so no time compares.
MODE_SENSITIVE = [
    r"^structure stage \d+ (send|recv)_\w+ ",
    r"^structure stage \d+ get_batch ",
    r"^comm pp ",
    r"^comm tp get_batch ",
    r"^comm (dp dp_allreduce|ep ep_allreduce) ",
    r"^config (vocab|micro-batches|gbs) ",
    r"^timing ",
]
# Two names of one op in two writer versions (moe_mg: "Expert DP gradient synchronization"), and of its group:
# compared under the first, and reported as renamed where the sides differ.
ALIASES = {"ep_dp_allreduce": "exp_dp_allreduce", "ep_dp": "exp_dp"}
LAYER_OPS = {"forward_step": "forward", "backward_step": "backward"}
LAYER_PHASES = {"forward_step": "fwd", "backward_step": "bwd"}  # the common profile's names
COLLECTIVES_PER_LAYER = 2  # Megatron's GPT layer all-reduces after attention and after the MLP, in each direction

Iteration = list[OpStep]
T = TypeVar("T")
K = TypeVar("K")
OpsOfIteration = tuple[tuple[str, int], ...]  # (op, how often the iteration runs it), by op
CallsOfStep = tuple[str, tuple[tuple[str, int], ...]]  # a step's op, and its collectives' names with how often it calls each
CACHED_SIGNATURES = 256  # distinct steps, and iterations, whose tallies a worker keeps (a few MB at most)
_OP = itemgetter(OpStep._fields.index("op"))
# value -> how often met: a Counter's contents, sent to the parent as a plain dict (a Counter unpickles value by value)
Counted = dict[T, int]
_COLLECTIVES = itemgetter(OpStep._fields.index("collectives"))


@dataclass(frozen=True, slots=True)
class RankDigest:
    """What the differ compares of one rank file, worked out by the worker that read it.

    Config and structure count over the rank's steps (``activations``, ``layer_tensors``) or its complete
    iterations; comm over the complete iterations; timing and the per-layer profile over the timed ones.
    """

    summary: RankSummary  # without its steps: what assembling the run needs (path, rank, stage, iterations)
    stepped: bool  # whether it has an op record at all
    activations: Counted[Collective]  # p2p tensors of three dimensions (seq, micro-batch, hidden)
    layer_tensors: Counted[Collective]  # what the steps' layer collectives move
    forward_layer_collectives: Counted[int]  # per forward step
    forward_collectives: bool  # whether any forward step records a collective
    gradient_elements: Counted[int]  # per dp_allreduce call: the parameters of the rank's share of the stage
    vocab_shards: Counted[int]  # per ep_allreduce call: the first dimension of the word embedding's shard
    ops_per_iteration: Counted[OpsOfIteration]
    calls_per_step: Counted[CallsOfStep]
    traffic: dict[str, tuple[float, float]]  # collective name -> median bytes and calls per iteration
    messages: dict[str, Counted[int]]  # collective name -> message bytes -> calls
    dtypes: dict[str, Counted[str]]
    walls: list[float | None]  # each timed iteration's wall time
    durations: dict[str, Counted[float]]  # op -> ms -> steps
    runs_per_iteration: dict[str, Counted[int]]  # op -> times an iteration runs it -> iterations
    layer_times: dict[tuple[str, int], Counted[float]]  # (op, layer within the stage) -> ms -> steps
    layer_messages: Counted[tuple[str, int, str, str, int]]  # (op, layer counted from the step's first, group, kind, bytes) -> calls
    layer_passes: int  # forward steps with layer collectives
    states: frozenset[str | None]  # the mg_state values of its records: None throughout in the scaling mode
    model_tensors: Counted[tuple[str, tuple[int, ...]]]  # (op, shape) of the steps' 3-dimensional TP all-reduces: [b, s, h] forward, [s, b, h] backward
    expert_counts: Counted[int]  # per expert all-gather: the experts whose token counts it gathers
    backward_layer_collectives: Counted[int]  # per backward step


def load(path: str, sources: list[Source], reading: Reading) -> Profile:
    view = _read(path, sources, reading)
    profile = Profile(
        format=NAME,
        path=path,
        files=len(sources),
        units={"time": "ms (trace durations)", "comm": f"bytes = shape × dtype size ({view.dtype or 'no tensors'})"},
    )
    _config(view, profile)
    profile.mode = view.mode
    profile.mode_sensitive = MODE_SENSITIVE
    _structure(view, profile.structure)
    profile.total_bytes = _comm(view, profile.comm)
    profile.timing = _timing(view)
    profile.step_key = "step" if "step" in profile.timing else None
    profile.plot_keys = [f"stage {stage} step" for stage in view.stages if f"stage {stage} step" in profile.timing]
    profile.common = _layers(view).build(NAME, path, len(sources), profile.units)
    profile.stages = len(view.stages)
    profile.stage_common = _layers(view, folded=True).build(NAME, path, len(sources), profile.units)
    _one_spelling(profile)
    return profile


def _one_spelling(profile: Profile) -> None:
    """Items named by an alias (:data:`ALIASES`) are keyed by the canonical name; the profile notes the
    spelling its files use."""
    for canonical, alias in ALIASES.items():
        pattern = re.compile(rf"\b({re.escape(canonical)}|{re.escape(alias)})\b")
        for items in (profile.structure, profile.comm, profile.timing):
            for key in [key for key in items if pattern.search(key)]:
                found = pattern.search(key)
                assert found is not None
                if canonical.endswith("allreduce"):  # the op names it; its group follows
                    profile.spellings[canonical] = found.group(1)
                items[pattern.sub(canonical, key)] = items.pop(key)  # type: ignore[assignment]


def _read(path: str, sources: list[Source], reading: Reading) -> _RunView:
    named = [run_key(source.path, reading.rank_regex) for source in sources]
    stems = sorted({name.key.stem for name in filter(None, named)})
    runs = [
        f"{key.stem}*" + (f" (run of {key.started})" if key.started else "")
        for stem in stems
        for key in split_by_time(n for n in named if n is not None and n.key.stem == stem)
    ]
    if len(runs) > 1:
        raise DiffInputError(f"{path}: holds the files of {len(runs)} runs ({', '.join(runs)}); name one")
    # Read in the order the run takes its files (by path): the first file of a rank is the rank's, the others
    # are duplicates, as when the run is assembled.
    order = sorted(range(len(sources)), key=lambda index: sources[index].display)
    merged = _Merged()
    files: list[tuple[RankSummary, int]] = []
    stepped = False
    for index, digest in zip(order, reading.each(_digest, (NAME, reading.read_summary), [sources[index] for index in order]), strict=True):
        name = named[index]
        rank = name.rank if name else index  # a rank named by neither records nor file name is numbered by its place
        files.append((digest.summary, rank))
        stepped |= digest.stepped
        merged.add(digest, rank)
    if not stepped:
        raise UnreadableSide(f"{path}: no {NAME} record could be read", NAME)
    # The run's stem: what the writer's file names state of the layout (wd, tp, pp, exp, numl) is a claim
    key = RunKey(str(Path(path)), stems[0] if len(stems) == 1 else "")
    run = assemble(key, files, frozenset(s.display for s in sources), LayoutSources(), Run, minimum_ranks=1)
    assert run is not None
    return _RunView(run, merged, key.stem)


def _digest(reader: tuple[str, Callable[[Source, str], tuple[RankSummary, bool]]], source: Source) -> RankDigest:
    """A rank file's digest (run on the backend: ``reader`` is the format's name and the differ's
    ``read_summary``); its syntax errors are the side's check's to report."""
    format_name, read_summary = reader
    summary, _ = read_summary(source, format_name)
    return _digested(summary)


def _digested(summary: RankSummary) -> RankDigest:
    iterations = _iterations(summary)
    steps = [step for iteration in iterations for step in iteration]
    forwards = [step for step in steps if step.op == "forward_step"]
    collectives = [c for step in steps for c in step.collectives]
    timed = iterations[1:] if len(iterations) >= 2 else iterations  # all but a warm-up first one
    walls, durations, runs_per_iteration, layer_times = _timed(timed)
    layer_messages, layer_passes = _layer_collectives(timed)
    traffic, messages, dtypes = _traffic(iterations)
    return RankDigest(
        summary=summary.model_copy(update={"steps": ()}),
        stepped=bool(summary.steps),
        activations=dict(Counter(c for step in summary.steps for c in step.collectives if c.kind in P2P_OPS and c.shape and len(c.shape) == 3)),
        layer_tensors=dict(Counter(step.layer_collective for step in summary.steps if step.layer_collective is not None)),
        forward_layer_collectives=dict(Counter(step.layer_collectives for step in forwards)),
        forward_collectives=any(step.collectives for step in forwards),
        gradient_elements=dict(Counter(_elements(c) for c in collectives if c.kind == "dp_allreduce")),
        vocab_shards=dict(Counter(c.shape[0] for c in collectives if c.kind == "ep_allreduce" and c.shape)),
        ops_per_iteration=dict(Counter(tuple(sorted(Counter(step.op for step in iteration).items())) for iteration in iterations)),
        calls_per_step=dict(_calls_per_step(steps)),
        traffic=traffic,
        messages=_plain(messages),
        dtypes=_plain(dtypes),
        walls=walls,
        durations=_plain(durations),
        runs_per_iteration=_plain(runs_per_iteration),
        layer_times=_plain(layer_times),
        layer_messages=dict(layer_messages),
        layer_passes=layer_passes,
        states=frozenset(step.mg_state for step in summary.steps),
        model_tensors=dict(Counter((step.op, shape) for step in steps if step.op in LAYER_OPS for c in step.collectives if (shape := _model_tensor(c)))),
        expert_counts=dict(Counter(c.shape[0] for c in collectives if c.kind == "allgather" and c.group == "exp" and c.shape and len(c.shape) == 1)),
        backward_layer_collectives=dict(Counter(step.layer_collectives for step in steps if step.op == "backward_step")),
    )


def _model_tensor(collective: Collective) -> tuple[int, ...] | None:
    """The shape of a TP all-reduce of a whole activation, ``[b, s, h]`` or ``[s, b, h]``: the embedding's in the
    first stage's forward (``_ReduceFromModelParallelRegion``), the LM head's input gradient in the last stage's
    backward; None for any other collective."""
    shape = collective.shape
    return shape if collective.kind == "allreduce" and collective.group == "tp" and shape is not None and len(shape) == 3 else None


def _plain(counters: Mapping[K, Counter[T]]) -> dict[K, Counted[T]]:
    return {key: dict(counter) for key, counter in counters.items()}


def _iterations(summary: RankSummary) -> list[Iteration]:
    """The rank's complete steps (ending in optimizer_step), or what there is of one when none ended."""
    split: dict[int, Iteration] = defaultdict(list)
    for step in summary.steps:
        split[step.iteration].append(step)
    complete = [split[i] for i in range(summary.iterations)]
    return complete or list(split.values())[:1]


def _majority(counts: Counter[T]) -> T | None:
    """The value counted most often; on a tie, the one met first."""
    return counts.most_common(1)[0][0] if counts else None


def _majority_count(groups: Counter[tuple[tuple[str, int], ...]], name: str) -> int | None:
    """The count of ``name`` most groups have (0 where a group lacks it), a group weighted by how often it was met."""
    counts: Counter[int] = Counter()
    for group, times in groups.items():
        counts[dict(group).get(name, 0)] += times
    return _majority(counts)


class _FirstMet(Generic[T]):
    """Counters merged in any order, each value with where it was first met: ``order`` (a rank, or a stage
    and a rank) and its place in that counter.  :meth:`ordered` lists the values as merging the counters
    in that order would have: the first met first."""

    def __init__(self) -> None:
        self.counts: Counter[T] = Counter()
        self.first: dict[T, tuple[int, ...]] = {}

    def add(self, counter: Mapping[T, int], *order: int) -> None:
        for place, (value, times) in enumerate(counter.items()):
            self.counts[value] += times
            met = (*order, place)
            known = self.first.get(value)
            if known is None or met < known:
                self.first[value] = met

    def ordered(self) -> Counter[T]:
        return Counter({value: self.counts[value] for value in sorted(self.first, key=self.first.__getitem__)})


class _Stage:
    """The digests of one pipeline stage's ranks, merged as they arrive: what they count is kept by value, so
    the stage takes memory by the distinct values its ranks meet, not by ranks.  Majorities break ties as
    over the stage's steps listed rank by rank (see :class:`_FirstMet`)."""

    def __init__(self) -> None:
        self.forward_layer_collectives: _FirstMet[int] = _FirstMet()
        self.backward_layer_collectives: _FirstMet[int] = _FirstMet()
        self.gradient_elements: _FirstMet[int] = _FirstMet()
        self.vocab_shards: _FirstMet[int] = _FirstMet()
        self.ops_per_iteration: _FirstMet[OpsOfIteration] = _FirstMet()
        self.calls_per_step: _FirstMet[CallsOfStep] = _FirstMet()
        self.traffic_names: _FirstMet[str] = _FirstMet()  # the order its bytes per step are added up in
        self.median_bytes: dict[str, Counter[float]] = defaultdict(Counter)  # name -> a rank's median per iteration -> ranks
        self.median_calls: dict[str, Counter[float]] = defaultdict(Counter)
        self.walls: Counter[float] = Counter()
        self.durations: dict[str, Counter[float]] = defaultdict(Counter)
        self.runs_per_iteration: dict[str, Counter[int]] = defaultdict(Counter)
        self.layer_times: dict[tuple[str, int], Counter[float]] = defaultdict(Counter)
        self.layer_messages: Counter[tuple[str, int, str, str, int]] = Counter()
        self.layer_passes = 0

    def add(self, digest: RankDigest, rank: int) -> None:
        self.forward_layer_collectives.add(digest.forward_layer_collectives, rank)
        self.backward_layer_collectives.add(digest.backward_layer_collectives, rank)
        self.gradient_elements.add(digest.gradient_elements, rank)
        self.vocab_shards.add(digest.vocab_shards, rank)
        self.ops_per_iteration.add(digest.ops_per_iteration, rank)
        self.calls_per_step.add(digest.calls_per_step, rank)
        self.traffic_names.add(dict.fromkeys(digest.traffic, 1), rank)
        for name, (moved, calls) in digest.traffic.items():
            self.median_bytes[name][moved] += 1
            self.median_calls[name][calls] += 1
        self.walls.update(wall for wall in digest.walls if wall is not None)
        for op, durations in digest.durations.items():
            self.durations[op].update(durations)
        for op, runs in digest.runs_per_iteration.items():
            self.runs_per_iteration[op].update(runs)
        for key, times in digest.layer_times.items():
            self.layer_times[key].update(times)
        self.layer_messages.update(digest.layer_messages)
        self.layer_passes += digest.layer_passes

    @cached_property
    def layers(self) -> int:
        """ceil(layer collectives / 2) of the stage's forward step: a layer that lost a collective still counts."""
        counts = self.forward_layer_collectives.ordered()
        return math.ceil(counts.most_common(1)[0][0] / COLLECTIVES_PER_LAYER) if counts else 0


class _Merged:
    """Every rank's digest merged as it arrives, the files in the order the run takes them (by path): the first
    file of a rank is the rank's, a later one a duplicate, left out.  What is counted over the whole run is
    merged in that order; what is counted per stage by rank (:class:`_Stage`).  A rank whose records name no
    stage waits for the run's layout to tell it."""

    def __init__(self) -> None:
        self.ranks: set[int] = set()
        self.stages: dict[int, _Stage] = defaultdict(_Stage)
        self.unstaged: list[tuple[RankDigest, int]] = []
        self.activations: Counter[Collective] = Counter()
        self.layer_tensors: Counter[Collective] = Counter()
        self.ops_per_iteration: Counter[OpsOfIteration] = Counter()
        self.forwards = False  # some rank has a forward step...
        self.forward_layer_collectives = False  # ... one with a layer collective...
        self.forward_collectives = False  # ... one with any collective
        self.messages: dict[str, Counter[int]] = defaultdict(Counter)
        self.dtypes: dict[str, _FirstMet[str]] = defaultdict(_FirstMet)  # over the stages in order, each by rank
        self.slowest: dict[int, float] = {}  # per timed step: the slowest rank's wall time...
        self.walls_of_step: Counter[int] = Counter()  # ... and how many ranks have one
        self.states: set[str | None] = set()
        self.model_tensors: Counter[tuple[str, tuple[int, ...]]] = Counter()
        self.expert_counts: Counter[int] = Counter()

    def add(self, digest: RankDigest, named_rank: int) -> None:
        summary = digest.summary
        rank = summary.rank if summary.rank is not None else named_rank
        if rank in self.ranks:
            return
        self.ranks.add(rank)
        self.activations.update(digest.activations)
        self.layer_tensors.update(digest.layer_tensors)
        self.states |= digest.states
        self.model_tensors.update(digest.model_tensors)
        self.expert_counts.update(digest.expert_counts)
        self.ops_per_iteration.update(digest.ops_per_iteration)
        self.forwards |= bool(digest.forward_layer_collectives)
        self.forward_layer_collectives |= any(digest.forward_layer_collectives.keys() - {0})
        self.forward_collectives |= digest.forward_collectives
        for name, sizes in digest.messages.items():
            self.messages[name].update(sizes)
        for index, wall in enumerate(digest.walls):
            if wall is not None:
                self.slowest[index] = max(self.slowest.get(index, wall), wall)
                self.walls_of_step[index] += 1
        if summary.stage is None:
            self.unstaged.append((digest, rank))
        else:
            self._staged(digest, rank, summary.stage)

    def _staged(self, digest: RankDigest, rank: int, stage: int) -> None:
        self.stages[stage].add(digest, rank)
        for name, counted in digest.dtypes.items():
            self.dtypes[name].add(counted, stage, rank)

    def place(self, run: Run) -> dict[int, _Stage]:
        """The stages in order, once ``run`` tells the stage of the ranks whose records named none."""
        for digest, rank in self.unstaged:
            self._staged(digest, rank, run.stage_of(rank))
        self.unstaged = []
        return dict(sorted(self.stages.items()))


class _RunView:
    """The run's stages, merged from the digests of their ranks, with the model's tensors."""

    def __init__(self, run: Run, merged: _Merged, stem: str) -> None:
        self.run = run
        self.merged = merged
        self.stated = _name_settings(stem)
        self.stages = merged.place(run)
        self.activation = _majority(merged.activations)
        self.layer_tensor = _majority(merged.layer_tensors)
        tensor = self.activation or self.layer_tensor
        self.dtype = _short(tensor.dtype) if tensor else None
        self.hidden = tensor.shape[-1] if tensor and tensor.shape else None
        self.seq, self.mbs = self._tokens()

    def _tokens(self) -> tuple[int | None, int | None]:
        """(seq, micro-batch size) from the pipeline's p2p tensor ``[s, b, h]``; a run without p2p (scaling mode,
        no pipeline) from the embedding's ``[b, s, h]`` or the LM head's ``[s, b, h]`` TP all-reduce."""
        if self.activation is not None and self.activation.shape:
            seq, mbs, _ = self.activation.shape
            return seq, mbs
        tensor = _majority(self.merged.model_tensors)
        if tensor is None:
            return None, None
        op, (first, second, _) = tensor
        return (second, first) if op == "forward_step" else (first, second)

    @cached_property
    def tp(self) -> int | None:
        return _infer_tp(self) or self.run.layout.tp  # else as the writer's file names state it

    @property
    def world(self) -> int | None:
        """The world size, when every rank of it has a file (a lone rank file does not tell it) or the writer's
        file names state it."""
        layout = self.run.layout
        stated = any(claim.dimension == "world" and claim.source == "the file names" for claim in layout.claims)
        return layout.world if stated or len(self.run.ranks) == layout.world else None

    @property
    def dp(self) -> int | None:
        return Sizes(tp=self.tp, pp=self.run.layout.pp, world=self.world).completed().dp

    @property
    def complete(self) -> bool:
        """Every stage of the pipeline is present: model-wide numbers (layers, offsets) are known.  The counts are
        compared first: pp comes from stage ids and file names, any integer, never to be listed out."""
        pp = self.run.layout.pp
        return len(self.stages) == pp and list(self.stages) == list(range(pp))

    @cached_property
    def mode(self) -> str | None:
        """The writer's mode: the scaling mode (``profiler_log``) writes ``mg_state=None`` on every record, the
        realistic one (``realistic_trace``) the schedule's phase (docs/formats/megatron-trace.md)."""
        states = self.merged.states
        if states == {None}:
            return SCALING
        return REALISTIC if states & REALISTIC_STATES else None

    @cached_property
    def vocab_shard(self) -> int | None:
        """The first dimension of the word embedding's TP shard (the embedding gradient all-reduce)."""
        return next((shard for stage in self.stages.values() if (shard := _majority(stage.vocab_shards.ordered())) is not None), None)


def _short(dtype: str | None) -> str | None:
    return dtype.removeprefix("torch.") if dtype else None


# -- config ---------------------------------------------------------------------------------------


def _config(view: _RunView, profile: Profile) -> None:
    """The knobs and the other settings (world, dtype, vocab, micro-batches, steps)."""
    layout = view.run.layout
    merged = view.merged
    micro_batches = _majority_count(merged.ops_per_iteration, "forward_step")
    tp, dp, mbs = view.tp, view.dp, view.mbs or _int(view.stated.get("mbs"))
    forward = _majority(Counter({count: n for stage in view.stages.values() for count, n in stage.forward_layer_collectives.counts.items()}))
    backward = _majority(Counter({count: n for stage in view.stages.values() for count, n in stage.backward_layer_collectives.counts.items()}))
    knobs = Knobs(
        tp=tp,
        pp=layout.pp,
        dp=dp,
        ep=layout.ep,  # as the file names state it (moe_mg's `exp{ep}`): the trace's groups do not tell it
        # Megatron turns sequence parallelism off at tp 1 (arguments.py); with it, layers reduce-scatter instead
        # of all-reducing (RowParallelLinear): layer all-reduces mean none.
        sp=False if tp == 1 or forward else None,
        vpp=1,  # the profiler records the non-interleaved 1F1B schedule only (schedules.py): one model chunk per stage
        mbs=mbs,
        seq=view.seq,
        gbs=product(micro_batches or None, mbs, dp),
        layers=_layers_of(view) or layout.layers,
        hidden=view.hidden,
        experts=_majority(merged.expert_counts) or _int(view.stated.get("experts")),
        # Recomputation runs each layer's forward again inside the backward step: twice its layer all-reduces.
        recompute={forward: False, 2 * forward: True}.get(backward) if forward and backward else None,
        phase="train",
    )
    profile.knobs = knobs.values()
    vocab = view.vocab_shard * tp if view.vocab_shard and tp else None
    settings = {"world": view.world, "dtype": view.dtype, "vocab": vocab, "micro-batches": micro_batches or None, "steps": _steps(view)}
    for key, known in [*knobs.values().items(), *settings.items()]:
        if known is not None:
            profile.config[key] = {"": known}


def _steps(view: _RunView) -> int | None:
    return max((summary.iterations for summary in view.run.ranks.values()), default=0) or None


def _int(value: object) -> int | None:
    return value if isinstance(value, int) else None


def _name_settings(stem: str) -> dict[str, int]:
    """What the writer's file names state beyond the layout (``name_layout``): the micro-batch size (``bs``) and
    moe_mg's expert count (``expNum``)."""
    return {KEYS_OF_NAME[match.group(1)]: int(match.group(2)) for match in _NAME_SETTINGS.finditer(stem)} if name_layout(stem) else {}


_NAME_SETTINGS = re.compile(r"(?:^|_)(bs|expNum)([0-9]+)(?=_|$)")
KEYS_OF_NAME = {"bs": "mbs", "expNum": "experts"}


def _layers_of(view: _RunView) -> int | None:
    """The model's layers, where every stage is present: two layer all-reduces each (tp > 1), or at tp 1, where
    Megatron skips them, from each stage's gradient all-reduce (:func:`lint.layout.megatron_layers`)."""
    if not view.complete:
        return None
    if view.tp != 1:
        return sum(stage.layers for stage in view.stages.values()) or None
    return megatron_layers(view.hidden, view.run.layout.pp, _stage_parameters(view), view.seq, 1) if view.hidden else None


def _infer_tp(view: _RunView) -> int | None:
    hidden = view.hidden
    if not hidden:
        return None
    merged = view.merged
    if merged.forwards and not merged.forward_layer_collectives and merged.forward_collectives:
        return 1
    return megatron_tp(hidden, view.run.layout.pp, _stage_parameters(view), view.seq)


def _stage_parameters(view: _RunView) -> list[StageParameters]:
    """Each stage's layers, gradient elements and vocabulary shard, as most of its ranks show them."""
    return [
        StageParameters(stage, merged.layers, _majority(merged.gradient_elements.ordered()) or 0, _majority(merged.vocab_shards.ordered()))
        for stage, merged in view.stages.items()
    ]


def _elements(collective: Collective) -> int:
    return math.prod(collective.shape) if collective.shape else 0


# -- structure ------------------------------------------------------------------------------------


def _calls_per_step(steps: list[OpStep]) -> Counter[CallsOfStep]:
    return Counter(map(_calls_of_step, map(_OP, steps), map(_COLLECTIVES, steps)))


@lru_cache(maxsize=CACHED_SIGNATURES)
def _calls_of_step(op: str, collectives: tuple[Collective, ...]) -> CallsOfStep:
    """Worked out once per distinct step in a worker: the ranks of a stage repeat their steps."""
    return op, tuple(sorted(Counter(_name(c) for c in collectives if c.kind != op).items()))


def _structure(view: _RunView, structure: Items) -> None:
    for stage, merged in view.stages.items():
        ops_per_iteration = merged.ops_per_iteration.ordered()
        calls_per_step = merged.calls_per_step.ordered()
        for op in sorted({op for ops in ops_per_iteration for op, _ in ops}):
            put(structure, f"stage {stage} {op}", per_step=_majority_count(ops_per_iteration, op))
            calls = Counter({names: times for (of, names), times in calls_per_step.items() if of == op})
            for name in sorted({name for names in calls for name, _ in names}):
                put(structure, f"stage {stage} {op} {name}", per_call=_majority_count(calls, name))


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


@lru_cache(maxsize=CACHED_SIGNATURES)
def _tally(iteration: tuple[tuple[Collective, ...], ...]) -> _Tally:
    """Worked out once per distinct iteration (its steps' collectives) in a worker: ranks repeat their iterations."""
    tally = _Tally(Counter(), Counter(), defaultdict(Counter), defaultdict(Counter))
    for collectives in iteration:
        for c in collectives:
            name = _name(c)
            size = tensor_bytes(c.shape, c.dtype)
            tally.calls[name] += 1
            tally.moved[name] += size or 0
            if size is not None:
                tally.sizes[name][size] += 1
            if c.dtype:
                tally.dtypes[name][_short(c.dtype) or ""] += 1
    return tally


def _traffic(iterations: list[Iteration]) -> tuple[dict[str, tuple[float, float]], dict[str, Counter[int]], dict[str, Counter[str]]]:
    """One rank's median bytes and calls per iteration by collective name, its message sizes and dtypes."""
    bytes_per_step: dict[str, Counter[int]] = defaultdict(Counter)
    calls_per_step: dict[str, Counter[int]] = defaultdict(Counter)
    messages: dict[str, Counter[int]] = defaultdict(Counter)
    dtypes: dict[str, Counter[str]] = defaultdict(Counter)
    for iteration in iterations:
        tally = _tally(tuple(map(_COLLECTIVES, iteration)))
        for name, sizes in tally.sizes.items():
            messages[name].update(sizes)
        for name, counted in tally.dtypes.items():
            dtypes[name].update(counted)
        for name, count in tally.calls.items():
            bytes_per_step[name][tally.moved[name]] += 1
            calls_per_step[name][count] += 1
    traffic = {name: (median(bytes_per_step[name]), median(calls)) for name, calls in calls_per_step.items()}
    return traffic, dict(messages), dict(dtypes)


def _comm(view: _RunView, comm: Items) -> float:
    """Fills ``comm``; returns the bytes per step of all kinds together."""
    step_bytes: dict[str, float] = defaultdict(float)  # sums of medians
    step_calls: dict[str, float] = defaultdict(float)
    for stage in view.stages.values():
        for name in stage.traffic_names.ordered():
            step_bytes[name] += median(stage.median_bytes[name])
            step_calls[name] += median(stage.median_calls[name])
    for name in sorted(step_calls):
        put(
            comm,
            name,
            bytes_per_step=step_bytes[name] or None,
            calls_per_step=step_calls[name],
            message_bytes=typical_message(view.merged.messages[name]),
            dtype=_majority(view.merged.dtypes[name].ordered()),
        )
    return float(sum(step_bytes.values()))


# -- timing ---------------------------------------------------------------------------------------


def _wall_time(iteration: Iteration) -> float | None:
    timed = [(step.end, step.duration) for step in iteration if step.end is not None and step.duration is not None]
    if not timed:
        return None
    (first_end, first_duration), (last_end, _) = timed[0], timed[-1]
    return last_end - (first_end - first_duration)


def _timed(
    iterations: list[Iteration],
) -> tuple[list[float | None], dict[str, Counter[float]], dict[str, Counter[int]], dict[tuple[str, int], Counter[float]]]:
    """One rank's wall time per iteration, op durations, op runs per iteration and layer times."""
    durations: dict[str, Counter[float]] = defaultdict(Counter)
    runs_per_iteration: dict[str, Counter[int]] = defaultdict(Counter)
    layer_times: dict[tuple[str, int], Counter[float]] = defaultdict(Counter)
    for iteration in iterations:
        for op, count in Counter(step.op for step in iteration).items():
            runs_per_iteration[op][count] += 1
        for step in iteration:
            if step.duration is None:
                continue
            durations[step.op][step.duration] += 1
            for layer, ms in _layer_times(step):
                layer_times[step.op, layer][ms] += 1
    return [_wall_time(iteration) for iteration in iterations], dict(durations), dict(runs_per_iteration), dict(layer_times)


def _timing(view: _RunView) -> dict[str, Timing]:
    samples: dict[str, Counter[float]] = defaultdict(Counter)
    occurrences: dict[str, Counter[int]] = defaultdict(Counter)  # per op key: how often a rank runs it per step
    for stage, merged in view.stages.items():
        if merged.walls:
            samples[f"stage {stage} step"] = merged.walls
        for op, runs in merged.runs_per_iteration.items():
            occurrences[f"op {op}"].update(runs)
            occurrences[f"stage {stage} {op}"] = runs
        for op, durations in merged.durations.items():
            samples[f"op {op}"].update(durations)
            samples[f"stage {stage} {op}"] = durations
        for (op, layer), times in merged.layer_times.items():
            samples[f"stage {stage} layer {layer} {LAYER_OPS[op]}"] = times

    def per_step(key: str) -> float:
        # a layer runs as often as the forward or backward step that holds it
        op_key = re.sub(r" layer \d+ (forward|backward)$", lambda m: f" {m.group(1)}_step", key)
        return median(occurrences[op_key]) if occurrences.get(op_key) else 1.0

    timing = {key: Timing(counts=counts, per_step=per_step(key)) for key, counts in samples.items()}
    ranks = len(view.run.ranks)
    steps = [wall for index, wall in sorted(view.merged.slowest.items()) if view.merged.walls_of_step[index] == ranks]
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


def _layer_collectives(iterations: list[Iteration]) -> tuple[Counter[tuple[str, int, str, str, int]], int]:
    """One rank's layer collectives, by op, layer counted in the order the step meets them, group, kind and
    bytes; and its forward steps that have them (the passes of the stage's layers)."""
    calls: Counter[tuple[str, int, str, str, int]] = Counter()
    passes = 0
    for iteration in iterations:
        for step in iteration:
            tensor = step.layer_collective
            if step.op not in LAYER_OPS or tensor is None:
                continue
            size = tensor_bytes(tensor.shape, tensor.dtype) or 0
            for index in range(step.layer_collectives):
                calls[step.op, index // COLLECTIVES_PER_LAYER, tensor.group or "-", tensor.kind, size] += 1
            passes += step.op == "forward_step"
    return calls, passes


def _layers(view: _RunView, *, folded: bool = False) -> LayerProfileBuilder:
    """The per-layer profile, layers numbered across the model; ``folded``: numbered within each stage, every
    stage's layers on one stage's (to compare with a side that covers one stage, as an AICB workload does)."""
    builder = LayerProfileBuilder()
    offset = 0
    for stage, merged in view.stages.items():
        layers = merged.layers
        first_layer = 0 if folded else offset if view.complete else stage * layers
        offset += layers
        for (op, met, group, kind, size), calls in merged.layer_messages.items():
            local = layers - 1 - met if op == "backward_step" else met
            builder.collective(first_layer + local, LAYER_PHASES[op], group, kind, size, calls)
        if merged.layer_passes:
            for local in range(layers):
                builder.layer_pass(first_layer + local, merged.layer_passes)
        for (op, local), times in merged.layer_times.items():
            for ms, steps in times.items():
                builder.compute(first_layer + local, LAYER_PHASES[op], ms, steps)
    return builder
