from lint.rule import Rule, Scope, Severity


class ColumnCount(Rule):
    """A table row has the wrong number of columns.

    ``simai-workload`` rows have 12 whitespace-separated columns (13 for ``HYBRID_CUSTOMIZED``, whose
    last column is the layer's parallelism); ``neusight-tsv`` rows have exactly 11 tab-separated fields.
    The finding names the expected and the found count.  Rows one after another with the same count are one
    cause (a table of another layout, a writer that adds a column to every row): one finding, on the first,
    names the line the run ends on.  Tokens past the columns of the last declared ``simai-workload`` row
    shift nothing: SimAI closes the file after them unread (TL420, a warning), unless a row before it is
    short or long of columns: then the tokens are out of place and SimAI reads them into the last row.

    Why it matters:
        SimAI reads rows with C++ ``>>``: an extra or missing token shifts every following value into
        the wrong column, and the whole rest of the workload is misread without an error.

    Example:
        A 13-column row in a ``HYBRID_TRANSFORMER`` workload gives ``expected 12 columns, found 13``.  Three
        rows of 15 columns (the layout of an ASTRA-sim fork) on lines 3, 4 and 6, a blank line between::

            layer_0 -1 10 NONE 0 10 NONE 0 10 NONE 0 10 M K N
            -> expected 12 columns, found 15 (also on 2 more lines, to line 6)
    """

    code = "TL002"
    name = "column-count"
    severity = Severity.ERROR
    formats = ("simai-workload", "neusight-tsv")
    scope = Scope.PARSER
