"""What the neusight-tsv rules share."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from lint.rule import PerAlikeRow, Rule, RuleOptions, Violation, at

if TYPE_CHECKING:
    from lint.formats.neusight_tsv.records import LayerRecord


Said = tuple[str, str]  # (the column a finding is about, its message)


class NeusightRowMessages(Rule):
    """Base of neusight-tsv rules whose findings on a row follow from what the row says alone: a table
    repeats its rows, so they are worked out once per distinct row and given at every row alike."""

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        self.known: PerAlikeRow[tuple[Said, ...]] = PerAlikeRow()

    def messages(self, row: LayerRecord) -> Iterator[Said]:
        """What is wrong with ``row``: the column each finding is about, and its message."""
        raise NotImplementedError

    def _messages(self, row: LayerRecord) -> tuple[Said, ...]:
        messages = self.known.get(row.alike)
        if messages is None:
            messages = self.known.remember(row, tuple(self.messages(row)))
        return messages

    def check_layer(self, row: LayerRecord) -> Iterable[Violation]:
        messages = self._messages(row)
        return [at(row, message, field=field) for field, message in messages] if messages else ()
