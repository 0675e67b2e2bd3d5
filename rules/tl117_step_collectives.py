from array import array
from collections import Counter, defaultdict
from collections.abc import Iterator
from operator import attrgetter

from lint.formats.megatron_trace.records import MICRO_BATCH_STEPS, OpRecord, per_calls
from lint.rule import Rule, Severity, Violation

Call = tuple[str, str | None, str | None, str | None]  # trace_src_func, func_name, comm_func, group
_call = attrgetter("trace_src_func", "func_name", "comm_func", "group")


class _Calls:
    """A step's calls in call order, as a dict key hashed once: steps that make the same calls share one
    (found by identity), and equal ones from lists the parser no longer remembers compare equal."""

    __slots__ = ("calls", "hashed")

    def __init__(self, calls: tuple[Call, ...]) -> None:
        self.calls = calls
        self.hashed = hash(calls)

    def __hash__(self) -> int:
        return self.hashed

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Calls) and other.calls == self.calls


_calls = per_calls(lambda calls: _Calls(tuple(map(_call, calls))))


class _Steps:
    def __init__(self) -> None:
        self.lines = array("q")
        self.batches = array("q")  # -1 for a step without a batch id


class StepCollectives(Rule):
    """A step holds other collectives than the same step of this rank's other micro-batches.

    ``get_batch``, ``forward_step``, ``loss_func`` and ``backward_step`` run the same model code for
    every micro-batch of a rank, and the writer traces every call of a decorated collective inside them
    (``CMD.get_trace_decorator`` and ``CMD.async_start_trace`` in ``megatron/profiler/cmd.py``, on
    ``_reduce``, ``allreduce``, the broadcasts of ``get_batch`` and moe_mg's expert-parallel
    gathers and all-to-alls), so each of these steps holds the same collectives - by traced function,
    ``func``, ``comm_func`` and group, counted - in every micro-batch.  Tensor shapes are not compared:
    moe_mg's all-to-all sizes follow the routing.  When the steps of one op disagree, the collectives
    most of them hold are taken as right; a tie is not judged.

    Why it matters:
        A step with one collective fewer lost a sub-operation: the simulator replays that micro-batch
        without its communication, and cross-rank matching of the collective fails.

    Example:
        three forward_steps of a rank, two with 2 ``allreduce`` sub-operations ``func_name=linear_fwd``, one
        with 1
        -> forward_step of micro-batch 1 has 1 × linear_fwd (allreduce, tp); the other 2 forward_steps of this
        rank have 2
    """

    code = "TL117"
    name = "step-collectives"
    severity = Severity.ERROR
    formats = ("megatron-trace",)
    ops = MICRO_BATCH_STEPS  # they run the model's code once per micro-batch, so trace the same calls each time

    def __init__(self, options=None) -> None:  # type: ignore[no-untyped-def]
        super().__init__(options)
        # op -> its calls in call order -> the steps that hold them: compact for files of millions of records
        self.steps: dict[str, dict[_Calls, _Steps]] = defaultdict(lambda: defaultdict(_Steps))

    def check_op(self, record: OpRecord) -> tuple[()]:
        if not record.is_placeholder:
            # In call order: the same code traces its calls in the same order, so steps that agree share
            # one key; steps that hold the same calls in another order are merged in finish().
            steps = self.steps[record.op][_calls(record.sub_operations)]
            steps.lines.append(record.line)
            steps.batches.append(-1 if record.batch_id is None else record.batch_id)
        return ()

    def finish(self) -> Iterator[Violation]:
        for op, in_order in sorted(self.steps.items()):
            if len(in_order) < 2:
                continue
            kinds: dict[frozenset[tuple[Call, int]], list[tuple[int, int]]] = defaultdict(list)
            for calls, steps in in_order.items():
                kinds[frozenset(Counter(calls.calls).items())] += zip(steps.lines, steps.batches, strict=True)
            if len(kinds) < 2:
                continue
            ranked = sorted(kinds.items(), key=lambda item: -len(item[1]))
            usual, agreeing = ranked[0]
            if len(agreeing) < 2 or len(agreeing) == len(ranked[1][1]):
                continue  # no majority to judge by
            expected = Counter(dict(usual))
            for held, records in ranked[1:]:
                has, have = _differences(expected, Counter(dict(held)))
                for line, batch in records:
                    yield Violation(
                        line, 1, f"{op} of micro-batch {batch if batch >= 0 else None} has {has}; the other {len(agreeing)} {op}s of this rank have {have}"
                    )


def _differences(expected: Counter[Call], found: Counter[Call]) -> tuple[str, str]:
    """('19 × normlinear_bwd (allreduce, tp)', '20') over every call whose count differs (at most three)."""
    differing = sorted((call for call in expected.keys() | found.keys() if expected[call] != found[call]), key=str)
    shown = differing[:3]
    more = f" and {len(differing) - 3} more" if len(differing) > 3 else ""
    has = ", ".join(f"{found[call]} × {_name(call)}" for call in shown) + more
    return has, ", ".join(str(expected[call]) for call in shown)


def _name(call: Call) -> str:
    source, func, comm, group = call
    return f"{func or source} ({', '.join(filter(None, (comm, group)))})"
