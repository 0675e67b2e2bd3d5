"""What the simai-workload rules share."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from difflib import get_close_matches
from typing import TYPE_CHECKING, Any

from lint.formats.simai_workload import ASTRA_SIM_1, SIMAI
from lint.formats.simai_workload.records import EXPERT_SUFFIXES, SETTING_KEYS
from lint.layout import tp_activation_size
from lint.rule import PerAlikeRow, Rule, RuleOptions, Violation, at

if TYPE_CHECKING:
    from lint.formats.simai_workload.records import Comm, Header, LayerCount, LayerRow


def reader(consumer: str | None) -> str:
    """How messages name the consumer a file is judged for: "SimAI" or "ASTRA-sim 1.0"."""
    return ASTRA_SIM_1.title if consumer == ASTRA_SIM_1.name else SIMAI.title


# SimAI's collective families in the order it tests their prefixes (Workload.cc:1436-1493): ALLREDUCEALLTOALL
# starts with ALLREDUCE, tested first, so it is an all-reduce; the branch for it is never reached.
SIMAI_FAMILIES = ("ALLREDUCE", "ALLTOALL", "ALLGATHER", "REDUCESCATTER")
ASTRA_SIM_1_TYPES = frozenset({"ALLREDUCE", "ALLTOALL", "ALLREDUCEALLTOALL", "ALLGATHER", "REDUCESCATTER"})


def simai_decodes(comm_type: str, phase: str) -> tuple[str | None, str | None]:
    """The collective and the group SimAI reads from a comm type in column ``phase``: (None, None) for no
    collective; (family, None) for a collective of no group."""
    family = next((family for family in SIMAI_FAMILIES if comm_type.startswith(family)), None)
    if family is None:
        return None, None
    groups = {"": "DP" if phase == "wg" else "TP", "_EP": "EP", "_DP_EP": "DP_EP"}
    return family, groups.get(comm_type[len(family) :])


def astra_sim_1_decodes(comm_type: str) -> bool:
    """Whether ASTRA-sim 1.0 reads a collective from a comm type (Workload.cc:1355-1392): the five names exactly."""
    return comm_type in ASTRA_SIM_1_TYPES


# Where SimAI keeps each header setting (Workload.hh:76-82): members a missing key never sets; every run of
# the oracle read 0 from them.
MEMBERS = {"tp": 76, "ep": 77, "pp": 78, "ga": 79, "all_gpus": 80, "vpp": 81, "pp_comm": 82}


def unset(header: Header, field_name: str) -> bool:
    """Whether SimAI's member for this setting is 0: the key is missing (SimAI never sets it, MEMBERS) or written 0.
    A value that only reads as 0 (``0.5``) is TL425's."""
    value = getattr(header, field_name)
    return value is None or value == 0


class TransformerHeader(Rule):
    """Base of the rules on the settings SimAI reads from the header of the transformer kinds (``header``; None
    for another kind, which is TL424's), some of whose verdicts on ``ep`` depend on the workload's
    expert-parallel collectives: SimAI divides the data-parallel size by ep for a ``_DP_EP`` collective
    (``Layer.cc:581``) and gives an ``_EP`` collective a group of ep GPUs (``Layer.cc:575-578``), which takes no
    time unless it has two or more (``Layer.cc:985``); a workload without either only makes SimAI warn when ep is
    0.  The rows are looked at only when ep is missing or 0."""

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        self.header: Header | None = None
        self.divides: LayerRow | None = None  # the first row with a _DP_EP collective
        self.grouped: LayerRow | None = None  # the first row with an _EP collective

    def check_header(self, header: Header) -> Iterator[Violation]:
        if header.reads_parallel_sizes:
            self.header = header
        return iter(())

    def _has_expert_comm_without_ep(self, record: LayerRow) -> bool:
        return self.header is not None and unset(self.header, "ep") and any(comm.suffix in EXPERT_SUFFIXES for comm in record.comms())

    def check_layer_row(self, row: LayerRow) -> Iterable[Violation]:
        if self._has_expert_comm_without_ep(row):
            for comm in row.comms():
                if comm.suffix == "_DP_EP":
                    self.divides = self.divides or row
                elif comm.suffix == "_EP":
                    self.grouped = self.grouped or row
        return ()

    def expert_effect(self) -> str | None:
        """What SimAI does with this workload when ep is 0 ("divides by zero ..."), or None when it has no expert collective."""
        if self.divides is not None:
            return f"divides by zero on its _DP_EP collectives (first {self.divides.name}, line {self.divides.line}; Layer.cc:581)"
        if self.grouped is not None:
            return f"gives its _EP collectives (first {self.grouped.name}, line {self.grouped.line}) a group of 0 GPUs and no time (Layer.cc:575-578, 985)"
        return None


def misspelt(header: Header, key: str) -> str:
    """``the header has 'all_gpu:': misspelt?`` when an unknown key of the header looks like ``key``, else ""."""
    close = get_close_matches(key, list(header.unknown), n=1, cutoff=0.75)
    return f"the header has '{close[0]}:': misspelt?" if close else ""


def misspelling(header: Header, unknown_key: str) -> bool:
    """Whether ``unknown_key`` looks like a setting SimAI reads that the header lacks (reported with it, see misspelt)."""
    missing = [SETTING_KEYS[name] for name in MEMBERS if getattr(header, name) is None]
    return bool(get_close_matches(unknown_key, missing, n=1, cutoff=0.75))


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
    new rows) and at the end of the file, by the listeners the rules register (``listeners``), each given
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
        self.listeners: list[Callable[[Iterable[tuple[LayerRow, int, int]]], None]] = []
        self.activation = TpActivation()
        self.listeners.append(self.activation.count)

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
        """Hands the distinct rows tallied so far to the listeners: at the end of the file, before the
        rules conclude."""
        batch = [(row, place, rows) for (_, place), (row, rows) in self.pending.items()]
        self.pending.clear()
        for listen in self.listeners:
            listen(batch)

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
