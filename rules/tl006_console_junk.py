from lint.rule import Rule, Scope, Severity


class ConsoleJunk(Rule):
    """A console log holds bytes that are no text: NUL bytes or bytes that are not UTF-8.

    An optprime log is what ``torchrun ... 2>&1 | tee run.log`` captures.  With ``--tee``, torchrun prints
    the workers' lines from one thread per log file (``tail_logfile`` in
    ``torch/distributed/elastic/multiprocessing/tail_log.py``, ``dst.write(f"{header}{line}")``) into one
    ``sys.stdout``, and CPython's ``TextIOWrapper`` is not safe for writes from several threads: a race in
    ``_io_TextIOWrapper_write_impl`` / ``_textiowrapper_writeflush`` can write uninitialised memory out
    instead of text (python/cpython#118138, gh-119506).  Seen on real CPU runs of OptimusPrime with torch
    2.14.1, 8 workers and ``--tee 3``: some 500 NUL bytes and a few junk bytes in place of a line, in a run
    that completed.  No OptimusPrime ``print`` writes such bytes, but the console may.

    This is a warning, not an error (TL003 is the error in the other formats, whose writers write text
    only): the bytes are the console's, the run's records around them are read as usual, and the
    outcome of the run (TL218-TL221) does not depend on them.  Only the line they replaced is lost.

    Why it matters:
        A line of the log is gone (a progress line, say); counts that read the log line by line may be one
        short, and the same machine's next capture may lose more.

    Example:
        A line of NUL bytes among the workers' lines
        -> a NUL byte in the console output: torchrun --tee prints the workers' lines from several threads,
        which can write out memory instead of text
    """

    code = "TL006"
    name = "console-junk"
    severity = Severity.WARNING
    formats = ("optprime-log",)
    scope = Scope.PARSER
