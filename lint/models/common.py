"""Records every format shares."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar


@dataclass(slots=True)
class SyntaxProblem:
    """A line (or part of one) that the format's grammar rejects; the engine turns it into a finding."""

    kind: ClassVar[str] = "syntax"
    line: int
    column: int
    code: str
    message: str
    rank: int | None = None
