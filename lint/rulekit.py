"""Building blocks shared by several rules (the rules themselves live in ``rules/``)."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from lint.layout import OPTPRIME_PRINTED_ABOVE_ONE, optprime_implied
from lint.rule import Rule, RuleOptions, Violation, at

if TYPE_CHECKING:  # the models of each format are imported by the rules of that format, not by the others
    from lint.models.neusight_tsv import LayerRecord
    from lint.models.optprime_log import ConfigRecord, LayerTimingRecord, Record, Stage2RankRecord, TimingHeaderRecord
    from lint.models.simai_workload import Comm, Header, LayerCount, LayerRow

T = TypeVar("T")


class SameInEveryRecord(Rule):
    """Base of rules for a field that must keep, in every record of a file, the value of the first."""

    field: ClassVar[str]

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        self.first: tuple[Any, int] | None = None  # (value, line)

    def _check(self, record: Any) -> tuple[Violation, ...]:
        value = getattr(record, self.field)
        if self.first is None:
            self.first = (value, record.line)
        elif value != self.first[0]:
            noun = self.field.removesuffix("_id")
            return (at(record, f"{noun} {value} in a file of {noun} {self.first[0]} (first record: line {self.first[1]})"),)
        return ()

    check_op = _check
    check_ddp_grad_comm = _check


def format_shape(shape: tuple[int, ...] | None) -> str:
    return "None" if shape is None else "[" + ", ".join(map(str, shape)) + "]"


def quotient(dividend: int, divisor: int) -> str:
    """``dividend / divisor`` as a message shows it: a whole number when it is one."""
    whole, rest = divmod(dividend, divisor)
    return f"{dividend / divisor:.3f}".rstrip("0") if rest else str(whole)


class PerAlikeRow(dict[int, T]):
    """What a rule concluded about a row, remembered for the rows alike (by their ``alike``, see
    :func:`lint.models.common.new_alike`): a workload repeats a few dozen rows over and over, so a rule
    judges each of them once.  Emptied when it holds too many: a file of endlessly new rows must not grow
    memory (the rule then judges rows again)."""

    ENTRIES = 4096

    def remember(self, alike: int, value: T) -> T:
        if len(self) >= self.ENTRIES:
            self.clear()
        self[alike] = value
        return value


# -- simai-workload ---------------------------------------------------------------------------------


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

    def check_header(self, header: Header) -> Iterator[Violation]:
        self.from_aicb = header.from_aicb
        return iter(())


class OncePerLayerComm(Rule):
    """Base of rules that judge each comm column of a workload row on its own.

    A layer row repeats once per layer instance and micro-batch, so one quirk of a writer repeats on
    hundreds of rows: the finding is given once per layer name and comm column (type and size), at the
    first row, with the number of rows that repeat it.  Rows alike are judged once.
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
            problems = self.judged.remember(row.alike, tuple(((row.name, comm), message) for comm, message in self.row_problems(row)))
        return problems

    def wants(self, record: Any) -> bool:
        return bool(self._problems(record))

    def check_layer_row(self, row: LayerRow) -> Iterable[Violation]:
        for key, message in self._problems(row):
            found = self.found.get(key)
            if found is None:
                found = self.found[key] = _Repeated(row, message)
            found.rows += 1
        return ()

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
        self.first_extra_row = 0  # its number among the rows (0: no count declared)

    def check_layer_count(self, record: LayerCount) -> Iterator[Violation]:
        self.declared = record
        self.first_extra_row = record.count + 1
        return iter(())

    def check_layer_row(self, row: LayerRow) -> Iterable[Violation]:
        self.rows += 1
        if self.rows == self.first_extra_row:
            self.first_extra = row
        return ()


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
        # Rows not yet added to the counts above, by ``alike``: the first of them and how many there are.
        # A workload repeats a few dozen rows, so counting them costs a lookup per row.
        self.pending: dict[int, list[Any]] = {}

    def add(self, row: LayerRow) -> None:
        pending = self.pending.get(row.alike)
        if pending is not None:
            pending[1] += 1
            return
        if len(self.pending) >= PerAlikeRow.ENTRIES:  # bounded: a file of endlessly new rows
            self._count_pending()
        self.pending[row.alike] = [row, 1]

    def _count_pending(self) -> None:
        # In the order their first rows came, so that ``first_row`` keeps the first.
        for row, rows in self.pending.values():
            self.rows_per_layer[row.name] += rows
            forward = row.comms()[0]
            if forward.is_tp_collective:
                self.sizes_per_layer[row.name][forward.size] += rows
                self.first_row.setdefault((row.name, forward.size), row)
        self.pending.clear()

    def size(self) -> ActivationSize | None:
        self._count_pending()
        repeated = [layer for layer in self.sizes_per_layer if self.rows_per_layer[layer] > 1]
        sizes = sum((self.sizes_per_layer[layer] for layer in repeated), Counter[int]())
        if not sizes:
            return None
        size, collectives = sizes.most_common(1)[0]
        if 2 * collectives <= sizes.total() or size <= 1:
            return None
        example = min((self.first_row[layer, size] for layer in repeated if (layer, size) in self.first_row), key=lambda row: row.line)
        return ActivationSize(size, collectives, example)


