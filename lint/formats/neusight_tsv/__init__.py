"""neusight-tsv: The per-layer workload table a NeuSight-based generator writes: 11 tab-separated columns.

Specification: docs/formats/neusight-tsv.md.  This module holds only the descriptor, so that reading every
format's descriptor imports none of their parsers.
"""

from __future__ import annotations

from lint.formats.descriptor import Format

FORMAT = Format(
    name="neusight-tsv",
    package=__name__,
    grammar="neusight-tsv",
    order=20,
)
