"""simai-workload: The SimAI / ASTRA-sim text workload (AICB, ASTRA-sim 1.0 examples, hand edits), read by SimAI's and ASTRA-sim 1.0's Workload.cc.

Specification: docs/formats/simai-workload.md.  This module holds only the descriptor, so that reading every
format's descriptor imports none of their parsers.
"""

from __future__ import annotations

from lint.formats.descriptor import Format
from lint.models.consumers import Consumer

# The programs that read simai-workload files (docs/formats/simai-workload.md: what each reads, and the verdicts).
SIMAI = Consumer(
    "simai",
    "SimAI",
    "aliyun/SimAI astra-sim-alibabacloud/astra-sim/workload/Workload.cc (Workload::initialize_workload) and Layer.cc, HEAD cef83f9d",
)
ASTRA_SIM_1 = Consumer(
    "astra-sim-1",
    "ASTRA-sim 1.0",
    "astra-sim/astra-sim branch ASTRA-sim-1.0 (07d5d19) astra-sim/workload/Workload.cc (Workload::initialize_workload)",
)

FORMAT = Format(
    name="simai-workload",
    package=__name__,
    grammar="simai-workload",
    order=30,
    states_layout="workload",
    states_layout_doc="the simai-workload written for the same job",
    consumers=(SIMAI, ASTRA_SIM_1),
    keeps_bom=True,  # both consumers read a byte-order mark as part of the kind (TL423)
)
