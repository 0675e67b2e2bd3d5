from collections.abc import Iterator
from itertools import islice

from lint.formats.chakra_et.summary import Run
from lint.rule import Rule, Scope, Severity, Violation


class ChakraMissingNpu(Rule):
    """A Chakra run lacks the file of an NPU, or two files claim one NPU.

    ASTRA-sim 2.0 opens ``PREFIX.<id>.et`` for every NPU of the network configuration
    (``astra-sim/workload/Workload.cc:28-45``): a missing one ends the simulation with "workload file: … does not
    exist".  The run's NPUs are 0 to the highest one its files name, or that its ``comm_group.json`` names.

    Why it matters:
        The simulation exits, or - run with fewer NPUs - leaves the collectives of the missing NPUs' peers
        waiting.

    Example:
        ``wl.0.et``, ``wl.1.et`` and ``wl.3.et``
        -> the run has no file for NPU 2 (...wl.2.et): ASTRA-sim exits with 'workload file … does not exist' ...
    """

    code = "TL521"
    name = "chakra-missing-npu"
    severity = Severity.ERROR
    formats = ("chakra-et",)
    scope = Scope.RUN

    def check_run(self, run: Run) -> Iterator[Violation]:
        for duplicate in run.duplicates:
            yield Violation(
                None, None, f"{duplicate.path} claims NPU {duplicate.rank} too: {run.ranks[duplicate.rank or 0].path}", duplicate.rank, path=duplicate.path
            )
        named = set(run.ranks)
        if run.comm_groups is not None:
            named.update(npu for members in run.comm_groups.groups.values() for npu in members if npu >= 0)
        # The first eleven NPUs without a file, found without listing them all: an NPU id can be any integer
        # (``wl.1000000000000.et``), and a run has only as many files as it has.
        highest = max(named)
        missing = list(islice((npu for npu in range(highest + 1) if npu not in run.ranks), 11))
        if missing:
            example = next(iter(run.ranks.values())).path
            stem = example[: example.rfind(".", 0, len(example) - 3) + 1]
            listed = ", ".join(str(npu) for npu in missing[:10])
            if len(missing) > 10:
                listed += f" … ({highest + 1 - len(run.ranks):,} NPUs up to {highest:,})"
            yield Violation(
                None,
                None,
                f"the run has no file for NPU {listed} ({stem}{missing[0]}.et): ASTRA-sim exits with 'workload file … does not exist' (Workload.cc:33)",
                missing[0],
            )
