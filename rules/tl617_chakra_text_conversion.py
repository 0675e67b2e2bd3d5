from collections import Counter
from collections.abc import Iterator
from typing import Any

from lint.formats.chakra_et.records import HeadRecord, NodeRecord, collective_name
from lint.formats.chakra_et.rulekit import FORMATS
from lint.formats.chakra_et.schema import COMM_COLL_NODE, COMP_NODE
from lint.rule import Rule, Severity, Violation

# chakra src/converter/text_converter.py get_comm_type: anything else (NONE) falls back to 0, ALL_REDUCE.
COMM_TYPES = {"ALLREDUCE": 0, "ALLTOALL": 6, "ALLGATHER": 2, "REDUCESCATTER": 7}


class ChakraTextConversion(Rule):
    """A trace of chakra's Text converter does not hold what the converter makes of the workload it embeds.

    Since January 2024 the Text converter (chakra ``src/converter/text_converter.py``) stores the ASTRA-sim
    1.0 / SimAI text workload it converted in the GlobalMetadata's ``input_file`` attribute.  For each pass it
    writes, by the workload's parallelism: DATA, per layer a forward, a weight-gradient and (but for the first
    layer) an input-gradient COMP node and the weight-gradient collective; MODEL, each compute with its
    forward or input-gradient collective; HYBRID_DATA_MODEL and HYBRID_MODEL_DATA, all three collectives;
    MICRO, the weight-gradient collectives only.  A comm type maps to its collective, and ``NONE`` to
    ``get_comm_type``'s fallback 0, an ALL_REDUCE of the size column.  tlint converts the embedded workload
    the same way and compares per pass: COMP and COMM_COLL node counts, and the collectives' (type, size).
    A warning: ASTRA-sim simulates the trace, not its source; a trace that differs was edited after the
    conversion, or converted by another tool, and no longer simulates the workload it names.

    Why it matters:
        Results are reported for the workload in ``input_file``, but simulate another one.

    Example:
        a DATA workload of 2 layers whose trace lost one of its 2 all-reduces
        -> the trace differs from the DATA workload its input_file holds, converted for 1 pass: 1 COMM_COLL node where the converter writes 2
    """

    code = "TL617"
    name = "chakra-text-conversion"
    severity = Severity.WARNING
    formats = FORMATS

    def __init__(self, options: Any = None) -> None:
        super().__init__(options)
        self.expected: tuple[str, int, Counter[tuple[int, int]]] | None = None  # mode, COMP per pass, collectives per pass
        self.comp = 0
        self.collectives: Counter[tuple[int, int]] = Counter()

    def check_head(self, head: HeadRecord) -> tuple[Violation, ...]:
        if head.input_file is not None and head.layout is None:
            self.expected = _converted(head.input_file)
        return ()

    def check_node(self, node: NodeRecord) -> tuple[Violation, ...]:
        if self.expected is not None:
            if node.type == COMP_NODE:
                self.comp += 1
            elif node.type == COMM_COLL_NODE:
                self.collectives[(node.integer("comm_type") or 0, node.integer("comm_size") or 0)] += 1
        return ()

    def finish(self) -> Iterator[Violation]:
        if self.expected is None:
            return
        mode, comp, collectives = self.expected
        per_pass = comp + sum(collectives.values())
        passes = max(round((self.comp + sum(self.collectives.values())) / per_pass), 1) if per_pass else 1
        wanted = Counter({key: count * passes for key, count in collectives.items()})
        problems = []
        if self.comp != comp * passes:
            problems.append(f"{_nodes(self.comp, 'COMP')} where the converter writes {comp * passes}")
        if sum(self.collectives.values()) != sum(wanted.values()):
            problems.append(f"{_nodes(sum(self.collectives.values()), 'COMM_COLL')} where the converter writes {sum(wanted.values())}")
        elif self.collectives != wanted:
            (kind, size), count = next(iter((wanted - self.collectives).items()))
            problems.append(f"{count} fewer {collective_name(kind)} of {size} bytes than the converter writes")
        if problems:
            message = f"the trace differs from the {mode} workload its input_file holds, converted for {passes} pass{'es' if passes > 1 else ''}: " + "; ".join(
                problems
            )
            yield Violation(1, None, message)


def _converted(text: str) -> tuple[str, int, Counter[tuple[int, int]]] | None:
    """(mode, COMP nodes, collectives (type, size)) of one pass, as the Text converter writes them; None for a
    workload it would not convert (it raises on those)."""
    lines = [line for line in text.split("\n") if line.strip()]
    if len(lines) < 3:
        return None
    mode = lines[0].split()[0]
    try:
        declared = int(lines[1].strip())
        rows = [_row(line) for line in lines[2:]]
        last_bottom = int(lines[0].split()[1]) if mode.startswith("HYBRID_DLRM") else 0
    except (ValueError, IndexError):
        return None
    layers = len(rows)
    collectives: Counter[tuple[int, int]] = Counter()
    if mode == "MICRO":
        comp = 0
        collectives.update(_comm(row[4], row[5]) for row in rows)
    elif mode == "DATA":
        comp = 3 * layers - 1
        collectives.update(_comm(row[4], row[5]) for row in rows)
    elif mode in ("MODEL", "HYBRID_DATA_MODEL", "HYBRID_MODEL_DATA"):
        comp = 3 * layers
        collectives.update(_comm(row[0], row[1]) for row in rows)
        # input-gradient collectives for all but the layer at reversed index num_layers - 1 (the header's count)
        collectives.update(_comm(row[2], row[3]) for index, row in enumerate(reversed(rows)) if index != declared - 1)
        if mode != "MODEL":
            collectives.update(_comm(row[4], row[5]) for row in rows)
    elif mode in ("HYBRID_DLRM", "HYBRID_DLRM_ENHANCED"):
        comp = 3 * layers - 1
        collectives.update(_comm(row[0], row[1]) for row in rows if row[0] == "ALLTOALL")
        collectives.update(_comm(row[4], row[5]) for row in rows if row[4] != "NONE")
        if 0 <= last_bottom + 1 < layers:
            collectives[_comm(rows[0][2], rows[0][3])] += 1
    else:
        return None
    return mode, comp, collectives


def _nodes(count: int, kind: str) -> str:
    return f"{count} {kind} node{'s' if count != 1 else ''}"


def _row(line: str) -> tuple[str, int, str, int, str, int]:
    """(forward comm type, size, input-gradient type, size, weight-gradient type, size) of a layer row."""
    columns = line.split()
    if len(columns) < 12:
        raise ValueError(line)
    return columns[3], int(columns[4]), columns[6], int(columns[7]), columns[9], int(columns[10])


def _comm(kind: object, size: object) -> tuple[int, int]:
    return COMM_TYPES.get(str(kind), 0), int(str(size))
