"""Building blocks shared by the rules of several formats (the rules themselves live in ``rules/``).

What the rules of one format share lives in that format's module here (``lint.rulekit.simai``, …), so that
checking one format never loads another's models."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar, TypeVar

from lint.models.common import RowKeyed
from lint.rule import Rule, RuleOptions, Violation, at

T = TypeVar("T")
S = TypeVar("S")


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
            return (at(record, f"{noun} {value} in a file of {noun} {self.first[0]} (first record: line {self.first[1]})", field=self.field),)
        return ()

    check_op = _check
    check_ddp_grad_comm = _check


def format_shape(shape: tuple[int, ...] | None) -> str:
    return "None" if shape is None else "[" + ", ".join(map(str, shape)) + "]"


def quotient(dividend: int, divisor: int) -> str:
    """``dividend / divisor`` as a message shows it: a whole number when it is one."""
    whole, rest = divmod(dividend, divisor)
    return f"{dividend / divisor:.3f}".rstrip("0") if rest else str(whole)


class PerAlikeRow(RowKeyed[int, T]):
    """What a rule concluded about a row, remembered for the rows alike (by their ``alike``, see
    :func:`lint.models.common.new_alike`): a workload repeats a few dozen rows over and over, so a rule
    judges each of them once.  Emptied when it holds too many: a file of endlessly new rows must not grow
    memory (the rule then judges rows again); in a file whose rows rarely repeat
    (:func:`lint.models.common.rarely_repeat`) it stops remembering."""

    ENTRIES = 4096

    def remember(self, row: Any, value: T) -> T:
        """``value``, remembered for ``row`` (a record with ``alike`` and ``line``) and the rows alike."""
        if self.worth_remembering(row.line):
            if len(self) >= self.ENTRIES:
                self.clear()
            self[row.alike] = value
        return value


def shared_state(rule: Rule, shared: dict[type, Any], own: S, kinds: Iterable[str], method: str | None = None) -> S:
    """The one per-file state of ``own``'s type that the rules of a file share (``own`` for the first of
    them, see Rule.share), with the rule's ``check_<kind>`` pointed at that state's (its ``method``, else
    its own ``check_<kind>``): the engine calls a handler rules share once per record."""
    state: S = shared.setdefault(type(own), own)
    for kind in kinds:
        setattr(rule, f"check_{kind}", getattr(state, method or f"check_{kind}"))
    return state