# -- neusight-tsv ----------------------------------------------------------------------------------


class NeusightRowMessages(Rule):
    """Base of neusight-tsv rules whose findings on a row follow from what the row says alone: a table
    repeats its rows, so they are worked out once per distinct row and given at every row alike."""

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        self.known: PerAlikeRow[tuple[str, ...]] = PerAlikeRow()

    def messages(self, row: LayerRecord) -> Iterator[str]:
        """What is wrong with ``row``."""
        raise NotImplementedError

    def _messages(self, row: LayerRecord) -> tuple[str, ...]:
        messages = self.known.get(row.alike)
        if messages is None:
            messages = self.known.remember(row.alike, tuple(self.messages(row)))
        return messages

    def wants(self, record: Any) -> bool:
        return bool(self._messages(record))

    def check_layer(self, row: LayerRecord) -> Iterable[Violation]:
        return [at(row, message) for message in self._messages(row)]


# -- optprime-log -----------------------------------------------------------------------------------


# The timing groups of one module each: a stage runs it once per micro-batch.
SINGLE_MODULE_GROUPS = ("embed", "lm_head")


def spans(numbers: Iterable[int]) -> str:
    """'0-4, 6, 8-15': the numbers, ascending, with runs of consecutive ones joined."""
    runs: list[list[int]] = []  # [first, last]
    for number in sorted(set(numbers)):
        if runs and number == runs[-1][1] + 1:
            runs[-1][1] = number
        else:
            runs.append([number, number])
    return ", ".join(str(first) if first == last else f"{first}-{last}" for first, last in runs)


def timing_groups(layers: Iterable[str]) -> str:
    """'embed, layers 0-4, 6-15, lm_head': timing groups in the order the writer prints them."""
    names = set(layers)
    parts = ["embed"] if "embed" in names else []
    numbered = [int(name) for name in names if name.isdigit()]
    if numbered:
        parts.append(("layer " if len(numbered) == 1 else "layers ") + spans(numbered))
    if "lm_head" in names:
        parts.append("lm_head")
    return ", ".join(parts)


def group_owner(record: LayerTimingRecord) -> str:
    """'rank 7, step 1': the timing block a layer group belongs to."""
    return f"rank {record.rank}, step {record.step}" if record.rank is not None else "in no timing block"


@dataclass(frozen=True, slots=True)
class Setting:
    """A run setting as the log printed it first (``line`` None: not printed, so the default)."""

    value: Any
    label: str
    line: int | None

    def __str__(self) -> str:
        if self.line is None:
            return f"{self.label} {self.value} (not printed: OptimusPrime prints it only above 1)"
        return f"`{self.label}{self.value}` (line {self.line})"


class OptprimeLayout(Rule):
    """Base of optprime-log rules that read the run's settings (the first value printed of each) and
    its first ``stage2rank`` map."""

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        self.settings: dict[str, Setting] = {}
        self.stage_map: Stage2RankRecord | None = None

    def check_config(self, record: ConfigRecord) -> Iterator[Violation]:
        self.settings.setdefault(record.setting, Setting(record.value, record.label, record.line))
        return iter(())

    def check_stage2rank(self, record: Stage2RankRecord) -> Iterator[Violation]:
        if self.stage_map is None:
            self.stage_map = record
        return iter(())

    def setting(self, name: str) -> Setting | None:
        """The setting ``name`` as printed, or as the log implies it (:func:`lint.layout.optprime_implied`); None when unknown."""
        if name in self.settings:
            return self.settings[name]
        if (implied := optprime_implied(name, self.settings)) is not None:
            return Setting(implied, OPTPRIME_PRINTED_ABOVE_ONE[name], None)
        return None

    def stage_count(self) -> int | None:
        """The pipeline size: printed, or the stages of ``stage2rank``."""
        pp = self.setting("pp")
        if pp is not None:
            return int(pp.value)
        return len(self.stage_map.stages) if self.stage_map is not None else None


