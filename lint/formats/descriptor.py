"""What a format is to the rest of tlint: its descriptor, and what its detector answers.

Each format is one package, ``lint.formats.<name>``, whose ``__init__`` holds nothing but its
:class:`Format` (``FORMAT``), so that reading the descriptors imports no parser.  The package's modules
have fixed roles, named by the descriptor's properties:

- ``parser``: ``detect(first_lines) -> Evidence`` and a stateless ``Parser`` (the fast path, with the
  grammar in ``grammars/<grammar>.lark`` behind it), and ``shared_parser()`` where detection itself parses
  (the one instance the views then hand out too); for a format with consumers ``judged_for(first_lines)``;
- ``records``: the records the parser yields (what rules see);
- ``diff``: ``load(path, sources, reading) -> Profile`` for `tlint diff`;
- ``summary``: what a file sums up to (for the differ, its stated layout); a format whose files form runs
  has its ``Summarizer``, ``RankSummary``, ``Run`` and ``summaries_shared`` there;
- ``stated`` (a format whose files state a run's layout): ``stated_layout(records) -> (Sizes, stage2rank)``;
- ``rulekit`` (where its rules share code): the bases and helpers of its rules in ``rules/``.

Detection order, the ``--trace-format`` choices, which files form runs, the diff adapters and the
``[tool.tlint.runs]`` keys are views of the descriptors (:mod:`lint.formats`).
"""

from __future__ import annotations

from lint.models.common import Record
from lint.models.consumers import Consumer


class Format(Record):
    """One input format.

    ``name``: as the user names it (``--trace-format``) and as rules list it in their ``formats``.
    ``package``: its package, whose modules are named by role (see the properties).
    ``grammar``: ``grammars/<grammar>.lark``, the single definition of its syntax; None for a binary format.
    ``order``: its place in detection order (lower first): the formats with the most distinctive first
    lines come first.
    ``runs``: the files of one job's ranks form a run, summarised per file and checked together by the run rules.
    ``states_layout``: the ``[tool.tlint.runs]`` key under which a file of this format states a run's
    layout, and ``states_layout_doc`` what that key names.
    ``console``: a file is a console capture that several processes and threads print into at once, so bytes
    that are no text are the console's damage, reported as TL006 (a warning), not the writer's (TL003).
    ``binary``: the files are no text: the parser module's ``detect_bytes(head, complete)`` recognises their first
    bytes (after the text formats declined them) and its ``Parser.read(source)`` reads the records from the bytes.
    ``rank_name``: a run format's file names, as a regex with ``stem`` and ``rank`` groups, when they are not the
    ``…rank{R}…`` of ``--rank-regex``'s default.
    ``consumers``: the programs that read its files (:mod:`lint.models.consumers`); a format with consumers has
    its parser define ``judged_for(first_lines) -> Judged``, the consumer a file shows it is written for.
    ``keeps_bom``: its consumers read a UTF-8 byte-order mark as text of the first line, so the parser gets it.
    """

    __slots__ = (
        "name",
        "package",
        "grammar",
        "order",
        "runs",
        "states_layout",
        "states_layout_doc",
        "console",
        "binary",
        "rank_name",
        "consumers",
        "keeps_bom",
    )

    def __init__(
        self,
        name: str,
        package: str,
        grammar: str | None,
        order: int,
        runs: bool = False,
        states_layout: str | None = None,
        states_layout_doc: str = "",
        console: bool = False,
        binary: bool = False,
        rank_name: str | None = None,
        consumers: tuple[Consumer, ...] = (),
        keeps_bom: bool = False,
    ) -> None:
        self.name = name
        self.package = package
        self.grammar = grammar
        self.order = order
        self.runs = runs
        self.states_layout = states_layout
        self.states_layout_doc = states_layout_doc
        self.console = console
        self.binary = binary
        self.rank_name = rank_name
        self.consumers = consumers
        self.keeps_bom = keeps_bom

    @property
    def parser(self) -> str:
        return f"{self.package}.parser"

    @property
    def model(self) -> str:
        return f"{self.package}.records"

    @property
    def diff_adapter(self) -> str:
        return f"{self.package}.diff"

    @property
    def summary(self) -> str:
        return f"{self.package}.summary"

    @property
    def stated(self) -> str:
        return f"{self.package}.stated"


class Evidence(Record):
    """What one format's detector saw in a file's first lines (true when it recognises the format).

    Detection judges the structure of the first records, not the first line alone: a damaged line at the
    top of a trace must be reported by the format's parser, not make the file pass as unknown.
    """

    __slots__ = ("recognised", "share", "seen")

    def __init__(self, recognised: bool, share: float, seen: str) -> None:
        self.recognised = recognised
        self.share = share  # of the non-empty first lines, the part shaped like this format's records: ranks the closest format
        self.seen = seen  # what was seen, in words, for a file no format recognises

    def __bool__(self) -> bool:
        return self.recognised

    @classmethod
    def majority(cls, matched: int, lines: int, shape: str, also: str = "") -> Evidence:
        """Recognised when more than half of the ``lines`` non-empty first lines are ``shape``; ``also`` is what
        else the detector saw."""
        return cls(2 * matched > lines, matched / lines if lines else 0.0, f"{also}{matched} of {lines} non-empty lines {shape}")


# The first lines of a file a detector weighs (of the head, ``Source.head``): enough for every format to show
# itself, few enough that a note quoting a few records is not taken for a trace.  An optprime log may look
# further, past a preamble of its launcher's own log lines.
HEAD_LINES = 200
