from lint.rule import Rule, Scope, Severity


class ColumnCount(Rule):
    """A table row has the wrong number of columns.

    ``simai-workload`` rows have 12 whitespace-separated columns (13 for ``HYBRID_CUSTOMIZED``, whose
    last column is the layer's parallelism); ``neusight-tsv`` rows have exactly 11 tab-separated fields.
    The finding names the expected and the found count.  Tokens past the columns of the last declared
    ``simai-workload`` row shift nothing: SimAI closes the file after them unread (TL420, a warning).

    Why it matters:
        SimAI reads rows with C++ ``>>``: an extra or missing token shifts every following value into
        the wrong column, and the whole rest of the workload is misread without an error.

    Example:
        A 13-column row in a ``HYBRID_TRANSFORMER`` workload::

            target_layer_0 -1 10 NONE 0 10 NONE 0 10 NONE 0 10 HYBRID_DATA_MODEL
            -> expected 12 columns, found 13
    """

    code = "TL002"
    name = "column-count"
    severity = Severity.ERROR
    formats = ("simai-workload", "neusight-tsv")
    scope = Scope.PARSER
