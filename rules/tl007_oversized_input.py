from lint.formats import FORMAT_NAMES
from lint.rule import Rule, Scope, Severity


class OversizedInput(Rule):
    """A line is longer than 4 MiB, or compressed data expands more than 200-fold: that part is not read.

    tlint bounds what one input can cost.  A line longer than 4 MiB is counted to its end, never held, and
    reported with its length; the lines after it are checked as usual.  Compressed data (gzip, bzip2, xz,
    zstd) may expand up to 200 times the bytes read of it once it has given 64 MiB; past that, reading
    stops and this finding says after which line (for a Chakra trace, which record: a binary format's bytes
    are read under the same bound).

    Why it matters:
        No writer of these formats prints such a line (the longest line of the real files is under 8 kB; a
        megatron op with a thousand sub-operations is a few hundred kB), and traces compress 15 to 25 times:
        a line that long is binary data or lines run together without their newlines, and data that expands
        so much is no trace (a few kilobytes of gzip can decompress to gigabytes).  What was not read was not
        checked, so the file cannot be called valid.

    Example:
        A megatron trace whose second line is 5 MiB of one character::

            rank:7:forward_step(stage_id=3,...)
            xxxxxxxx… (5,242,880 bytes)
            -> line 2 is 5,242,880 bytes long, over the 4 MiB tlint reads of a line: it was not checked (no writer
            prints such a line: binary data, or lines run together without their newlines)
    """

    code = "TL007"
    name = "oversized-input"
    severity = Severity.ERROR
    formats = FORMAT_NAMES
    scope = Scope.PARSER
