import re
from collections.abc import Iterator

from lint.formats.simai_workload.records import SETTING_KEYS, Header
from lint.rule import Rule, Severity, Violation, at, by_consumer

INT_MAX = 2**31 - 1  # the largest value std::stoi returns; a larger one throws std::out_of_range
# The line of Workload.cc (aliyun/SimAI cef83f9d) where SimAI converts each setting with std::stoi.
STOI_AT = {"tp": 1177, "ep": 1182, "pp": 1184, "vpp": 1186, "ga": 1188, "all_gpus": 1190, "pp_comm": 1260}
# What SimAI does with a setting it reads as 0 (see TL411, TL421).
READ_AS_ZERO = {
    "tp": "divides by zero (Layer.cc:569)",
    "pp": "divides by zero (Layer.cc:569)",
    "ga": "gives a total time of NaN (Layer.cc:737)",
    "vpp": "gives a total time of NaN (Layer.cc:737)",
}
_LEADING_INTEGER = re.compile(r"[+-]?[0-9]+")


class HeaderMisread(Rule):
    """The consumer reads another header than the one written.

    SimAI converts each setting with ``std::stoi`` (``Workload::initialize_workload``, ``Workload.cc:1177-1190``
    and ``1260``, aliyun/SimAI cef83f9d): the conversion stops at the first character that is no digit, so
    ``pp: 2.5`` reads as 2 and ``pp: 0.5`` as 0, and a value past 2147483647 throws ``std::out_of_range``, which
    nothing catches (AICB writes ``pp_comm`` as ``2·mbs·seq·hidden``, which passes that for large models).  A
    whole number written as ``N.0`` (AICB's ``pp_comm: 2097152.0``) reads as written.

    ASTRA-sim 1.0 reads line 1 by position with ``>>`` (``Workload.cc:1253-1300``, branch ``ASTRA-sim-1.0``):
    the kind; for the two transformer kinds a word and an integer (``model_parallel_NPU_group: 8``), and for
    ``HYBRID_TRANSFORMER_FWD_IN_BCKWD`` then a word, a count n and n layer numbers, twice (``checkpoints:``,
    ``checkpoint_initiates:``); for the DLRM kinds one integer; then the layer count (``Workload.cc:1315``).
    A word it does not expect there is read as the next thing it does expect: the layer count, or a number
    that is none, after which every read fails; ``8.0`` is read as 8 and ``.0`` as the next word.

    Measured: SimAI reads ``pp: 2.5`` as 2 (oracle class ``pp_float``: wrong, 11 of 11) and aborts on
    ``pp_comm: 3000000000`` (terminate called after throwing ``std::out_of_range``).  ASTRA-sim 1.0 fails its
    assertion ``index < SIZE`` on ``DATA foo: 1`` (the count read as 0, Workload.cc:189) and on
    ``model_parallel_NPU_group: 4.0`` or a header without it its event queue aborts.

    This is an error for both consumers: they abort, or simulate other sizes than written.

    Why it matters:
        The value the simulation runs with is not the one in the file, and nothing says so.

    Example:
        ``HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8 ep: 1 pp: 2.5 ...``
        -> pp: 2.5 reads as 2: std::stoi stops at '.' (Workload.cc:1184)
    """

    code = "TL425"
    name = "header-misread"
    formats = ("simai-workload",)
    consumers = by_consumer({"simai": Severity.ERROR, "astra-sim-1": Severity.ERROR})

    def check_header(self, header: Header) -> Iterator[Violation]:
        misread = _astra_sim_1_misread(header) if self.consumer == "astra-sim-1" else _simai_misread(header)
        if misread:
            yield at(header, misread)


def _simai_misread(header: Header) -> str:
    fields = [*(("tp", "ep", "pp", "vpp", "ga", "all_gpus") if header.reads_parallel_sizes else ()), "pp_comm"]
    said = []
    for name in fields:
        value = getattr(header, name)
        if value is None:
            continue
        key = SETTING_KEYS[name]
        if int(value) > INT_MAX:
            said.append(f"{key}: {value} is past what std::stoi reads ({INT_MAX}): it throws std::out_of_range and SimAI aborts (Workload.cc:{STOI_AT[name]})")
        elif value != int(value):
            effect = f" and SimAI {READ_AS_ZERO[name]}" if int(value) == 0 and name in READ_AS_ZERO else ""
            said.append(f"{key}: {value} reads as {int(value)}: std::stoi stops at '.' (Workload.cc:{STOI_AT[name]}){effect}")
    return "; ".join(said)


def _astra_sim_1_misread(header: Header) -> str:
    """The first word of line 1 that ASTRA-sim 1.0 reads otherwise than written, in words; "" when it reads them all."""
    words = list(header.words)
    expected: list[tuple[str, int]] = []  # (what ASTRA-sim 1.0 reads: "word" or "integer", the line of Workload.cc)
    if header.parallelism in ("HYBRID_TRANSFORMER", "HYBRID_TRANSFORMER_FWD_IN_BCKWD"):
        expected = [("word", 1260), ("integer", 1261)]
    elif header.parallelism in ("HYBRID_DLRM", "HYBRID_DLRM_ENHANCED"):
        expected = [("integer", 1300)]
    position = 0
    while expected:
        what, line = expected.pop(0)
        place = f"word {position + 2} of line 1"
        if position >= len(words):
            return f"line 1 ends where ASTRA-sim 1.0 reads a {what} (Workload.cc:{line}): it reads the layer count in its place, and every read after shifts"
        word = words[position]
        position += 1
        if what == "integer":
            digits = _LEADING_INTEGER.match(word)
            if digits is None:
                return f"ASTRA-sim 1.0 reads '{word}' ({place}) as an integer (Workload.cc:{line}): the read fails, and so does every read after it"
            if digits.end() < len(word):
                return f"ASTRA-sim 1.0 reads '{word}' ({place}) as {digits.group()} and then '{word[digits.end() :]}' as the next word (Workload.cc:{line}): every read after shifts"
            if header.parallelism == "HYBRID_TRANSFORMER_FWD_IN_BCKWD" and line in (1261, 1267, 1284):
                expected = _checkpoints(line, int(digits.group())) + expected
    if position < len(words):
        return (
            f"ASTRA-sim 1.0 reads line 1 by position and stops before '{words[position]}' (word {position + 2}): it reads it as the layer "
            "count (Workload.cc:1315), and every read after shifts"
        )
    return ""


def _checkpoints(line: int, count: int) -> list[tuple[str, int]]:
    """What HYBRID_TRANSFORMER_FWD_IN_BCKWD's header reads after the integer of ``line``: after the TP size, the
    checkpoints' key and count; after a count, that many layers, then (after the first list) the next key and count."""
    if line == 1261:
        return [("word", 1266), ("integer", 1267)]
    layers = [("integer", 1273 if line == 1267 else 1287)] * count
    return layers + ([("word", 1283), ("integer", 1284)] if line == 1267 else [])
