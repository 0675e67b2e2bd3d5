"""What the neusight-tsv rules share."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from lint.rule import Rule, Violation, at

if TYPE_CHECKING:
    from lint.formats.neusight_tsv.records import LayerRecord


Said = tuple[str, str]  # (the column a finding is about, its message)


class NeusightRowMessages(Rule):
    """Base of neusight-tsv rules whose findings on a row follow from what the row says alone, one per message."""

    def messages(self, row: LayerRecord) -> Iterator[Said]:
        """What is wrong with ``row``: the column each finding is about, and its message."""
        raise NotImplementedError

    def check_layer(self, row: LayerRecord) -> Iterable[Violation]:
        return [at(row, message, field=field) for field, message in self.messages(row)]
