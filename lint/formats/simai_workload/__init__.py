"""simai-workload: The SimAI / ASTRA-sim text workload (AICB, ASTRA-sim 1.0 examples, hand edits), read by SimAI's Workload.cc.

Specification: docs/formats/simai-workload.md.  This module holds only the descriptor, so that reading every
format's descriptor imports none of their parsers.
"""

from __future__ import annotations

from lint.formats.descriptor import Format

FORMAT = Format(
    name="simai-workload",
    package=__name__,
    grammar="simai-workload",
    order=30,
    states_layout="workload",
    states_layout_doc="the simai-workload written for the same job",
)
