from lint.formats import FORMAT_NAMES
from lint.rule import Rule, Scope, Severity


class UnknownFormat(Rule):
    """A file named on the command line is of no format tlint knows.

    tlint recognises a format by the structure of a file's first records, so a damaged first line does not
    hide a trace.  A file that still matches no format is reported when it was named explicitly (as a
    pre-commit hook names every file it passes): the finding names the closest format and what it saw.
    Files found by walking a directory or expanding a glob are skipped instead and listed in the summary, and
    so is a named file whose name says it is documentation or source code (``.md``, ``.rst``, ``.py``,
    ``.sh``, ``.patch``: ``lint.formats.NOT_A_TRACE``), as a shell glob over a run's folder names its README:
    no writer of these formats produces one, so it cannot be a damaged trace.  A trace is read as one
    whatever its name: the name counts only when the content matches no format.

    Why it matters:
        A named file is meant to be a trace.  If it matches no format it is empty, damaged beyond
        recognition or of the wrong kind; letting it pass would let a hook accept corrupted data.

    Example:
        An empty ``trace_rank3.txt``
        -> not a known trace format: the file is empty (use --trace-format to force one)
    """

    code = "TL005"
    name = "unknown-format"
    severity = Severity.ERROR
    formats = FORMAT_NAMES
    scope = Scope.PARSER
