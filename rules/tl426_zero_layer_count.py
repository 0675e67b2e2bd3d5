from collections.abc import Iterator

from lint.formats.simai_workload.records import LayerCount
from lint.formats.simai_workload.rulekit import reader
from lint.rule import Rule, Severity, Violation, at, by_consumer

# Where each consumer's first iteration asserts it has a layer (one of its Workload::iterate_* functions).
ASSERTS = {"simai": "Workload.cc:796", "astra-sim-1": "Workload.cc:189"}


class ZeroLayerCount(Rule):
    """Line 2 declares 0 layer rows.

    Both consumers allocate the declared number of layers and start the iteration at the first
    (``Workload::initialize_workload``, then ``Workload::iterate_*``), which asserts ``index < SIZE``: with no
    layer the assertion fails and the simulation aborts - SimAI at ``Workload.cc:796``
    (``iterate_hybrid_parallel_Transformer_fwd_in_bckwd``; every ``iterate_*`` asserts the same, aliyun/SimAI
    cef83f9d), ASTRA-sim 1.0 at ``Workload.cc:189`` (``iterate_data_parallel``, branch ``ASTRA-sim-1.0``).  Rows
    after a count of 0 are never read; they are not reported again (TL403 is for counts of 1 or more).  AICB
    writes ``len(self.workload)``, which is 0 only when it generated nothing (its "ga num < 1" warning).

    Measured: SimAI aborts (oracle class ``count_zero``: abort, 12 of 12); so does ASTRA-sim 1.0 ("Assertion
    `index < SIZE' failed").

    This is an error for both consumers: they abort.

    Why it matters:
        A workload of no layer is a generator that produced nothing; the simulators do not say so, they abort.

    Example:
        ``HYBRID_TRANSFORMER_FWD_IN_BCKWD ...`` then ``0``, and 300 rows
        -> layer count 0: SimAI's first iteration fails its assertion index < SIZE and aborts (Workload.cc:796);
        the rows after it are never read
    """

    code = "TL426"
    name = "zero-layer-count"
    formats = ("simai-workload",)
    consumers = by_consumer({"simai": Severity.ERROR, "astra-sim-1": Severity.ERROR})

    def check_layer_count(self, count: LayerCount) -> Iterator[Violation]:
        if count.count == 0:
            yield at(
                count,
                f"layer count 0: {reader(self.consumer)}'s first iteration fails its assertion index < SIZE and aborts "
                f"({ASSERTS[self.consumer or 'simai']}); the rows after it are never read",
            )
