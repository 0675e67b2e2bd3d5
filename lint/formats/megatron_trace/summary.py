"""Compact per-rank summaries of megatron-trace files, built while the file is checked."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any, NamedTuple, TypeVar

from lint.formats.megatron_trace.records import P2P_OPS, DdpGradCommRecord, OpRecord, SubCall, layer_collectives, per_calls
from lint.runs import model as runs


class Collective(NamedTuple):
    """One collective call: its kind (``allreduce``, ``send_forward``, ...), group, tensor."""

    kind: str
    group: str | None
    shape: tuple[int, ...] | None
    dtype: str | None


# all_to_all splits depend on the routing of each rank's tokens: their shapes differ legitimately.
DATA_DEPENDENT = frozenset({"all_to_all"})


class OpStep(NamedTuple):
    """One op record of a rank, reduced to what run rules compare."""

    iteration: int  # optimizer steps seen before this op
    op: str
    batch_id: int | None
    mg_state: str | None
    line: int
    collectives: tuple[Collective, ...]  # the op's own tensor (communication ops) and its sub-operations
    layer_collectives: int  # TP all-reduces of transformer layers (forward_step / backward_step)
    loss_reductions: int  # cross-entropy reductions
    duration: float | None  # ms; None where the writer left it out (layout V0) or wrote a placeholder
    end: float | None  # the op's end time stamp (ms, the rank's own clock), None as for duration
    layer_ends: tuple[float, ...]  # end of each layer collective, in ms after the op started: per-layer timing
    layer_collective: Collective | None  # the tensor a layer collective moves (all of an op's are alike)


class RankSummary(runs.RankSummary):
    """What run rules know of one rank's file (``lost``: its steps were named by a number this process was
    not sent, see :func:`summaries_shared`)."""

    steps: tuple[OpStep, ...]  # shared with the ranks whose steps are equal, in a check (see StepPool)
    iterations: int

    def ops(self, *names: str) -> list[OpStep]:
        return [step for step in self.steps if step.op in names]

    def packed(self) -> list[Any]:
        """The summary as JSON values, for the cache; not its path, so that a moved file keeps its entry.

        Each distinct collective, and each distinct tuple of them, is written once; steps name them by index.
        """
        collectives: dict[Collective | None, int] = {None: -1}
        signatures: dict[tuple[Collective, ...], int] = {}
        steps = []
        for step in self.steps:
            for collective in (*step.collectives, step.layer_collective):
                collectives.setdefault(collective, len(collectives) - 1)
            signature = signatures.setdefault(step.collectives, len(signatures))
            steps.append([*step[:5], signature, *step[6:11], collectives[step.layer_collective]])
        table = [list(collective) for collective in collectives if collective is not None]
        tuples = [[collectives[collective] for collective in signature] for signature in signatures]
        return [self.rank, self.stage, self.line_of_rank, self.iterations, table, tuples, steps]

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled with its steps as plain tuples: a worker sends every rank's summary to the parent, and
        pickling a named tuple costs three times a plain one's (equal collectives stay shared within one message).

        A forked worker of a check sends each distinct step list once: a later summary with the same steps
        names them by the worker's process id and the list's number among those it sent, which the parent
        resolves from the list it received (see :func:`summaries_shared`).  The worker finds a list it sent by
        equality (a dict of the lists): exact, where a digest of their contents could collide or cost more.
        """
        key = None
        if _sent is not None and _pool is not None and _pool.owner != os.getpid():  # a worker forked by the check
            number = _sent.get(self.steps)
            if number is not None:
                return _unpickled, (self.path, self.rank, self.stage, self.line_of_rank, self.iterations, None, (os.getpid(), number))
            key = (os.getpid(), _sent.setdefault(self.steps, len(_sent)))
        return _unpickled, (self.path, self.rank, self.stage, self.line_of_rank, self.iterations, list(map(tuple, self.steps)), key)

    @classmethod
    def unpacked(cls, path: str, packed: list[Any]) -> RankSummary:
        """The inverse of :meth:`packed`, trusting what tlint wrote itself (no validation)."""
        rank, stage, line_of_rank, iterations, table, tuples, steps = packed
        collectives = [_intern(Collective(kind, group, None if shape is None else tuple(shape), dtype)) for kind, group, shape, dtype in table]
        signatures = [_intern(tuple(collectives[index] for index in signature)) for signature in tuples]
        return cls.model_construct(
            path=path,
            rank=rank,
            stage=stage,
            line_of_rank=line_of_rank,
            iterations=iterations,
            steps=_shared(
                OpStep._make((*step[:5], signatures[step[5]], *step[6:10], tuple(step[10]), collectives[step[11]] if step[11] >= 0 else None)) for step in steps
            ),
        )


