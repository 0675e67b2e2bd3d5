"""What the simai-workload rules share."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lint.layout import tp_activation_size
from lint.rule import PerAlikeRow, Rule, RuleOptions, Violation, at

if TYPE_CHECKING:
    from lint.formats.simai_workload.records import Comm, Header, LayerCount, LayerRow


@dataclass(slots=True)
class _Repeated:
    first: LayerRow
    message: str
    rows: int = 0


class AicbOnly(Rule):
    """A rule whose invariant only AICB's generator guarantees: ``from_aicb`` says whether the header is AICB's.

    Hand-written and ASTRA-sim workloads owe nothing to AICB's conventions (docs/formats/simai-workload.md).
    """

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        self.from_aicb = False
        self.tp: int | None = None  # the header's model_parallel_NPU_group

    def check_header(self, header: Header) -> Iterator[Violation]:
        self.from_aicb = header.from_aicb
        self.tp = header.read("tp")
        return iter(())


class OncePerLayerComm(Rule):
    """Base of rules that judge each comm column of a workload row on its own.

    A layer row repeats once per layer instance and micro-batch, so one quirk of a writer repeats on
    hundreds of rows: the finding is given once per comm column and type, at the first row, with the number
    of rows that repeat it and the other layers they are of (a file that names each layer instance anew,
    ``A100_L0`` to ``A100_L31``, would otherwise give a finding per row).  Rows alike are judged once.
    """

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        self.found: dict[tuple[str, Comm], _Repeated] = {}  # by layer name and comm column
        self.judged: PerAlikeRow[tuple[tuple[tuple[str, Comm], str], ...]] = PerAlikeRow()  # (layer, comm) and message

    def problem(self, comm: Comm) -> str | None:
        """What is wrong with ``comm``, or None."""
        raise NotImplementedError

    def still_wrong(self, comm: Comm) -> bool:
        """Asked at the end of the file, for rules whose verdict depends on the whole workload."""
        return True

    def row_problems(self, row: LayerRow) -> Iterator[tuple[Comm, str]]:
        """The problems of ``row``'s comm columns.  Asked once per distinct row text (and again after
        :class:`PerAlikeRow` forgets it): only what the row says and the header may decide them."""
        for comm in row.comms():
            if (message := self.problem(comm)) is not None:
                yield comm, message

    def _problems(self, row: LayerRow) -> tuple[tuple[tuple[str, Comm], str], ...]:
        problems = self.judged.get(row.alike)
        if problems is None:
            problems = self.judged.remember(row, tuple(((row.name, comm), message) for comm, message in self.row_problems(row)))
        return problems

    def check_layer_row(self, row: LayerRow) -> Iterable[Violation]:
        for key, message in self._problems(row):
            found = self.found.get(key)
            if found is None:
                found = self.found[key] = _Repeated(row, message)
            found.rows += 1
        return ()

    def finish(self) -> Iterator[Violation]:
        groups: dict[tuple[str, str], list[tuple[str, _Repeated]]] = {}  # by comm column and type, in the order of first rows
        for (layer, comm), found in self.found.items():
            if self.still_wrong(comm):
                groups.setdefault((comm.phase, comm.type), []).append((layer, found))
        for (phase, comm_type), layers in groups.items():
            (layer, first), *_ = layers
            rows = sum(found.rows for _, found in layers) - 1
            # The other layers (the first layer's rows of another size are in the same group).
            names = list(dict.fromkeys(name for name, _ in layers if name != layer))
            if not names:
                more = f" (and {rows} more {layer} rows)" if rows else ""
            else:
                unnamed = len(names) - _NAMED_LAYERS
                listed = ", ".join(names[:_NAMED_LAYERS]) + (f" and {unnamed} more layer{'s' if unnamed > 1 else ''}" if unnamed > 0 else "")
                more = f" (and {rows} more rows with {phase}_comm_type {comm_type}, also of {listed})"
            yield at(first.first, f"{layer}: {first.message}{more}")


_NAMED_LAYERS = 3  # the other layers a finding of OncePerLayerComm names


class LayerRows:
    """The layer rows of a workload, tallied once per file for the rules that count them or compare them by
    their place (shared: Rule.share): how many there are, the first past the declared count, and per row
    alike and place in its run of one name (see TL415), the first such row and how many there are.

    A workload repeats a few dozen rows a hundred thousand times, so a row costs a lookup; what the rules
    conclude from the distinct rows is worked out when the tally is full (it is bounded: a file of endlessly
    new rows) and at the end of the file, by the consumers the rules register (``consumers``), each given
    the distinct rows in the order of their first rows, with how many rows are alike.
    """

    def __init__(self) -> None:
        self.declared: LayerCount | None = None
        self.rows = 0
        self.long_rows = 0  # rows with columns past the expected ones (TL002): each is built from the slow path, a new alike
        self.first_extra: LayerRow | None = None  # the first row past the declared count
        self.first_extra_row = 0  # its number among the rows (0: no count declared)
        self.previous_name: str | None = None
        self.place = 0  # of the current row in its run of one name
        # (alike, place) -> [first row, rows], in the order of the first rows
        self.pending: dict[tuple[int, int], list[Any]] = {}
        self.consumers: list[Callable[[Iterable[tuple[LayerRow, int, int]]], None]] = []
        self.activation = TpActivation()
        self.consumers.append(self.activation.count)

    def check_layer_count(self, record: LayerCount) -> tuple[()]:
        self.declared = record
        self.first_extra_row = record.count + 1
        return ()

    def check_layer_row(self, row: LayerRow) -> tuple[()]:
        self.rows += 1
        if self.rows == self.first_extra_row:
            self.first_extra = row
        if row.name == self.previous_name:
            self.place += 1
        else:
            self.previous_name = row.name
            self.place = 0
        entry = self.pending.get((row.alike, self.place))
        if entry is None:
            self._first_alike(row)
        else:
            entry[1] += 1
        return ()

    def _first_alike(self, row: LayerRow) -> None:
        if row.extra_columns:
            self.long_rows += 1
        if len(self.pending) >= PerAlikeRow.ENTRIES:  # as bounded as the rules' memos
            self.flush()
        self.pending[row.alike, self.place] = [row, 1]

    def flush(self) -> None:
        """Hands the distinct rows tallied so far to the consumers: at the end of the file, before the
        rules conclude."""
        batch = [(row, place, rows) for (_, place), (row, rows) in self.pending.items()]
        self.pending.clear()
        for consume in self.consumers:
            consume(batch)

    def activation_size(self, tp: int | None) -> ActivationSize | None:
        """The workload's TP activation size (:class:`TpActivation`), once the file is read; ``tp``: the header's
        ``model_parallel_NPU_group``.

        None where tp is 1: AICB then writes every TP collective as ``NONE`` but a MoE layer's EP all-gather of
        ``2·ep·experts·tp`` bytes (aliyun/aicb ``SimAI_training_workload_generator.py``, ``workload_generate_aiob``:
        ``if args.tensor_model_parallel_size == 1``), which SimAI decodes as a TP collective (an ``ALLGATHER``): the
        most common forward TP size is then that all-gather's, not an activation.
        """
        if tp == 1:
            return None
        self.flush()
        return self.activation.size()


class LayerRowTally(Rule):
    """Base of rules that read the :class:`LayerRows` of a workload."""

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        self.tally = LayerRows()

    def check_layer_count(self, record: LayerCount) -> tuple[()]:
        return self.tally.check_layer_count(record)

    def check_layer_row(self, row: LayerRow) -> tuple[()]:
        return self.tally.check_layer_row(row)


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
    """Counts what a workload's TP activation size is inferred from (:func:`lint.layout.tp_activation_size`):
    the rows of each layer name, the sizes of their forward TP collectives, and the first row of each."""

    def __init__(self) -> None:
        self.rows_per_layer: Counter[str] = Counter()
        self.sizes_per_layer: defaultdict[str, Counter[int]] = defaultdict(Counter)
        self.first_row: dict[tuple[str, int], LayerRow] = {}

    def count(self, batch: Iterable[tuple[LayerRow, int, int]]) -> None:
        """Counts distinct rows (with how many rows are alike), in the order of their first rows, so that
        ``first_row`` keeps the first."""
        for row, _, rows in batch:
            self.rows_per_layer[row.name] += rows
            forward = row.comms()[0]
            if forward.is_tp_collective:
                self.sizes_per_layer[row.name][forward.size] += rows
                self.first_row.setdefault((row.name, forward.size), row)

    def size(self) -> ActivationSize | None:
        """The size (:func:`lint.layout.tp_activation_size`), once every row is counted (at the end of the file)."""
        inferred = tp_activation_size(self.rows_per_layer, self.sizes_per_layer)
        if inferred is None:
            return None
        size, collectives = inferred
        example = min((row for (layer, carried), row in self.first_row.items() if carried == size and self.rows_per_layer[layer] > 1), key=lambda row: row.line)
        return ActivationSize(size, collectives, example)


def quotient(dividend: int, divisor: int) -> str:
    """``dividend / divisor`` as a message shows it: a whole number when it is one."""
    whole, rest = divmod(dividend, divisor)
    return f"{dividend / divisor:.3f}".rstrip("0") if rest else str(whole)
