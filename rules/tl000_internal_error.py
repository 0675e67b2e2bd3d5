from lint.formats import FORMAT_NAMES
from lint.rule import Rule, Scope, Severity


class InternalError(Rule):
    """A rule failed on this file and was skipped for the rest of it.

    This is a bug in tlint, not in your file: the finding names the rule, the line it was checking and the
    Python error.  Every other rule still ran, so the rest of the report is complete.

    Why it matters:
        A rule that crashed checked nothing after the failure; the file may hold problems that rule would
        have reported.  Please report the message (and, if you can, the line) to the tlint issue tracker.

    Example:
        rule TL104 (sub-op-outside-op) failed at line 12 and was skipped for this file: ZeroDivisionError: ...
    """

    code = "TL000"
    name = "internal-error"
    severity = Severity.ERROR
    formats = FORMAT_NAMES
    scope = Scope.PARSER