_op_step = partial(tuple.__new__, OpStep)  # OpStep from a plain tuple, without a Python-level call per step


def _unpickled(
    path: str, rank: int | None, stage: int | None, line_of_rank: int | None, iterations: int, steps: list[tuple[Any, ...]] | None, key: SentKey | None
) -> RankSummary:
    if steps is None:  # sent before by the same worker, in an earlier summary of its messages
        assert key is not None
        known = _pool.sent(key) if _pool is not None else None
        if known is None:  # not as the messages' order promises: the parent checks the file again (engine)
            return RankSummary.model_construct(path=path, rank=rank, stage=stage, line_of_rank=line_of_rank, iterations=iterations, steps=(), lost=True)
        return RankSummary.model_construct(path=path, rank=rank, stage=stage, line_of_rank=line_of_rank, iterations=iterations, steps=known)
    shared = _shared(map(_op_step, steps))
    if key is not None and _pool is not None:
        _pool.received(key, shared)
    return RankSummary.model_construct(path=path, rank=rank, stage=stage, line_of_rank=line_of_rank, iterations=iterations, steps=shared)


class StepPool:
    """The steps of a check's rank summaries as one process keeps them: equal steps are one object, and
    equal step lists one tuple.

    The DP and TP peers of a stage write line-for-line alike files, and a check drops the timings that tell
    them apart (see :class:`Summarizer`): their summaries then hold the same steps, kept once instead of
    once per rank (a step list is hashed once, when its summary arrives).  It lives as long as the check.
    """

    def __init__(self) -> None:
        self.owner = os.getpid()  # forked workers inherit the pool, but what they summarize is sent away: not kept there
        self._steps: dict[OpStep, OpStep] = {}
        self._lists: dict[tuple[OpStep, ...], tuple[OpStep, ...]] = {}
        self._by_key: dict[SentKey, tuple[OpStep, ...]] = {}  # the step lists workers sent, by (worker, number)

    def shared(self, steps: tuple[OpStep, ...]) -> tuple[OpStep, ...]:
        known = self._lists.get(steps)
        if known is None:
            known = tuple(map(self._steps.setdefault, steps, steps))  # keyed by the shared tuple: ``steps`` is let go
            self._lists[known] = known
        return known

    def received(self, key: SentKey, steps: tuple[OpStep, ...]) -> None:
        self._by_key[key] = steps

    def sent(self, key: SentKey) -> tuple[OpStep, ...] | None:
        return self._by_key.get(key)


_pool: StepPool | None = None


SentKey = tuple[int, int]  # a worker's process id, and a list's number among those it sent
_sent: dict[tuple[OpStep, ...], int] | None = None  # in a forked worker of a check: the step lists it sent, numbered


@contextmanager
def summaries_shared() -> Iterator[None]:
    """While in it, the rank summaries this process builds, unpacks or unpickles share equal steps (StepPool),
    and the worker processes it forks send each distinct step list once (:meth:`RankSummary.__reduce__`).

    Forked workers start with no list sent, inherited from here (this process itself always sends whole
    steps).  Other workers (a Dask cluster's, which outlive a check and whose messages may arrive in any
    order) always send the steps.
    """
    global _pool, _sent
    outer, _pool = _pool, StepPool()
    outer_sent, _sent = _sent, {}
    try:
        yield
    finally:
        _pool, _sent = outer, outer_sent


def _shared(steps: Iterable[OpStep]) -> tuple[OpStep, ...]:
    listed = tuple(steps)
    pool = _pool
    return pool.shared(listed) if pool is not None and pool.owner == os.getpid() else listed


def _collective(sub: SubCall) -> Collective:
    shape = None if sub.comm_func in DATA_DEPENDENT else sub.input__shape
    return Collective(sub.comm_func or sub.trace_src_func, sub.group, shape, sub.input__dtype)


