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
    """One input format.

    ``name``: as the user names it (``--trace-format``) and as rules list it in their ``formats``.
    ``parser``: the module with ``detect(first_lines) -> Evidence`` and a stateless ``Parser``.
    ``grammar``: ``grammars/<grammar>.lark``, the single definition of a line's syntax; None for a binary format.
    ``model``: the module of the records the parser yields (what rules see); a format that ``states_layout``
    gives it ``stated_layout(records) -> (Sizes, stage2rank or None)``.
    ``diff_adapter``: the module with ``load(path, sources, options) -> Profile`` for `tlint diff`.
    ``runs``: the files of one job's ranks form a run, summarised per file and checked together by the run rules.
    ``states_layout``: the ``[tool.tlint.runs]`` key under which a file of this format states a run's layout.
    ``console``: a file is a console capture that several processes and threads print into at once, so bytes
    that are no text are the console's damage, reported as TL006 (a warning), not the writer's (TL003).
    ``binary``: the files are no text: the parser module's ``detect_bytes(head, complete)`` recognises their first
    bytes (after the text formats declined them) and its ``Parser.read(source)`` reads the records from the bytes.
    ``rank_name``: a run format's file names, as a regex with ``stem`` and ``rank`` groups, when they are not the
    ``…rank{R}…`` of ``--rank-regex``'s default.
    ``summary``: the module whose ``Summarizer(path)`` reduces a file of a run format to what its run rules compare
    (default: :mod:`lint.runs.summary`, the megatron rank summary).
    ``consumers``: the programs that read the format, whose behaviour its rules' severities follow (the first is the
    one a file is judged for unless told otherwise): what a ``--consumer`` setting chooses among.
    """

    name: str
    parser: str
    grammar: str | None
    model: str
    diff_adapter: str
    runs: bool = False
    states_layout: str | None = None
    console: bool = False
    binary: bool = False
    rank_name: str | None = None
    summary: str | None = None
    consumers: tuple[str, ...] = ()


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
    Format(
        name="chakra-et",
        parser="lint.formats.chakra_et.parser",
        grammar=None,
        model="lint.formats.chakra_et.records",
        diff_adapter="lint.formats.chakra_et.diff",
        runs=True,
        binary=True,
        rank_name=r"^(?P<stem>.+\.)(?P<rank>[0-9]+)\.et$",
        summary="lint.formats.chakra_et.summary",
        consumers=("astra-sim-2",),  # ASTRA-sim 2.0 with FeederV3 (docs/formats/chakra-et.md)
    ),
)
