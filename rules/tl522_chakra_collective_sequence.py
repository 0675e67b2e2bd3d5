from collections.abc import Iterator

from lint.formats.chakra_et.records import collective_name
from lint.formats.chakra_et.summary import Collective, Run
from lint.rule import Rule, Scope, Severity, Violation


class ChakraCollectiveSequence(Rule):
    """The NPUs of a process group do not issue the same collectives, in the same order, with the same sizes.

    ASTRA-sim pairs the collectives of a communicator group across NPUs by the order in which each NPU issues
    them (each group numbers its streams, ``CommunicatorGroup::set_id``, ``num_streams = id * 1000000``; the
    default group is every NPU).  An NPU that issues one collective more, or another type, waits for a peer
    that never comes: the run ends with "Hardware Resources have unreleased nodes" or never ends (astra-sim
    #339); a different size makes the members simulate different transfers.  The members of a group are its
    comm_group.json entry's NPUs, all NPUs for an empty ``pg_name`` or "0".  Reported once per group, at the
    first NPU that differs from the group's first.

    Why it matters:
        The simulation hangs, aborts with unreleased nodes, or times a collective the ranks did not agree on.

    Example:
        NPUs 0 and 1 in group 1, NPU 1 all-gathers where NPU 0 all-reduces
        -> group 1: NPU 1's collective 1 is ALL_GATHER of 1048576 bytes, NPU 0's is ALL_REDUCE of 1048576 bytes; ...
    """

    code = "TL522"
    name = "chakra-collective-sequence"
    severity = Severity.ERROR
    formats = ("chakra-et",)
    scope = Scope.RUN

    def check_run(self, run: Run) -> Iterator[Violation]:
        groups = sorted({_group(found) for summary in run.ranks.values() for found in summary.collectives})
        for group in groups:
            members = run.members(group)
            if len(members) < 2:
                continue
            sequences = {npu: [found for found in run.ranks[npu].collectives if _group(found) == group] for npu in members}
            first = members[0]
            shown = "the default group (every NPU)" if group == "" else f"group {group}"
            for npu in members[1:]:
                message = _difference(sequences[first], sequences[npu], first, npu)
                if message is not None:
                    line = _line(sequences[npu], sequences[first])
                    yield Violation(
                        line,
                        None,
                        f"{shown}: {message}; ASTRA-sim pairs a group's collectives by order and waits for the missing ones",
                        npu,
                        path=run.ranks[npu].path,
                    )
                    break


def _group(found: Collective) -> str:
    return "" if found.group == "0" else found.group


def _key(found: Collective) -> tuple[int | None, int | None]:
    return found.comm_type, found.size


def _describe(found: Collective) -> str:
    return f"{collective_name(found.comm_type)} of {found.size} bytes"


def _difference(reference: list[Collective], other: list[Collective], first: int, npu: int) -> str | None:
    for index, (mine, theirs) in enumerate(zip(reference, other, strict=False)):
        if _key(mine) != _key(theirs):
            return f"NPU {npu}'s collective {index + 1} is {_describe(theirs)}, NPU {first}'s is {_describe(mine)}"
    if len(reference) != len(other):
        return f"NPU {npu} issues {len(other)} collectives, NPU {first} issues {len(reference)}"
    return None


def _line(other: list[Collective], reference: list[Collective]) -> int | None:
    for mine, theirs in zip(reference, other, strict=False):
        if _key(mine) != _key(theirs):
            return theirs.line
    return other[len(reference)].line if len(other) > len(reference) else None
