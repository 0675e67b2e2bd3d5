"""What a neusight-tsv file sums up to for the differ: its layer rows in file order (pydantic: a summary
is built only where one is compared)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict

from lint.formats.neusight_tsv.records import LayerRecord


class NeusightTable(BaseModel):
    """The layer rows of one file in file order: what the differ compares."""

    model_config = ConfigDict(frozen=True)

    rows: list[LayerRecord]

    @classmethod
    def from_records(cls, records: Iterable[Any]) -> NeusightTable:
        """The table of a parser's output; the header and lines with syntax problems are left out."""
        return cls(rows=[record for record in records if isinstance(record, LayerRecord)])
