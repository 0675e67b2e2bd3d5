from array import array
from collections import Counter, defaultdict
from collections.abc import Iterator
from itertools import pairwise
from typing import NamedTuple

from lint.formats.megatron_trace.records import MICRO_BATCH_OPS, OpRecord
from lint.models.common import SyntaxProblem
from lint.rule import Rule, Severity, Violation


class _Step(NamedTuple):
    line: int
    op: str
    batch_id: int


class _Iteration:
    """One iteration's micro-batch steps, column by column, and whether each op's batch ids counted up so far."""

    def __init__(self, number: int) -> None:
        self.number = number
        self.step_lines = array("q")
        self.ops: list[str] = []  # the parser's interned op names
        self.batches = array("q")
        self.first: dict[str, int] = {}  # op -> its first batch id
        self.next: dict[str, int] = {}  # op -> the batch id its next record should carry
        self.regular = True
        self.unreadable = False  # a line of it is a syntax error (TL001): a step may have been on it

    def steps(self) -> list[_Step]:
        return list(map(_Step, self.step_lines, self.ops, self.batches))

    def is_complete(self) -> bool:
        """Every op counted up without a gap over one and the same span of micro-batches."""
        return self.regular and len(set(self.first.values())) == 1 and len(set(self.next.values())) == 1


