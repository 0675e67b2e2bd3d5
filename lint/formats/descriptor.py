"""The one description of each input format; every per-format registry of the linter is derived from it.

Adding a format means one :class:`Format` here, its grammar in ``grammars/``, its parser module in
:mod:`lint.formats`, its model module in :mod:`lint.models`, its diff adapter in :mod:`lint.diff.adapters`,
and the rules that name it in their ``formats``.  Detection order, the ``--trace-format`` choices, which
files form multi-rank runs, the diff adapters and the formats whose files state a run's layout are all
read from :data:`FORMATS` (see the views in :mod:`lint.formats`).

Modules are named, not imported, so that the start-up of a check loads only the parsers it uses.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Format:
    name: str  # as the user names it (--trace-format) and as rules list it in ``formats``
    parser: str  # the module with ``detect(first_lines) -> Evidence`` and a stateless ``Parser``
    grammar: str  # grammars/<grammar>.lark, the single definition of a line's syntax
    model: str  # the module of the records the parser yields (what rules see)
    diff_adapter: str  # the module with ``load(path, sources, options) -> Profile`` for `tlint diff`
    runs: bool = False  # the files of one job's ranks form a run, checked together by the run rules
    states_layout: str | None = None  # the [tool.tlint.runs] key naming such a file as a statement of a run's layout


# Detection order: the formats with the most distinctive first lines come first.
FORMATS: tuple[Format, ...] = (
    Format(
        "megatron-trace", "lint.formats.megatron_trace", "megatron-trace", "lint.models.megatron_trace",
        "lint.diff.adapters.megatron_trace", runs=True,
    ),
    Format(
        "neusight-tsv", "lint.formats.neusight_tsv", "neusight-tsv", "lint.models.neusight_tsv",
        "lint.diff.adapters.neusight_tsv",
    ),
    Format(
        "simai-workload", "lint.formats.simai_workload", "simai-workload", "lint.models.simai_workload",
        "lint.diff.adapters.simai_workload", states_layout="workload",
    ),
    Format(
        "optprime-log", "lint.formats.optprime_log", "optprime-log", "lint.models.optprime_log",
        "lint.diff.adapters.optprime_log", states_layout="log",
    ),
)
