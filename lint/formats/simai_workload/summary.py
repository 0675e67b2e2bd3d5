"""What a simai-workload file sums up to, as SimAI would load it: for the differ and the layout it states
(pydantic: a summary is built only where one is compared or read for its layout)."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, Field

from lint.formats.simai_workload.records import Header, LayerCount, LayerRow


class Workload(BaseModel):
    """A whole workload file: what SimAI would load from it (header, declared row count, rows)."""

    header: Header | None = None
    declared_count: int | None = None
    rows: list[LayerRow] = Field(default_factory=list)

    @classmethod
    def from_records(cls, records: Iterable[object]) -> Workload:
        """Collect a parser's stream; syntax problems are left out (the linter reports them)."""
        header: Header | None = None
        declared_count: int | None = None
        rows: list[LayerRow] = []
        for record in records:
            if isinstance(record, LayerRow):
                rows.append(record)
            elif isinstance(record, Header):
                header = record
            elif isinstance(record, LayerCount):
                declared_count = record.count
        return cls(header=header, declared_count=declared_count, rows=rows)
