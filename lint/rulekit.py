"""Building blocks shared by several rules (the rules themselves live in ``rules/``)."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

from lint.models.simai_workload import Comm, LayerCount, LayerRow
from lint.rule import Rule, RuleOptions, Violation, at


class SameInEveryRecord(Rule):
    """Base of rules for a field that must keep, in every record of a file, the value of the first."""

    field: ClassVar[str]

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        self.first: tuple[Any, int] | None = None  # (value, line)

    def _check(self, record: Any) -> Iterator[Violation]:
        value = getattr(record, self.field)
        if self.first is None:
            self.first = (value, record.line)
        elif value != self.first[0]:
            noun = self.field.removesuffix("_id")
            yield at(record, f"{noun} {value} in a file of {noun} {self.first[0]} (first record: line {self.first[1]})")

    check_op = _check
    check_ddp_grad_comm = _check


def format_shape(shape: tuple[int, ...] | None) -> str:
    return "None" if shape is None else "[" + ", ".join(map(str, shape)) + "]"


def is_finite(value: float | None) -> bool:
    return value is None or math.isfinite(value)


def quotient(dividend: int, divisor: int) -> str:
    """``dividend / divisor`` as a message shows it: a whole number when it is one."""
    whole, rest = divmod(dividend, divisor)
    return f"{dividend / divisor:.3f}".rstrip("0") if rest else str(whole)


# -- simai-workload ---------------------------------------------------------------------------------


@dataclass(slots=True)
class _Repeated:
    first: LayerRow
    message: str
    rows: int = 0


class OncePerLayerComm(Rule):
    """Base of rules that judge each comm column of a workload row on its own.

    A layer row repeats once per layer instance and micro-batch, so one quirk of a writer repeats on
    hundreds of rows: the finding is given once per layer name and comm column (type and size), at the
    first row, with the number of rows that repeat it.
    """

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        self.found: dict[tuple[str, Comm], _Repeated] = {}  # by layer name and comm column

    def problem(self, comm: Comm) -> str | None:
        """What is wrong with ``comm``, or None."""
        raise NotImplementedError

    def still_wrong(self, comm: Comm) -> bool:
        """Asked at the end of the file, for rules whose verdict depends on the whole workload."""
        return True

    def check_layer_row(self, row: LayerRow) -> Iterator[Violation]:
        for comm in row.comms():
            message = self.problem(comm)
            if message is not None:
                self.found.setdefault((row.name, comm), _Repeated(row, message)).rows += 1
        return iter(())

    def finish(self) -> Iterator[Violation]:
        for (layer, comm), found in self.found.items():
            if self.still_wrong(comm):
                more = f" (and {found.rows - 1} more {layer} rows)" if found.rows > 1 else ""
                yield at(found.first, f"{layer}: {found.message}{more}")


class LayerRowTally(Rule):
    """Base of rules that compare the row count on line 2 with the layer rows the file has."""

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        self.declared: LayerCount | None = None
        self.rows = 0
        self.first_extra: LayerRow | None = None  # the first row past the declared count

    def check_layer_count(self, record: LayerCount) -> Iterator[Violation]:
        self.declared = record
        return iter(())

    def check_layer_row(self, row: LayerRow) -> Iterator[Violation]:
        self.rows += 1
        if self.declared is not None and self.rows == self.declared.count + 1:
            self.first_extra = row
        return iter(())


@dataclass(frozen=True)
class ActivationSize:
    """The TP activation size of a workload, with what it was inferred from."""

    size: int
    collectives: int  # forward TP collectives of repeated layers that carry it
    example: LayerRow  # the first of them

    def __str__(self) -> str:
        return (
            f"the TP activation size {self.size} (2·mbs·seq·hidden, carried by {self.collectives} forward TP "
            f"collectives of repeated layers, first {self.example.name} on line {self.example.line})"
        )


class TpActivation:
    """Infers a workload's TP activation size from its rows.

    AICB sizes the forward TP collective of every transformer layer 2·mbs·seq·hidden, and writes one row
    per layer instance, so that size is the one most forward TP collectives of repeated layer names carry;
    one-off rows (embedding, loss) carry other sizes.  The size is known only when more than half of those
    collectives agree on it.
    """

    def __init__(self) -> None:
        self.rows_per_layer: Counter[str] = Counter()
        self.sizes_per_layer: defaultdict[str, Counter[int]] = defaultdict(Counter)
        self.first_row: dict[tuple[str, int], LayerRow] = {}

    def add(self, row: LayerRow) -> None:
        self.rows_per_layer[row.name] += 1
        forward = row.comms()[0]
        if forward.is_tp_collective:
            self.sizes_per_layer[row.name][forward.size] += 1
            self.first_row.setdefault((row.name, forward.size), row)

    def size(self) -> ActivationSize | None:
        repeated = [layer for layer in self.sizes_per_layer if self.rows_per_layer[layer] > 1]
        sizes = sum((self.sizes_per_layer[layer] for layer in repeated), Counter[int]())
        if not sizes:
            return None
        size, collectives = sizes.most_common(1)[0]
        if 2 * collectives <= sizes.total() or size <= 1:
            return None
        example = min((self.first_row[layer, size] for layer in repeated if (layer, size) in self.first_row), key=lambda row: row.line)
        return ActivationSize(size, collectives, example)
