from collections.abc import Iterator

from lint.formats.chakra_et.summary import Run, numeric
from lint.rule import Rule, Scope, Severity, Violation


class ChakraCommGroup(Rule):
    """A collective's process group (``pg_name``) is not one ASTRA-sim can find, or the run's comm_group.json is.

    ``Workload::extract_comm_group`` (``astra-sim/workload/Workload.cc:589-610``) takes an empty ``pg_name`` or
    "0" for the group of all NPUs; any other name goes through ``std::stoi`` (a non-numeric one throws
    ``std::invalid_argument``) and must be a group of the ``--comm-group-configuration`` file, else "communicator
    group N not found" and exit.  ``initialize_comm_groups`` (lines 73-98) reads that file's keys with
    ``std::stoi`` and makes a ``CommunicatorGroup`` of each, which asserts an id above 0
    (``astra-sim/system/CommunicatorGroup.cc``, ``set_id``); an NPU that issues a group's collective but is
    not among its members has no place in it.  The file is ``--comm-group FILE``, else ``comm_group.json`` or
    ``PREFIX.json`` beside the run (astra-sim/symbolic_tensor_graph writes the latter).

    Why it matters:
        The simulation aborts or exits before the collective; a rank outside its group simulates a collective
        its peers do not take part in.

    Example:
        a node with ``pg_name: "5"`` and a comm_group.json without group 5
        -> NPU 0 issues collectives in group 5, which ...comm_group.json does not define: ...
    """

    code = "TL524"
    name = "chakra-comm-group"
    severity = Severity.ERROR
    formats = ("chakra-et",)
    scope = Scope.RUN

    def check_run(self, run: Run) -> Iterator[Violation]:
        groups = run.comm_groups
        if groups is not None:
            if groups.problem is not None:
                yield Violation(None, None, f"{groups.path} {groups.problem}: ASTRA-sim cannot read the run's process groups (Workload.cc:73-98)")
                return
            for key in groups.groups:
                if not numeric(key):
                    yield Violation(
                        None, None, f"{groups.path} names group {key!r}: ASTRA-sim reads group ids with std::stoi, which throws on it (Workload.cc:85)"
                    )
                elif int(key) <= 0:
                    yield Violation(None, None, f"{groups.path} defines group {key}: ASTRA-sim asserts group ids above 0 (CommunicatorGroup::set_id)")
        reported: set[str] = set()
        for npu, summary in sorted(run.ranks.items()):
            for found in summary.collectives:
                name = found.group
                if name in ("", "0") or name in reported:
                    continue
                message = None
                if not numeric(name):
                    message = f"NPU {npu} issues collectives in group {name!r}, which is no number: ASTRA-sim's std::stoi throws on it (Workload.cc:602)"
                elif (members := run.defined(name)) is None and groups is None:
                    message = (
                        f"NPU {npu} issues collectives in group {name}, but the run has no comm_group.json (give it with --comm-group): "
                        "ASTRA-sim exits with 'communicator group … not found' without one (Workload.cc:603-608)"
                    )
                elif members is None:
                    where = groups.path if groups is not None else "comm_group.json"
                    message = f"NPU {npu} issues collectives in group {name}, which {where} does not define: ASTRA-sim exits with 'communicator group {name} not found' (Workload.cc:603-608)"
                elif npu not in members:
                    message = f"NPU {npu} issues collectives in group {name}, whose members do not include it: ASTRA-sim aborts on an assertion building the group's ring (RingTopology.cc:42)"
                if message is not None:
                    reported.add(name)
                    yield Violation(found.line, None, message, npu, path=summary.path)
