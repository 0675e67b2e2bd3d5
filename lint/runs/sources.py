"""Layout statements from outside the traces, which a check gathers before it reads any file."""

from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import TYPE_CHECKING

from lint.models.common import Record

if TYPE_CHECKING:
    from lint.runs.discovery import RunKey
    from lint.runs.model import LayoutClaim


class LayoutSources(Record):
    """Layout statements from outside the traces: the command line and ``[tool.tlint.runs]``."""

    __slots__ = ("command_line", "configured", "config_root", "described", "stage2ranks", "comm_group")

    def __init__(self, command_line: dict[str, int] | None = None, configured: dict[str, object] | None = None, config_root: Path | None = None) -> None:
        self.command_line = command_line if command_line is not None else {}
        self.configured = configured if configured is not None else {}  # glob -> the sizes it states (as attributes: ``[tool.tlint.runs]``)
        self.config_root = config_root if config_root is not None else Path.cwd()
        self.described: dict[str, list[LayoutClaim]] = {}  # glob -> claims of its log/workload
        self.stage2ranks: dict[str, tuple[dict[int, list[int]], str]] = {}  # glob -> (map, source)
        # The process groups of the runs whose format reads a file of them (chakra-et: ASTRA-sim's comm_group.json),
        # as the command line gives it (--comm-group); else each run looks beside its files.
        self.comm_group: Path | None = None

    def for_run(self, key: RunKey) -> tuple[list[LayoutClaim], str | None]:
        """Claims of the command line and of the first configured glob matching the run."""
        from lint.runs.model import DIMENSIONS, LayoutClaim

        claims = [LayoutClaim(dimension=d, value=v, source="the command line") for d, v in self.command_line.items()]
        directory = Path(key.directory)
        candidates = {directory.as_posix(), f"{directory.as_posix()}/{key.stem}"}
        try:
            relative = directory.resolve().relative_to(self.config_root.resolve()).as_posix()
            candidates |= {relative, f"{relative}/{key.stem}"}
        except ValueError:
            pass
        for pattern, layout in self.configured.items():
            if any(fnmatch.fnmatchcase(c, pattern) or fnmatch.fnmatchcase(c + "*", pattern) for c in candidates):
                source = f'[tool.tlint.runs."{pattern}"]'
                claims += [LayoutClaim(dimension=d, value=getattr(layout, d), source=source) for d in DIMENSIONS if getattr(layout, d, None) is not None]
                claims += self.described.get(pattern, [])
                return claims, pattern
        return claims, None
