"""Parse: what every format's parser is built from - the grammar and its derived fast path
(:mod:`lint.parse.grammar`), a per-character index of alternatives (:mod:`lint.parse.alternation`) and a
reader of the Python literals some writers print (:mod:`lint.parse.pyliteral`)."""
