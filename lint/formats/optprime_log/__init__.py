"""optprime-log: The torchrun console output of OptimusPrime (ai-computing/aicomp opt_prime): several ranks' prints interleaved.

Specification: docs/formats/optprime-log.md.  This module holds only the descriptor, so that reading every
format's descriptor imports none of their parsers.
"""

from __future__ import annotations

from lint.formats.descriptor import Format

FORMAT = Format(
    name="optprime-log",
    package=__name__,
    grammar="optprime-log",
    order=40,
    states_layout="log",
    states_layout_doc="the optprime-log of the same job",
    console=True,
)
