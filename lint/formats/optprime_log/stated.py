"""What an optprime log states about its job's layout (``[tool.tlint.runs]`` ``log``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from lint.formats.optprime_log.summary import OptprimeLog
from lint.layout import Sizes, optprime_sizes


def stated_layout(records: Iterable[Any]) -> tuple[Sizes, dict[int, list[int]] | None]:
    """The parallel sizes the log states (printed or implied) and its first ``stage2rank``: what a run's
    traces are checked against when the configuration names this log (``[tool.tlint.runs]`` ``log``)."""
    log = OptprimeLog.from_records(records)
    return optprime_sizes(log.config), log.stage2rank
