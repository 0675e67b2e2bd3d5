"""What the megatron-trace rules share (the rules themselves live in ``rules/``)."""

from __future__ import annotations

from typing import Any, ClassVar

from lint.rule import Rule, RuleOptions, Violation, at


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
