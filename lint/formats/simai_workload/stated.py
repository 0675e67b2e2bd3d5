"""What a simai workload states about its job's layout (``[tool.tlint.runs]`` ``workload``)."""

from __future__ import annotations

from collections.abc import Iterable

from lint.formats.simai_workload.summary import Workload
from lint.layout import Sizes, simai_sizes


def stated_layout(records: Iterable[object]) -> tuple[Sizes, None]:
    """The parallel sizes the workload's header gives, as SimAI reads them: what a run's traces are checked
    against when the configuration names this workload (``[tool.tlint.runs]`` ``workload``)."""
    header = Workload.from_records(records).header
    if header is None:
        return Sizes(), None
    return simai_sizes(header.read("tp"), header.read("pp"), header.read("ep"), header.read("all_gpus")), None