# What depends only on the calls is worked out once per distinct sub-operation list.
_collectives = per_calls(lambda calls: _intern(tuple(_collective(call) for call in calls if call.comm_func)))
_losses = per_calls(lambda calls: sum(1 for call in calls if (call.func_name or "").startswith("crossEntropy")))

_interned: dict[Any, Any] = {}  # _collectives hands out interned tuples, made once per distinct call list


def _intern(value: Any) -> Any:
    """Identical signatures share one tuple: ranks of a stage repeat the same collectives."""
    return _interned.setdefault(value, value)


class Summarizer:
    """Streams one file's records into a :class:`RankSummary` (record kinds as rules see them).

    ``timed``: whether steps keep their times (``duration``, ``end``, ``layer_ends``), which `tlint diff`
    compares and no run rule reads; without them, the steps of a stage's DP and TP peers are alike.
    """

    def __init__(self, path: str, *, timed: bool = True) -> None:
        self.path = path
        self.timed = timed
        self.rank: int | None = None
        self.stage: int | None = None
        self.line_of_rank: int | None = None
        self.iteration = 0
        self.steps: list[OpStep] = []

    def check_op(self, record: OpRecord) -> tuple[()]:
        self._first(record)
        subs = record.sub_operations
        collectives = _collectives(subs)
        if record.group_kind is not None or record.op in P2P_OPS:  # the op's own collective comes first
            collectives = _intern((Collective(record.op, record.group_kind, record.input__shape, record.input__dtype), *collectives))
        layers = layer_collectives(record) if record.op in ("forward_step", "backward_step") else ()
        start = None if record.is_placeholder or not self.timed else record.start
        self.steps.append(
            OpStep(
                self.iteration,
                _intern(record.op),
                record.batch_id,
                _intern(record.mg_state),
                record.line,
                collectives,  # interned: equal lists of collectives share one tuple
                len(layers),
                _losses(subs),
                record.duration if start is not None else None,
                record.timestamp if start is not None else None,
                tuple(round(subs.timestamps[index] - start, 2) for index in layers) if start is not None else (),
                _intern(_collective(subs.calls[layers[0]])) if layers else None,
            )
        )
        if record.op == "optimizer_step":
            self.iteration += 1
        return ()

    def check_ddp_grad_comm(self, record: DdpGradCommRecord) -> tuple[()]:
        self._first(record)
        return ()

    def _first(self, record: OpRecord | DdpGradCommRecord) -> None:
        if self.rank is None:
            self.rank, self.stage, self.line_of_rank = record.rank, record.stage_id, record.line

    def result(self) -> RankSummary:
        return RankSummary.model_construct(
            path=self.path,
            rank=self.rank,
            stage=self.stage,
            line_of_rank=self.line_of_rank,
            steps=_shared(self.steps),
            iterations=self.iteration,
        )


Judged = TypeVar("Judged")


class Run(runs.Run[RankSummary]):
    """A run of megatron-trace ranks, whose run rules compare their steps."""

    def alike(self, ranks: Iterable[int]) -> list[tuple[RankSummary, list[int]]]:
        """``ranks`` grouped by their steps, each group as its first rank's summary and its ranks, in the order
        of their first ranks.

        In a check, ranks whose steps are equal hold one tuple (see :class:`~lint.formats.megatron_trace.summary.StepPool`), so
        a run rule that judges each group once costs O(distinct step lists), not O(ranks × steps): a stage's
        DP and TP peers are one group.  Elsewhere equal steps may be several groups, judged alike.
        """
        groups: dict[int, tuple[RankSummary, list[int]]] = {}
        for rank in ranks:
            summary = self.ranks[rank]
            groups.setdefault(id(summary.steps), (summary, []))[1].append(rank)
        return list(groups.values())

    def each_alike(self, judge: Callable[[tuple[OpStep, ...]], Judged]) -> dict[int, Judged]:
        """``judge(steps)`` of every rank, worked out once for the ranks whose steps are one tuple (see :meth:`alike`)."""
        by_steps: dict[int, Judged] = {}
        judged = {}
        for rank, summary in self.ranks.items():
            if id(summary.steps) not in by_steps:
                by_steps[id(summary.steps)] = judge(summary.steps)
            judged[rank] = by_steps[id(summary.steps)]
        return judged
