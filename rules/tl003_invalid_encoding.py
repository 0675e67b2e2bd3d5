from lint.formats import FORMAT_NAMES
from lint.rule import Rule, Scope, Severity


class InvalidEncoding(Rule):
    """A line holds bytes that are not UTF-8 text, or a NUL byte.

    Every format tlint reads is text written by Python or C++ in UTF-8 (or plain ASCII).  Invalid bytes
    are reported at their column and replaced by U+FFFD so that the rest of the line is still checked.
    No writer prints a NUL byte (Python's ``print`` of the writers' strings cannot produce one); a NUL is
    reported at its column, and the line is still checked.  A console log (optprime-log) is the exception:
    threads of torchrun print into it at once and can write junk there, which TL006 reports as a warning.

    Why it matters:
        Invalid bytes in a trace come from a truncated write, a concatenated binary file or a copy through
        a tool with the wrong encoding; the record they sit in is damaged even where it still parses.

    Example:
        A byte 0xff in a record's description::

            rank:7:forward_step(stage_id=3,batch_id=0,...,description=\\xff,...
            -> invalid UTF-8 byte 0xff; the file must be UTF-8 text
    """

    code = "TL003"
    name = "invalid-encoding"
    severity = Severity.ERROR
    formats = FORMAT_NAMES
    scope = Scope.PARSER
