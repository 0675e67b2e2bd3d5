"""megatron-trace: One rank's op records of a Megatron-LM training step, written by the op profiler of fwyc0573/Megatron-LM and fwyc0573/moe_mg: one file per rank, the ranks of a job forming a run.

Specification: docs/formats/megatron-trace.md.  This module holds only the descriptor, so that reading every
format's descriptor imports none of their parsers.
"""

from __future__ import annotations

from lint.formats.descriptor import Format

FORMAT = Format(
    name="megatron-trace",
    package=__name__,
    grammar="megatron-trace",
    order=10,
    runs=True,
)
