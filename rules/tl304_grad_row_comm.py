from collections.abc import Iterator

from lint.formats.neusight_tsv.records import LayerRecord
from lint.formats.neusight_tsv.rulekit import NeusightRowMessages, Said
from lint.rule import Severity


class GradRowComm(NeusightRowMessages):
    """A gradient row (``X_grad``) does not all-reduce with one backward ``ALLREDUCE_ASYNC``.

    The writer is asu-gkg/simai ``mtccl/workload_generator.py`` (``LayerInfo.set_comm``,
    ``to_work_item``, ``WorkloadGenerator.dump_file``) over NeuSight's ``neusight/Tracing/parse.py``
    ``parse_trace``: ``parse_trace`` gives each ``_grad`` row ``BwOps = [['ALLREDUCE_ASYNC', (n,)]]``
    and no forward op.

    This is an error: the writer guarantees the comm.

    The writer gives each gradient row exactly one comm: a backward ``ALLREDUCE_ASYNC`` of the layer's
    parameter count, with the forward and weight-grad comms ``None``.  This rule checks the forward and
    backward comm types; a size that does not go with its type is TL301's finding, the parameter count
    TL305's and the weight-grad comm TL307's.

    Why it matters:
        The asynchronous type is what lets a simulator overlap the gradient all-reduce with the rest of
        the backward pass: as a blocking ``ALLREDUCE`` or ``SENDRECV`` the data-parallel traffic
        serialises the step, a missing one drops it, and a forward comm adds traffic that no layer makes.

    Example:
        ``addmm_grad  0  None  0  0  ALLREDUCE  4919040  0  None  0  0``
        -> addmm_grad has backward comm ALLREDUCE; a gradient row all-reduces with ALLREDUCE_ASYNC
    """

    code = "TL304"
    name = "grad-row-comm"
    severity = Severity.ERROR
    formats = ("neusight-tsv",)

    def messages(self, row: LayerRecord) -> Iterator[Said]:
        if row.grad_of is None:
            return
        if row.backward_comm_type is None:
            yield "backward_comm_type", f"{row.name} has no backward comm; a gradient row all-reduces the gradient of {row.grad_of} with ALLREDUCE_ASYNC"
        elif row.backward_comm_type != "ALLREDUCE_ASYNC":
            yield "backward_comm_type", f"{row.name} has backward comm {row.backward_comm_type}; a gradient row all-reduces with ALLREDUCE_ASYNC"
        if row.forward_comm_type is not None:
            yield (
                "forward_comm_type",
                f"{row.name} has a forward {row.forward_comm_type} comm of {row.forward_comm_size} elements; "
                "a gradient row's only comm is its backward ALLREDUCE_ASYNC",
            )
