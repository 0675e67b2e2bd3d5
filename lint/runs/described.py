"""What a run's optprime-log or simai-workload says about its layout (``[tool.tlint.runs]`` ``log``/``workload``).

The key names the format (its descriptor's ``states_layout``); the format's model module reads the sizes
(``stated_layout(records)``, by :mod:`lint.layout`).
"""

from __future__ import annotations

import importlib
from pathlib import Path

from lint import formats
from lint.runs.model import LayoutClaim
from lint.source import InputError, Source


class DescriptionError(ValueError):
    """A configured log or workload that cannot be read as one."""


def described_layout(path: Path, kind: str) -> tuple[list[LayoutClaim], dict[int, list[int]] | None]:
    """The layout claims of the log or workload at ``path`` and, for a log, its ``stage2rank``."""
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
    described = f"the {kind} {path}"
    # The model module reads it (imported here: few runs name a log or workload, and building these models
    # costs every check start-up time).
    sizes, stage2rank = importlib.import_module(stating.model).stated_layout(items)
    claims = [LayoutClaim(dimension=d, value=v, source=described) for d, v in sizes.known().items()]
    return claims, stage2rank
