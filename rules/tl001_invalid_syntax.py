from lint.formats import FORMAT_NAMES
from lint.rule import Rule, Scope, Severity


class InvalidSyntax(Rule):
    """A line does not match its format's grammar.

    tlint reads every line with the strict grammar of its format (``grammars/<format>.lark``) and says
    where the line breaks it: the column, what was found and what the grammar expected there.  Parsing
    resumes at the next line, so one bad line never hides the rest of the file.

    Why it matters:
        The simulator or script that consumes the file either stops at this line or, worse, reads it
        with a different meaning (a missing field shifts every later column), and the simulation or
        analysis built on it is silently wrong.

    Example:
        In a ``megatron-trace`` record, a letter where the stage id belongs::

            rank:3:forward_step(stage_id=x,batch_id=0,...
            -> expected a non-negative integer, found 'x'
    """

    code = "TL001"
    name = "invalid-syntax"
    severity = Severity.ERROR
    formats = FORMAT_NAMES
    scope = Scope.PARSER
