"""Layout statements from outside the traces, which a check gathers before it reads any file."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from lint.config import ConfigError
from lint.formats import layout_keys

if TYPE_CHECKING:
    from lint.config import RunLayout
    from lint.runs.discovery import RunKey
    from lint.runs.model import LayoutClaim


@dataclass
class LayoutSources:
    """Layout statements from outside the traces: the command line and ``[tool.tlint.runs]``."""

    command_line: dict[str, int] = field(default_factory=dict)
    configured: dict[str, RunLayout] = field(default_factory=dict)  # glob -> layout
    config_root: Path = field(default_factory=Path.cwd)
    described: dict[str, list[LayoutClaim]] = field(default_factory=dict)  # glob -> claims of its log/workload
    stage2ranks: dict[str, tuple[dict[int, list[int]], str]] = field(default_factory=dict)  # glob -> (map, source)

    @classmethod
    def configure(cls, command_line: dict[str, int], configured: dict[str, RunLayout], config_root: Path) -> LayoutSources:
        """The sources, with the logs and workloads the configuration names already read."""
        sources = cls(command_line, configured, config_root)
        if not configured:
            return sources
        from lint.runs.described import DescriptionError, described_layout  # with the models of runs, which need pydantic

        for pattern, layout in configured.items():
            for kind in layout_keys():
                named = getattr(layout, kind)
                if named is None:
                    continue
                try:
                    claims, stage2rank = described_layout(config_root / named, kind)
                except DescriptionError as error:
                    raise ConfigError(f'[tool.tlint.runs."{pattern}"] {kind}: {error}') from None
                sources.described.setdefault(pattern, []).extend(claims)
                if stage2rank is not None:
                    sources.stage2ranks[pattern] = (stage2rank, f"the stage2rank of the log {config_root / named}")
        return sources

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
