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

from lint.models.consumers import Consumer


@dataclass(frozen=True)
class Format:
    """One input format.

    ``name``: as the user names it (``--trace-format``) and as rules list it in their ``formats``.
    ``parser``: the module with ``detect(first_lines) -> Evidence`` and a stateless ``Parser``.
    ``grammar``: ``grammars/<grammar>.lark``, the single definition of a line's syntax.
    ``model``: the module of the records the parser yields (what rules see); a format that ``states_layout``
    gives it ``stated_layout(records) -> (Sizes, stage2rank or None)``.
    ``diff_adapter``: the module with ``load(path, sources, options) -> Profile`` for `tlint diff`.
    ``runs``: the files of one job's ranks form a run, summarised per file and checked together by the run rules.
    ``states_layout``: the ``[tool.tlint.runs]`` key under which a file of this format states a run's layout.
    ``console``: a file is a console capture that several processes and threads print into at once, so bytes
    that are no text are the console's damage, reported as TL006 (a warning), not the writer's (TL003).
    ``consumers``: the programs that read its files (:mod:`lint.models.consumers`); a format with consumers has its
    parser module define ``judged_for(first_lines) -> Judged``, the consumer a file shows it is written for.
    ``keeps_bom``: its consumers read a UTF-8 byte-order mark as text of the first line, so the parser gets it.
    """

    name: str
    parser: str
    grammar: str
    model: str
    diff_adapter: str
    runs: bool = False
    states_layout: str | None = None
    console: bool = False
    consumers: tuple[Consumer, ...] = ()
    keeps_bom: bool = False


# The readers of simai-workload files (docs/formats/simai-workload.md).
SIMAI = Consumer(
    "simai",
    "SimAI",
    "aliyun/SimAI astra-sim-alibabacloud/astra-sim/workload/Workload.cc (Workload::initialize_workload) and Layer.cc, HEAD cef83f9d",
)
ASTRA_SIM_1 = Consumer(
    "astra-sim-1",
    "ASTRA-sim 1.0",
    "astra-sim/astra-sim branch ASTRA-sim-1.0 (07d5d19) astra-sim/workload/Workload.cc (Workload::initialize_workload)",
)


# Detection order: the formats with the most distinctive first lines come first.
FORMATS: tuple[Format, ...] = (
    Format(
        name="megatron-trace",
        parser="lint.formats.megatron_trace",
        grammar="megatron-trace",
        model="lint.models.megatron_trace",
        diff_adapter="lint.diff.adapters.megatron_trace",
        runs=True,
    ),
    Format(
        name="neusight-tsv",
        parser="lint.formats.neusight_tsv",
        grammar="neusight-tsv",
        model="lint.models.neusight_tsv",
        diff_adapter="lint.diff.adapters.neusight_tsv",
    ),
    Format(
        name="simai-workload",
        parser="lint.formats.simai_workload",
        grammar="simai-workload",
        model="lint.models.simai_workload",
        diff_adapter="lint.diff.adapters.simai_workload",
        states_layout="workload",
        consumers=(SIMAI, ASTRA_SIM_1),
        keeps_bom=True,
    ),
    Format(
        name="optprime-log",
        parser="lint.formats.optprime_log",
        grammar="optprime-log",
        model="lint.models.optprime_log",
        diff_adapter="lint.diff.adapters.optprime_log",
        states_layout="log",
        console=True,
    ),
)
