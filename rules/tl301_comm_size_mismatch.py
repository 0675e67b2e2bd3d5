from collections.abc import Iterator

from lint.formats.neusight_tsv.records import LayerRecord
from lint.formats.neusight_tsv.rulekit import NeusightRowMessages, Said
from lint.rule import Severity

_COMMS = ("forward", "backward", "weight_grad")  # each has a <comm>_comm_type and a <comm>_comm_size column


class CommSizeMismatch(NeusightRowMessages):
    """A comm type disagrees with its size: ``None`` with elements, or a real comm with none.

    The writer is asu-gkg/simai ``mtccl/workload_generator.py`` (``LayerInfo.set_comm``,
    ``to_work_item``, ``WorkloadGenerator.dump_file``) over NeuSight's ``neusight/Tracing/parse.py``
    ``parse_trace``: ``set_comm`` takes type and size from one op, and writes ``"None"`` with 0 when
    there is none.

    This is an error: the writer pairs them by construction, so a mismatch is an edit or a shifted
    column.

    Each of the three comms of a row (forward, backward, weight-grad) is a type and a size in elements.
    The writer pairs them: ``None`` goes with size ``0``, and ``ALLREDUCE``, ``ALLREDUCE_ASYNC`` or
    ``SENDRECV`` with the number of elements the collective moves, which is at least one.

    Why it matters:
        Simulators read the type to schedule a collective and the size to time it: elements under a
        ``None`` comm are dropped without a word, and a real collective of 0 elements is scheduled as a
        free synchronisation.  Either way the size or the type was written from the wrong layer.

    Example:
        ``addmm_grad  0  None  0  0  ALLREDUCE_ASYNC  0  0  None  0  0``
        -> addmm_grad has backward_comm_type ALLREDUCE_ASYNC with backward_comm_size 0; a collective moves at
        least one element
    """

    code = "TL301"
    name = "comm-size-mismatch"
    severity = Severity.ERROR
    formats = ("neusight-tsv",)

    def messages(self, row: LayerRecord) -> Iterator[Said]:
        for comm in _COMMS:
            comm_type, size = getattr(row, f"{comm}_comm_type"), getattr(row, f"{comm}_comm_size")
            if comm_type is None and size:
                yield f"{comm}_comm_size", f"{row.name} has {comm}_comm_type None with {comm}_comm_size {size}; a None comm moves 0 elements"
            elif comm_type is not None and not size:
                yield f"{comm}_comm_size", f"{row.name} has {comm}_comm_type {comm_type} with {comm}_comm_size 0; a collective moves at least one element"