class MicroBatchSteps(Rule):
    """A micro-batch lacks a step its rank runs for every other micro-batch, has one twice, or has no forward before its backward.

    The 1F1B schedule (``megatron/core/pipeline_parallel/schedules.py``
    ``forward_backward_pipelining_without_interleaving``) runs, for every micro-batch of an iteration,
    the same steps on a given stage: ``forward_step`` and ``backward_step``; ``recv_forward`` and
    ``send_backward`` unless it is the first stage; ``send_forward`` and ``recv_backward`` unless it is
    the last; ``get_batch`` and ``loss_func`` where the stage reads data or computes the loss.  The
    writer numbers each op's records one by one (``micro_batch_ids_dict[name_cmd] += 1`` in
    ``megatron/profiler/cmd.py`` ``CMD.__enter__`` and ``no_trace_update``), so within an iteration each
    op this rank writes carries every batch id of the iteration once.  A missing one is reported where
    the writer would have written it: after the step that precedes it in the other micro-batches.  An
    iteration with a line that is no record (a syntax error, TL001) is not judged: the lost step is
    that line.

    A micro-batch's ``backward_step`` comes after its ``forward_step``, in the file of the rank alone: the
    backward pass runs on the output tensor the forward pass made.  Realistic mode: the training script's
    ``forward_step`` records ``forward_step`` around the model's forward (``pretrain_llama.py``;
    ``pretrain_gpt.py`` before b96f357), and every schedule of
    ``megatron/core/pipeline_parallel/schedules.py`` runs ``backward_step`` on an output tensor its
    ``forward_step`` saved (``input_tensors``/``output_tensors``), so the k-th backward step of an
    iteration follows at least k forward steps; the trace starts at an iteration (``train`` in
    ``megatron/training/training.py`` resets the counters every iteration and drops the records of those
    before ``trace_start``).  Scaling mode (``profiler_log``): ``training.py`` records ``sim_forward_step``
    (``megatron/profiler/utils.py``) and then ``backward_step``.  So a ``backward_step`` without a
    ``forward_step`` of its micro-batch before it is reported from the file alone, whatever the
    micro-batch count (one included), and whether its sibling ranks are checked with it or not.

    Why it matters:
        A lost ``backward_step`` (or forward, or one half of a batched p2p call) leaves its micro-batch
        with a forward pass and no backward pass: the simulated iteration is one step short, and every
        per-micro-batch pairing after it (forward/backward, send/receive) shifts by one.

    Example:
        micro-batches 0-1 of a rank; the backward_step of micro-batch 1 is lost, line 9 is its recv_backward
        -> micro-batch 1 has no backward_step (iteration 0): this rank runs one for each of micro-batches 0-1;
        it belongs after recv_backward of micro-batch 1 (line 9)
    """

    code = "TL116"
    name = "micro-batch-steps"
    severity = Severity.ERROR
    formats = ("megatron-trace",)

    def __init__(self, options=None) -> None:  # type: ignore[no-untyped-def]
        super().__init__(options)
        self.iteration = _Iteration(0)

    def check_op(self, record: OpRecord) -> list[Violation] | tuple[()]:
        current = self.iteration
        if record.op == "optimizer_step":
            self.iteration = _Iteration(current.number + 1)
            return list(self._close(current))
        if record.op in MICRO_BATCH_OPS and record.batch_id is not None and not record.is_placeholder:
            op, batch = record.op, record.batch_id
            current.step_lines.append(record.line)
            current.ops.append(op)
            current.batches.append(batch)
            expected = current.next.get(op)
            if expected is None:
                current.first[op] = batch
            elif batch != expected:
                current.regular = False
            current.next[op] = batch + 1
            if op == "backward_step" and not current.first.get("forward_step", batch + 1) <= batch < current.next.get("forward_step", batch):
                current.regular = False  # no forward_step of its micro-batch so far (forward ids count up while regular)
        return ()

    def check_syntax(self, problem: SyntaxProblem) -> tuple[()]:
        self.iteration.unreadable = True  # a record of it may be on that line
        return ()

    def finish(self) -> Iterator[Violation]:
        yield from self._close(self.iteration)

    def _close(self, iteration: _Iteration) -> Iterator[Violation]:
        # Most iterations are complete: only the others are looked at record by record.  A step lost
        # to an unreadable line is that line's syntax error, reported once (TL001).
        if iteration.ops and not iteration.is_complete() and not iteration.unreadable:
            yield from self._check_iteration(iteration)

    def _check_iteration(self, iteration: _Iteration) -> Iterator[Violation]:
        steps = iteration.steps()
        first = min(step.batch_id for step in steps)
        last = max(step.batch_id for step in steps)
        if last - first > 100_000:  # a wild batch id is TL114's or TL001's concern, not a gap to list
            return
        where: dict[tuple[str, int], list[int]] = defaultdict(list)
        for step in steps:
            where[step.op, step.batch_id].append(step.line)
        yield from self._backward_before_forward(steps, iteration.number, where)
        predecessor = self._predecessors(steps)
        for op in sorted({step.op for step in steps}):
            for batch in range(first, last + 1):
                lines = where.get((op, batch), [])
                for extra in lines[1:]:
                    yield Violation(
                        extra,
                        1,
                        f"a second {op} of micro-batch {batch} (iteration {iteration.number}; the first is on line {lines[0]}): the writer numbers each op's records one by one",
                    )
                if not lines:
                    yield self._missing(op, batch, iteration, (first, last), where, predecessor.get(op))

    @staticmethod
    def _backward_before_forward(steps: list[_Step], iteration: int, where: dict[tuple[str, int], list[int]]) -> Iterator[Violation]:
        """The backward steps with no forward_step of their micro-batch before them.  Where the rank ran other
        micro-batches' forward steps, a micro-batch without one is reported as a missing step (``_missing``)."""
        forwarded: set[int] = set()
        orphans: list[_Step] = []
        for step in steps:
            if step.op == "forward_step":
                forwarded.add(step.batch_id)
            elif step.op == "backward_step" and step.batch_id not in forwarded:
                orphans.append(step)
        if not orphans:
            return
        if not forwarded:  # no forward step at all: one finding for the iteration
            first, last = min(step.batch_id for step in orphans), max(step.batch_id for step in orphans)
            which = f"micro-batch {first} has a backward_step" if first == last else f"micro-batches {first}-{last} have backward_steps"
            yield Violation(
                orphans[0].line,
                1,
                f"{which} but no forward_step (iteration {iteration}): the writer records a micro-batch's forward_step before its backward_step",
            )
            return
        for step in orphans:
            if later := where.get(("forward_step", step.batch_id)):
                yield Violation(
                    step.line,
                    1,
                    f"backward_step of micro-batch {step.batch_id} (iteration {iteration}) comes before its forward_step (line {later[0]}): "
                    "the writer records a micro-batch's forward_step before its backward_step",
                )

    @staticmethod
    def _predecessors(steps: list[_Step]) -> dict[str, tuple[str, int]]:
        """op -> the (op, batch offset) that most often comes just before it: where a lost record belongs."""
        seen: dict[str, Counter[tuple[str, int]]] = defaultdict(Counter)
        for before, step in pairwise(steps):
            seen[step.op][before.op, before.batch_id - step.batch_id] += 1
        return {op: counts.most_common(1)[0][0] for op, counts in seen.items()}

    @staticmethod
    def _missing(
        op: str,
        batch: int,
        iteration: _Iteration,
        span: tuple[int, int],
        where: dict[tuple[str, int], list[int]],
        predecessor: tuple[str, int] | None,
    ) -> Violation:
        message = f"micro-batch {batch} has no {op} (iteration {iteration.number}): this rank runs one for each of micro-batches {span[0]}-{span[1]}"
        if predecessor is not None and (lines := where.get((predecessor[0], batch + predecessor[1]))):
            # the writer writes it on the next line: where the record after the predecessor now is
            return Violation(lines[0] + 1, 1, f"{message}; it belongs after {predecessor[0]} of micro-batch {batch + predecessor[1]} (line {lines[0]})")
        later = [lines[0] for (other, number), lines in where.items() if other == op and number > batch]
        return Violation(min(later) if later else None, 1 if later else None, message)
