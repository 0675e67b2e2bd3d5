"""What the optprime-log rules share."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

from lint.formats.optprime_log.outcome import Attempts, Cause, RunOutcome
from lint.formats.optprime_log.records import (
    RECORD_TYPES,
    ConfigRecord,
    LayerTimingRecord,
    Record,
    Stage2RankRecord,
    TimingHeaderRecord,
)
from lint.layout import OPTPRIME_PRINTED_ABOVE_ONE, optprime_implied
from lint.rule import Rule, RuleOptions, Violation, at

# The timing groups of one module each: a stage runs it once per micro-batch.
SINGLE_MODULE_GROUPS = ("embed", "lm_head")


def spans(numbers: Iterable[int]) -> str:
    """'0-4, 6, 8-15': the numbers, ascending, with runs of consecutive ones joined."""
    if isinstance(numbers, range) and numbers.step == 1:  # a stage or layer count can be any int64: never list it
        return _joined([numbers] if numbers.stop > numbers.start else [])
    runs: list[list[int]] = []  # [first, last]
    for number in sorted(set(numbers)):
        if runs and number == runs[-1][1] + 1:
            runs[-1][1] = number
        else:
            runs.append([number, number])
    return _joined([range(first, last + 1) for first, last in runs])


def gaps(numbers: Iterable[int], count: int) -> list[range]:
    """The runs of 0..count-1 not among ``numbers``, without listing 0..count-1 (count can be any int64)."""
    missing, start = [], 0
    for number in sorted({number for number in numbers if 0 <= number < count}):
        if number > start:
            missing.append(range(start, number))
        start = number + 1
    return [*missing, range(start, count)] if start < count else missing


def _joined(runs: list[range]) -> str:
    return ", ".join(str(run.start) if run.stop == run.start + 1 else f"{run.start}-{run.stop - 1}" for run in runs)


def timing_groups(layers: Iterable[str], layer_runs: list[range] | None = None) -> str:
    """'embed, layers 0-4, 6-15, lm_head': timing groups in the order the writer prints them (the numbered ones
    given as ``layer_runs`` instead, where listing them one by one could take any memory)."""
    names = set(layers)
    parts = ["embed"] if "embed" in names else []
    if layer_runs is None:
        numbered = [int(name) for name in names if name.isdigit()]
        if numbered:
            parts.append(("layer " if len(numbered) == 1 else "layers ") + spans(numbered))
    elif layer_runs:
        parts.append(("layer " if sum(run.stop - run.start for run in layer_runs) == 1 else "layers ") + _joined(layer_runs))
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
    record: ConfigRecord | None = None  # where it was printed

    def __str__(self) -> str:
        if self.line is None:
            return f"{self.label} {self.value} (not printed: OptimusPrime prints it only above 1)"
        return f"`{self.label}{self.value}` (line {self.line})"

    @classmethod
    def printed(cls, record: ConfigRecord) -> Setting:
        return cls(record.value, record.label, record.line, record)

    def violation(self, message: str) -> Violation:
        """A finding about this setting: at its printed value, else (a default) on no line."""
        if self.record is None:
            return Violation(self.line, None, message)
        return at(self.record, message, field="value")


class RunLayout:
    """The run's settings as the log printed them (the first value of each) and its first ``stage2rank``
    map: fed the config and stage2rank records of one log."""

    def __init__(self) -> None:
        self.settings: dict[str, Setting] = {}
        self.stage_map: Stage2RankRecord | None = None

    def check_config(self, record: ConfigRecord) -> tuple[()]:
        self.settings.setdefault(record.setting, Setting.printed(record))
        return ()

    def check_stage2rank(self, record: Stage2RankRecord) -> tuple[()]:
        if self.stage_map is None:
            self.stage_map = record
        return ()


class OptprimeLayout(Rule):
    """Base of optprime-log rules that read the run's settings (the first value printed of each) and
    its first ``stage2rank`` map (:class:`RunLayout`)."""

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        self.layout = RunLayout()

    @property
    def settings(self) -> dict[str, Setting]:
        return self.layout.settings

    @property
    def stage_map(self) -> Stage2RankRecord | None:
        return self.layout.stage_map

    def check_config(self, record: ConfigRecord) -> Iterable[Violation]:
        return self.layout.check_config(record)

    def check_stage2rank(self, record: Stage2RankRecord) -> Iterable[Violation]:
        return self.layout.check_stage2rank(record)

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
            yield total.violation(f"{total} but {self.formula} = {values} = {expected} ({', '.join(map(str, factors))})")


class RankOutputs:
    """Which ranks printed output of their own, where each rank's output ends, and how the run ended
    (:class:`RunOutcome`): fed every record of one log.

    Every record that carries a rank counts as output, except the entries of torchrun's failure report:
    torchrun prints those about its workers.
    """

    def __init__(self) -> None:
        self.last_output: dict[int, int] = {}  # rank -> line
        self.outcome = RunOutcome()
        self.world: Setting | None = None  # the world size as the log printed it first: the ranks there are

    def observe(self, record: Record) -> tuple[()]:
        self.outcome.add(record)
        kind = record.kind
        if record.rank is not None and not kind.startswith("failure_"):
            self.last_output[record.rank] = record.line
        if kind == "config" and self.world is None and isinstance(record, ConfigRecord) and record.setting == "world_size":
            self.world = Setting.printed(record)
        return ()

    def observe_output(self, record: Record) -> tuple[()]:
        """:meth:`observe` for a kind that tells neither how the run ended nor a setting, nor is a failure report
        entry: most records (timing, set-up)."""
        if record.rank is not None:
            self.last_output[record.rank] = record.line
        return ()

    @staticmethod
    def observer(kind: str) -> str:
        """The name of what observes a record of ``kind``: :meth:`observe`, or where that reduces to it :meth:`observe_output`."""
        if kind == "config" or kind.startswith("failure_") or RunOutcome.reads(kind):
            return "observe"
        return "observe_output"


class RankOutput(Rule):
    """Base of optprime-log rules that read :class:`RankOutputs`: they look at every record of the log."""

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        self.output = RankOutputs()

    @classmethod
    def handlers(cls) -> dict[str, tuple[str, str | None]]:
        """Every record kind of an optprime log, to what observes it (RankOutputs.observer); a subclass's own
        ``check_<kind>`` methods besides."""
        return {**_OBSERVED, **super().handlers()}

    def observe(self, record: Record) -> tuple[()]:
        return self.output.observe(record)

    def observe_output(self, record: Record) -> tuple[()]:
        return self.output.observe_output(record)

    @property
    def outcome(self) -> RunOutcome:
        return self.output.outcome

    @property
    def last_output(self) -> dict[int, int]:
        return self.output.last_output


_OBSERVED: dict[str, tuple[str, str | None]] = {record_type.kind: (RankOutputs.observer(record_type.kind), None) for record_type in RECORD_TYPES}


class StageTimes(NamedTuple):
    """The groups one stage timed in one step, as the first of its ranks to print the step printed them
    (a named tuple: one is made per stage and step, and a frozen dataclass costs twice as much to make)."""

    stage: int
    rank: int
    line: int  # where the timing header is
    column: int
    groups: tuple[tuple[str, int], ...]  # (layer, ops) in printed order


class StepTimings:
    """The groups each stage timed in each step, as the first of its ranks to print the step printed them:
    fed every timing header and layer record of one log."""

    def __init__(self) -> None:
        self.open: dict[int, tuple[TimingHeaderRecord, list[tuple[str, int]]]] = {}  # rank -> latest header, its groups
        self.steps: dict[int, dict[int, StageTimes]] = {}  # step -> stage -> what it timed
        self.distinct: dict[tuple[tuple[str, int], ...], tuple[tuple[str, int], ...]] = {}  # one copy: steps repeat them

    def check_timing_header(self, record: TimingHeaderRecord) -> tuple[()]:
        self._close(record.rank)
        self.open[record.rank] = (record, [])
        return ()

    def check_layer_timing(self, record: LayerTimingRecord) -> tuple[()]:
        opened = self.open.get(record.rank) if record.rank is not None else None
        if opened is not None:
            opened[1].append((record.layer, record.ops))
        return ()

    def close(self) -> dict[int, dict[int, StageTimes]]:
        """After the last record: the steps, with the blocks still open closed."""
        for rank in list(self.open):
            self._close(rank)
        return self.steps

    def _close(self, rank: int) -> None:
        opened = self.open.pop(rank, None)
        if opened is None:
            return
        header, groups = opened
        stages = self.steps.get(header.step)
        if stages is None:  # (not setdefault: that makes a dict per header, which this runs for)
            stages = self.steps[header.step] = {}
        if header.stage not in stages:
            printed = tuple(groups)
            stages[header.stage] = StageTimes(header.stage, header.rank, header.line, header.column, self.distinct.setdefault(printed, printed))


class StepsByStage(OptprimeLayout):
    """Base of optprime-log rules that judge a step across the pipeline: the groups every stage timed
    (:class:`StepTimings`, one copy per log however many of them run).

    The ranks of a stage time the same groups, so the first of them to print a step speaks for the
    stage.  A step is judged only when every stage timed it: the log of some ranks (torchrun's
    ``--local-ranks-filter``, one node of a multi-node job) or of a run that stopped has incomplete steps.
    Stages time the same groups every step, so steps alike are judged once, at the first of them.
    """

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        self.timings = StepTimings()

    def judge(self, step: int, stages: list[StageTimes], alike: str) -> Iterator[Violation]:
        """Findings of the step ``step``, which every stage timed; ``alike`` names the later steps like it."""
        raise NotImplementedError

    def check_timing_header(self, record: TimingHeaderRecord) -> tuple[()]:
        return self.timings.check_timing_header(record)

    def check_layer_timing(self, record: LayerTimingRecord) -> tuple[()]:
        return self.timings.check_layer_timing(record)

    def finish(self) -> Iterator[Violation]:
        by_step = self.timings.close()
        count = self.stage_count()
        if count is None:
            return
        alike: dict[tuple[tuple[tuple[str, int], ...], ...], list[int]] = {}  # every stage's groups -> the steps
        for step, stages in by_step.items():
            if all(stage in stages for stage in range(count)):
                alike.setdefault(tuple(stages[stage].groups for stage in range(count)), []).append(step)
        for steps in alike.values():
            first = by_step[steps[0]]
            repeats = len(steps) - 1
            more = f" (and {repeats} more {'step' if repeats == 1 else 'steps'} alike)" if repeats else ""
            yield from self.judge(steps[0], [first[stage] for stage in range(count)], more)


def restarts(causes: list[Cause]) -> str:
    """`` after torchrun restarted the workers once (the first attempt: …, line N)``, or nothing."""
    if not causes:
        return ""
    times = "once" if len(causes) == 1 else f"{len(causes)} times"
    ordinals = ("first", "second", "third")
    earlier = "; ".join(
        f"the {ordinals[index] if index < len(ordinals) else f'{index + 1}th'} attempt: {cause.text}, line {cause.line}" for index, cause in enumerate(causes)
    )
    return f" after torchrun restarted the workers {times} ({earlier})"


class StartsOverOnRestart(Rule):
    """Base (first in the bases) of optprime-log rules that count from the start of the workers' output: when
    torchrun restarts the workers (``--max-restarts``, see :class:`Attempts`), :meth:`start_over` is called and
    the new attempt is judged on its own."""

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        self.attempts = Attempts()

    def start_over(self) -> None:
        raise NotImplementedError

    def _observe_attempt(self, record: Record) -> tuple[()]:
        if self.attempts.observe(record.kind):
            self.start_over()
        return ()

    check_child_failed = check_env_check = check_failure_title = check_death_signal = _observe_attempt
