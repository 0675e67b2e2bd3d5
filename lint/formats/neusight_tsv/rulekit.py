"""What the neusight-tsv rules share."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from lint.rule import Rule, Violation, at

if TYPE_CHECKING:
    from lint.formats.neusight_tsv.records import LayerRecord


class NeusightRowMessages(Rule):
    """Base of neusight-tsv rules whose findings on a row follow from what the row says alone, one per message."""

    def messages(self, row: LayerRecord) -> Iterator[str]:
        """What is wrong with ``row``."""
        raise NotImplementedError

    def check_layer(self, row: LayerRecord) -> Iterable[Violation]:
        return [at(row, message) for message in self.messages(row)]
