"""Records of a ``neusight-tsv`` table (docs/formats/neusight-tsv.md), and the whole table as one document.

A ``None`` comm type becomes Python ``None``, as the writer's ``str(None)`` came from it: rules test
``row.backward_comm_type is None`` and never compare against the literal text.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import lru_cache
from typing import ClassVar, Literal

from lint.models.common import LineRecord

CommType = Literal["ALLREDUCE", "ALLREDUCE_ASYNC", "SENDRECV"]

GRAD_SUFFIX = "_grad"  # the writer names the gradient row of layer X "X_grad"


@dataclass(slots=True)
class HeaderRecord(LineRecord):
    """The header row; the grammar admits only the exact eleven names, kept here in file order."""

    kind: ClassVar[str] = "header"
    line: int
    column: int
    columns: tuple[str, ...]


@dataclass(slots=True)
class LayerRecord(LineRecord):
    """One layer row.  Times are milliseconds, comm sizes are element counts (not bytes)."""

    kind: ClassVar[str] = "layer"
    line: int
    column: int
    name: str
    forward_compute_time: float
    forward_comm_type: CommType | None
    forward_comm_size: int
    backward_compute_time: float
    backward_comm_type: CommType | None
    backward_comm_size: int
    weight_grad_compute_time: float
    weight_grad_comm_type: CommType | None
    weight_grad_comm_size: int
    process_time: float

    @property
    def grad_of(self) -> str | None:
        """The layer whose data-parallel gradient this row all-reduces (``X`` for ``X_grad``), else None."""
        return _grad_of(self.name)


# Cached: every neusight rule asks each row, and a table repeats the same few layer names.  Bounded, so
# that a file of endlessly new names cannot grow memory.
@lru_cache(maxsize=4096)
def _grad_of(name: str) -> str | None:
    return name.removesuffix(GRAD_SUFFIX) if name.endswith(GRAD_SUFFIX) else None


# The table's columns are the row's fields after its position, in file order.
COLUMNS: tuple[str, ...] = tuple(spec.name for spec in fields(LayerRecord))[2:]
