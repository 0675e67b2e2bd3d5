"""chakra-et: Chakra execution traces, ASTRA-sim 2.0's per-NPU input (``PREFIX.<npu>.et``), binary protobuf records.

Specification: docs/formats/chakra-et.md.  This module holds only the descriptor, so that reading every
format's descriptor imports none of their parsers.  The modules by role: ``parser`` (detection from the first
bytes, and the reader), with ``wire`` (the framing) and ``schema`` (the protobuf messages, built at run time)
below it, ``records``, ``summary`` (runs), ``rulekit`` (what the rules in ``rules/tl6*`` and ``tl52*`` share),
``diff`` (`tlint diff`).
"""

from __future__ import annotations

from lint.formats.descriptor import Format
from lint.models.consumers import Consumer

# The program that reads chakra-et files (docs/formats/chakra-et.md: what it does with each defect, by oracle runs).
ASTRA_SIM_2 = Consumer(
    "astra-sim-2",
    "ASTRA-sim 2.0",
    "astra-sim/astra-sim astra-sim/workload/Workload.cc (HEAD 518bd51) with its feeder, astra-sim/chakra src/feeder_v3 (stage f37c2bb)",
)

FORMAT = Format(
    name="chakra-et",
    package=__name__,
    grammar=None,
    order=90,  # binary: asked after every text format declined a file
    runs=True,
    binary=True,
    rank_name=r"^(?P<stem>.+\.)(?P<rank>[0-9]+)\.et$",
    consumers=(ASTRA_SIM_2,),
)
