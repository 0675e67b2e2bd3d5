"""What the logs and workloads a configuration names say about a run's layout (``[tool.tlint.runs]``).

Each key (``log``, ``workload``, …) is a format's descriptor's ``states_layout``; that format's ``stated``
module reads the sizes from the file's records (``stated_layout(records)``, by :mod:`lint.layout`).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from lint import formats
from lint.models.errors import ConfigError
from lint.read.source import InputError, Source
from lint.runs.sources import LayoutSources

if TYPE_CHECKING:
    from lint.runs.model import LayoutClaim


class DescriptionError(ValueError):
    """A configured log or workload that cannot be read as one."""


def configured_sources(command_line: dict[str, int], configured: Mapping[str, object], config_root: Path) -> LayoutSources:
    """The layout sources of a check, with the logs and workloads the configuration names already read.

    ``configured``: ``[tool.tlint.runs]``, glob -> its entry (the sizes it states, and under each format's
    ``states_layout`` key the file of that format it names).
    """
    sources = LayoutSources(command_line, dict(configured), config_root)
    for pattern, layout in configured.items():
        for kind in formats.layout_keys():
            named = getattr(layout, kind, None)
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


def described_layout(path: Path, kind: str) -> tuple[list[LayoutClaim], dict[int, list[int]] | None]:
    """The layout claims of the file at ``path`` named under ``kind`` and, where it prints one, its ``stage2rank``."""
    stating = formats.stating_layout(kind)
    format_name = stating.name
    source = Source(path, str(path))
    try:
        if formats.detect(source.head()) != format_name:
            raise DescriptionError(f"{path} is not an {format_name} file")
        items = list(formats.parser(format_name).parse(source.lines()))
    except InputError as error:  # its message names the file and why already
        raise DescriptionError(str(error)) from None
    except OSError as error:
        raise DescriptionError(f"{path}: cannot read: {error.strerror or error}") from None
    from lint.runs.model import LayoutClaim  # with the models of runs, which need pydantic

    described = f"the {kind} {path}"
    # Imported here: few runs name a log or workload, and building these models costs every check start-up time.
    sizes, stage2rank = importlib.import_module(stating.stated).stated_layout(items)
    claims = [LayoutClaim(dimension=d, value=v, source=described) for d, v in sizes.known().items()]
    return claims, stage2rank
