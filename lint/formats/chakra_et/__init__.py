"""chakra-et: Chakra execution traces, ASTRA-sim 2.0's per-NPU input (``PREFIX.<npu>.et``), binary protobuf records.

Specification: docs/formats/chakra-et.md.  The modules by role: ``parser`` (detection from the first bytes and
the reader), ``wire`` (the framing), ``schema`` (the protobuf messages, built at run time), ``records``,
``rulekit`` (what the rules in ``rules/tl6*`` share), ``summary`` (runs), ``diff`` (`tlint diff`).
"""
