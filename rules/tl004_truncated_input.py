from lint.formats import FORMAT_NAMES
from lint.rule import Rule, Scope, Severity


class TruncatedInput(Rule):
    """A compressed file (gzip, bzip2, xz, zstd) is damaged or ends before its end-of-stream marker.

    tlint reads compressed traces as a stream, recognised by their first bytes.  When the stream breaks,
    every line read so far is checked and this finding says after which line the data stops.

    Why it matters:
        A truncated archive is an upload or copy that did not finish: the trace lacks its last records
        (often the finalize phase), and every count or duration computed from it is short.

    Example:
        ``trace_rank7.txt.gz`` cut in the middle of its last block
        -> the gzip data is damaged or ends early after line ...: Compressed file ended before the end-of-stream
        marker was reached
    """

    code = "TL004"
    name = "truncated-input"
    severity = Severity.ERROR
    formats = FORMAT_NAMES
    scope = Scope.PARSER
