"""What a run's optprime-log or simai-workload says about its layout (``[tool.tlint.runs]`` ``log``/``workload``)."""

from __future__ import annotations

from pathlib import Path

from lint import formats
from lint.runs.model import LayoutClaim
from lint.source import InputError, Source


class DescriptionError(ValueError):
    """A configured log or workload that cannot be read as one."""


def described_layout(path: Path, kind: str) -> tuple[list[LayoutClaim], dict[int, list[int]] | None]:
    """The layout claims of the log or workload at ``path`` and, for a log, its ``stage2rank``."""
    format_name = "optprime-log" if kind == "log" else "simai-workload"
    source = Source(path, str(path))
    try:
        if formats.detect(source.head()) != format_name:
            raise DescriptionError(f"{path} is not an {format_name} file")
        items = list(formats.parser(format_name).parse(source.lines()))
    except (InputError, OSError) as error:
        raise DescriptionError(f"{path}: cannot read: {getattr(error, 'strerror', None) or error}") from None
    described = f"the {kind} {path}"
    # Imported here: few runs name a log or workload, and building these models costs every check start-up time.
    from lint.models.optprime_log import OptprimeLog
    from lint.models.simai_workload import Workload

    if kind == "log":
        log = OptprimeLog.from_records(items)
        values = {d: log.config.get(key) for d, key in (("tp", "tp"), ("pp", "pp"), ("dp", "dp"), ("world", "world_size"))}
        stage2rank = log.stage2rank
    else:
        header = Workload.from_records(items).header
        values = {d: getattr(header, key, None) for d, key in (("tp", "tp"), ("pp", "pp"), ("ep", "ep"), ("world", "all_gpus"))}
        stage2rank = None
    claims = [LayoutClaim(dimension=d, value=int(v), source=described) for d, v in values.items() if isinstance(v, int | float) and v > 0]
    return claims, stage2rank
