from collections import Counter, deque
from collections.abc import Iterator

from lint.formats.megatron_trace.records import OpRecord, layer_tensors
from lint.formats.megatron_trace.rulekit import format_shape
from lint.models.common import SyntaxProblem
from lint.rule import Rule, Severity, Violation, at

TensorKey = tuple[tuple[int, ...] | None, str | None]


class MissingBackwardTwin(Rule):
    """A forward layer collective has no backward twin (or the backward step has extra ones).

    Every transformer layer all-reduces its activation across the TP group in the forward step and its
    input gradient in the backward step, so a micro-batch's ``backward_step`` holds as many TP layer
    all-reduces as its ``forward_step``, with the same shapes and dtypes (seed 000: 20 ``linear_fwd`` and
    20 ``normlinear_bwd`` of [4096, 5120]).  The loss's cross-entropy reductions and the embedding's
    backward all-reduce are not layer collectives.  Forward and backward steps pair by ``batch_id``.
    A forward step before a line that is no record (TL001) is not reported for lacking its backward step:
    that may have been on the line, or after it in a file cut short while it was written
    (``write_list_to_file`` in ``megatron/profiler/cmd.py`` writes the whole trace when training ends).

    Writer: the traced ``_reduce``/``allreduce`` of every layer are called in both passes
    (``megatron/core/tensor_parallel/mappings.py``, ``layers.py``), so this is an error.  The last
    stage's backward ``_reduce`` of ``[s, b, h]`` without ``func`` (the LM head's input gradient,
    ``_CopyToModelParallelRegion.backward``; ``embedding_bwd_async`` in older writer versions) has no
    forward twin and is not a layer collective.

    Why it matters:
        A missing twin means a layer was traced in one direction only: the simulated backward pass is
        missing (or has extra) TP traffic, and cross-rank matching of collectives breaks.

    Example:
        forward_step batch 0 with 20 all-reduces of [4096, 5120]; backward_step batch 0 with 19
        -> backward_step of micro-batch 0 has 19 TP layer all-reduces of [4096, 5120] torch.float32; its
        forward_step (line 3) has 20
    """

    code = "TL115"
    name = "missing-backward-twin"
    severity = Severity.ERROR
    formats = ("megatron-trace",)
    ops = frozenset({"forward_step", "backward_step"})

    def __init__(self, options=None) -> None:  # type: ignore[no-untyped-def]
        super().__init__(options)
        self.forwards: dict[int | None, deque[tuple[OpRecord, Counter[TensorKey]]]] = {}
        self.seen_backward = False
        self.last_unreadable = 0  # the last line that is no record (a syntax error, TL001)

    def check_op(self, record: OpRecord) -> list[Violation] | tuple[()]:
        if record.is_placeholder:
            return ()
        tensors = layer_tensors(record)
        if record.op == "forward_step":
            self.forwards.setdefault(record.batch_id, deque()).append((record, tensors))
            return ()
        self.seen_backward = True
        pending = self.forwards.get(record.batch_id)
        if not pending:
            return ()  # no forward_step of its micro-batch before it: TL116's finding
        forward, forward_tensors = pending.popleft()
        if dict.__eq__(forward_tensors, tensors):  # as Counters without zero counts are: in C, not Counter's Python loop
            return ()
        return [
            at(
                record,
                f"backward_step of micro-batch {record.batch_id} has {tensors[key]} TP layer all-reduces of "
                f"{format_shape(key[0])} {key[1]}; its forward_step (line {forward.line}) has {forward_tensors[key]}",
                field="sub_operations",
            )
            for key in sorted(forward_tensors.keys() | tensors.keys(), key=str)
            if forward_tensors[key] != tensors[key]
        ]

    def check_syntax(self, problem: SyntaxProblem) -> tuple[()]:
        self.last_unreadable = problem.line
        return ()

    def finish(self) -> Iterator[Violation]:
        if not self.seen_backward:
            return  # a forward-only (inference) trace
        for pending in self.forwards.values():
            for forward, tensors in pending:
                # A backward step after an unreadable line may have been on it - or after it, in a file cut
                # short while it was written (its last line then is the unreadable one): TL001 says so, once.
                if tensors and forward.line > self.last_unreadable:
                    yield at(
                        forward,
                        f"forward_step of micro-batch {forward.batch_id} has {sum(tensors.values())} TP layer all-reduces but no backward_step",
                        field="batch_id",
                    )
