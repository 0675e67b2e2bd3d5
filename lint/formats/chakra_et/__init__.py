"""chakra-et: Chakra execution traces, ASTRA-sim 2.0's per-NPU input (``PREFIX.<npu>.et``), binary protobuf records.

Specification: docs/formats/chakra-et.md.  This module holds only the descriptor, so that reading every
format's descriptor imports none of their parsers.  The modules by role: ``parser`` (detection from the first
bytes, and the reader), with ``wire`` (the framing) and ``schema`` (the protobuf messages, built at run time)
below it, ``records``, ``summary`` (runs), ``rulekit`` (what the rules in ``rules/tl6*`` and ``tl52*`` share),
``diff`` (`tlint diff`).
"""

from __future__ import annotations

from lint.formats.descriptor import Format

FORMAT = Format(
    name="chakra-et",
    package=__name__,
    grammar=None,
    order=90,  # binary: asked after every text format declined a file
    runs=True,
    binary=True,
    rank_name=r"^(?P<stem>.+\.)(?P<rank>[0-9]+)\.et$",
    consumers=("astra-sim-2",),  # ASTRA-sim 2.0 with FeederV3 (docs/formats/chakra-et.md)
)