class SettingProduct(OptprimeLayout):
    """Base of rules that check a printed setting is the product of three others, where all are known."""

    product: ClassVar[str]  # the setting
    factors: ClassVar[tuple[str, str, str]]
    formula: ClassVar[str]  # the factors as the message names them: "PP · DP · TP"

    def finish(self) -> Iterator[Violation]:
        total = self.setting(self.product)
        factors = [factor for name in self.factors if (factor := self.setting(name)) is not None]
        if total is None or len(factors) < len(self.factors):
            return
        expected = math.prod(factor.value for factor in factors)
        if total.value != expected:
            values = " · ".join(str(factor.value) for factor in factors)
            yield Violation(total.line, 1, f"{total} but {self.formula} = {values} = {expected} ({', '.join(map(str, factors))})")


class RankOutput(Rule):
    """Base of optprime-log rules that follow which ranks printed output of their own, where each
    rank's output ends, and how the run ended (:class:`RunOutcome`).

    Every record that carries a rank counts as output, except the entries of torchrun's failure report:
    torchrun prints those about its workers.
    """

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        from lint.models.optprime_outcome import RunOutcome  # here: the rules of other formats import this module too

        self.last_output: dict[int, int] = {}  # rank -> line
        self.outcome = RunOutcome()

    def observe(self, record: Record) -> Iterator[Violation]:
        self.outcome.add(record)
        if record.rank is not None and not record.kind.startswith("failure_"):
            self.last_output[record.rank] = record.line
        return iter(())

    @classmethod
    def handlers(cls) -> dict[str, str]:
        """Every kind of record goes to :meth:`observe`, unless the rule has a ``check_<kind>`` of its own."""
        from lint.models.optprime_log import RECORD_TYPES

        return {**{record_type.kind: "observe" for record_type in RECORD_TYPES}, **super().handlers()}


@dataclass(frozen=True, slots=True)
class StageTimes:
    """The groups one stage timed in one step, as the first of its ranks to print the step printed them."""

    stage: int
    rank: int
    line: int  # where the timing header is
    column: int
    groups: tuple[tuple[str, int], ...]  # (layer, ops) in printed order


class StepsByStage(OptprimeLayout):
    """Base of optprime-log rules that judge a step across the pipeline: the groups every stage timed.

    The ranks of a stage time the same groups, so the first of them to print a step speaks for the
    stage.  A step is judged only when every stage timed it: the log of some ranks (torchrun's
    ``--local-ranks-filter``, one node of a multi-node job) or of a run that stopped has incomplete steps.
    Stages time the same groups every step, so steps alike are judged once, at the first of them.
    """

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        self.open: dict[int, tuple[TimingHeaderRecord, list[tuple[str, int]]]] = {}  # rank -> latest header, its groups
        self.steps: dict[int, dict[int, StageTimes]] = {}  # step -> stage -> what it timed
        self.distinct: dict[tuple[tuple[str, int], ...], tuple[tuple[str, int], ...]] = {}  # one copy: steps repeat them

    def judge(self, step: int, stages: list[StageTimes], alike: str) -> Iterator[Violation]:
        """Findings of the step ``step``, which every stage timed; ``alike`` names the later steps like it."""
        raise NotImplementedError

    def check_timing_header(self, record: TimingHeaderRecord) -> Iterator[Violation]:
        self._close(record.rank)
        self.open[record.rank] = (record, [])
        return iter(())

    def check_layer_timing(self, record: LayerTimingRecord) -> Iterator[Violation]:
        opened = self.open.get(record.rank) if record.rank is not None else None
        if opened is not None:
            opened[1].append((record.layer, record.ops))
        return iter(())

    def _close(self, rank: int) -> None:
        opened = self.open.pop(rank, None)
        if opened is None:
            return
        header, groups = opened
        stages = self.steps.setdefault(header.step, {})
        if header.stage not in stages:
            printed = tuple(groups)
            stages[header.stage] = StageTimes(header.stage, header.rank, header.line, header.column, self.distinct.setdefault(printed, printed))

    def finish(self) -> Iterator[Violation]:
        for rank in list(self.open):
            self._close(rank)
        count = self.stage_count()
        if count is None:
            return
        alike: dict[tuple[tuple[tuple[str, int], ...], ...], list[int]] = {}  # every stage's groups -> the steps
        for step, stages in self.steps.items():
            if all(stage in stages for stage in range(count)):
                alike.setdefault(tuple(stages[stage].groups for stage in range(count)), []).append(step)
        for steps in alike.values():
            first = self.steps[steps[0]]
            repeats = len(steps) - 1
            more = f" (and {repeats} more {'step' if repeats == 1 else 'steps'} alike)" if repeats else ""
            yield from self.judge(steps[0], [first[stage] for stage in range(count)], more)
