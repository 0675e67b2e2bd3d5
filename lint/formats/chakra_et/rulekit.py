"""What the chakra-et rules share: one finding per kind of problem per file, and the dependency graph.

A trace repeats a defect on every node a writer made alike (a converter that leaves ``is_cpu_op`` true on
every collective): one root cause, one finding, which names the first node and counts the others.

Consumer lines cited by the rules are those of ASTRA-sim 2.0 (astra-sim/astra-sim ``astra-sim/workload/
Workload.cc``) and its feeder (astra-sim/chakra, stage branch, ``src/feeder_v3/``); docs/formats/chakra-et.md
gives what the oracle runs of the analytical backend showed for each.  Where a rule says ASTRA-sim throws: a
throw while the trace is read, or while the first nodes are issued, aborts the process; a throw while a later
node is issued is caught by ``Sys::call_events`` (``astra-sim/system/Sys.cc:466-469``), logged as "a callable
is removed before call …", and the NPU never reports finished: the process exits 0 after "Hardware Resource
sys.id=N has unreleased nodes".
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Iterator
from typing import Any

from lint.formats.chakra_et.records import HeadRecord, Located, NodeRecord
from lint.formats.chakra_et.schema import COMM_COLL_NODE
from lint.models.common import SyntaxProblem
from lint.rule import Rule, Violation

NAME = "chakra-et"
FORMATS = (NAME,)


def issued_collective(node: NodeRecord) -> bool:
    """Whether ASTRA-sim issues ``node`` as a collective (``Workload::issue_coll_comm``): a COMM_COLL node that is not
    on the CPU, for which ``issue_comm`` throws first (TL612)."""
    return node.type == COMM_COLL_NODE and not node.flag("is_cpu_op")


def lacking(node: NodeRecord, *names: str) -> str:
    """The message for a node without the attributes ``names``, which FeederV3 requires (``et_feeder_node.h:215``)."""
    return f"{node.where} is a {node.type_name} without {' or '.join(names)}: ASTRA-sim throws 'Attribute {names[0]} not found in node {node.id}'"


class NodeRule(Rule):
    """A rule that judges nodes one by one and reports each kind of problem once per file, at its first node.

    Subclasses define :meth:`problem`.  Nothing is judged in a file written in a historical layout: its one
    finding (TL603) is the root cause of everything a node would show.
    """

    formats = FORMATS

    def __init__(self, options: Any = None) -> None:
        super().__init__(options)
        self._first: dict[str, tuple[NodeRecord, str]] = {}
        self._counts: dict[str, int] = defaultdict(int)
        self._last: dict[str, int] = {}
        self.head: HeadRecord | None = None

    def check_head(self, head: HeadRecord) -> tuple[Violation, ...]:
        self.head = head
        return ()

    def check_node(self, node: NodeRecord) -> tuple[Violation, ...]:
        if self.head is not None and self.head.layout is not None:
            return ()
        found = self.problem(node)
        if found is not None:
            kind, message = found
            self._first.setdefault(kind, (node, message))
            self._counts[kind] += 1
            self._last[kind] = node.index
        return ()

    def problem(self, node: NodeRecord) -> tuple[str, str] | None:
        """(kind, message) when ``node`` has a problem; problems of one kind are reported once."""
        raise NotImplementedError

    def finish(self) -> Iterator[Violation]:
        for kind, (node, message) in self._first.items():
            more = self._counts[kind] - 1
            if more:
                message += f" (and {more} more node{'s' if more > 1 else ''} alike, to record {self._last[kind]})"
            yield Violation(node.line, None, message, node.rank)


class Graph:
    """The dependency graph of one file as ASTRA-sim's feeder builds it (``feeder_v3/dependancy_solver.cpp``
    ``DependancyResolver::add_node``): a node's parents are its ``ctrl_deps`` and ``data_deps`` together; a node
    id seen again replaces the record the index points to (``et_feeder.cpp`` ``index_map[node_id] = last_pos``)
    and adds its parents to the first's; a parent that is no node gets an empty entry of its own, which is
    dependency-free."""

    def __init__(self) -> None:
        # Per node only its parents and where it is: a trace holds millions of nodes.  A parent named twice is
        # kept twice, and counted twice both as parent and as child: the sort below comes out the same.
        self.parents: dict[int, tuple[int, ...] | list[int]] = {}  # a list once an id repeats (see check_node)
        self.first: dict[int, Located] = {}  # where the first record of each id is, for locating findings
        self.missing: dict[int, list[Located]] = {}  # parent id -> the nodes that name it
        self.historical = False
        self.damaged = False  # a record could not be read (TL601): the graph lacks what the file had
        self._analysed: tuple[list[int], list[int]] | None = None

    def check_head(self, head: HeadRecord) -> tuple[Violation, ...]:
        self.historical = head.layout is not None
        return ()

    def check_syntax(self, problem: SyntaxProblem) -> tuple[Violation, ...]:
        self.damaged = True
        return ()

    @property
    def judged(self) -> bool:
        """Whether the graph rules judge this file: not one in a historical layout (TL603), nor one whose records
        could not all be read (TL601), whose graph is not the file's."""
        return not (self.historical or self.damaged)

    def check_node(self, node: NodeRecord) -> tuple[Violation, ...]:
        parents = self.parents.get(node.id)
        own = node.data_deps if not node.ctrl_deps else node.ctrl_deps + node.data_deps if node.data_deps else node.ctrl_deps
        if parents is None:
            self.parents[node.id] = own
            self.first[node.id] = node.located()
        elif isinstance(parents, list):  # a repeated id (TL605): the feeder gives the later record both nodes' parents
            parents.extend(own)  # in place: a file of one id repeated would otherwise copy them all at every record
        else:
            self.parents[node.id] = [*parents, *own]
        return ()

    def missing_parents(self) -> dict[int, list[Located]]:
        """The parent ids that are no node's, with the nodes that name them."""
        if not self.missing:
            for node_id, parents in self.parents.items():
                for parent in parents:
                    if parent not in self.parents:
                        self.missing.setdefault(parent, []).append(self.first[node_id])
        return self.missing

    def analysed(self) -> tuple[list[int], list[int]]:
        """(the dependency-free nodes, the nodes that never run): a topological sort in which a missing parent
        counts as a node without parents, as the feeder's empty entry for it does."""
        if self._analysed is None:
            waiting = {node_id: len(parents) for node_id, parents in self.parents.items()}
            children: dict[int, list[int]] = defaultdict(list)
            for node_id, parents in self.parents.items():
                for parent in parents:
                    children[parent].append(node_id)
            roots = [node_id for node_id, count in waiting.items() if count == 0]
            ready = deque(roots)
            ready.extend(self.missing_parents())
            while ready:
                for child in children.get(ready.popleft(), ()):
                    waiting[child] -= 1
                    if waiting[child] == 0:
                        ready.append(child)
            stuck = [node_id for node_id, count in waiting.items() if count > 0]
            self._analysed = (roots, stuck)
        return self._analysed

    def cycle_through(self, stuck: list[int]) -> list[int]:
        """One cycle among the nodes that never run (each of them is on a cycle or waits for one), from its node
        that comes first in the file, each node followed by the one it waits for."""
        remaining = set(stuck)
        node = stuck[0]
        seen: dict[int, int] = {}
        path: list[int] = []
        while node not in seen:
            seen[node] = len(path)
            path.append(node)
            node = next(parent for parent in sorted(self.parents[node]) if parent in remaining)
        cycle = path[seen[node] :]
        start = min(range(len(cycle)), key=lambda index: self.first[cycle[index]].line)
        return cycle[start:] + cycle[:start]


class Dependencies:
    """What the rules on missing dependencies and on a graph without a start need, lighter than the :class:`Graph`:
    the ids seen, the parents named before a node of their id was (a writer writes a parent first, so this stays
    short), whether some node has no parent, and the first node."""

    def __init__(self) -> None:
        self.ids: set[int] = set()
        self.early: list[tuple[int, Located]] = []  # (parent id, the node that names it) before that id was seen
        self.root = False
        self.first: Located | None = None
        self.nodes = 0
        self.judged = True  # as Graph.judged: false for a historical layout or a file whose records could not all be read

    def check_head(self, head: HeadRecord) -> None:
        self.judged = self.judged and head.layout is None

    def check_syntax(self, problem: SyntaxProblem) -> None:
        self.judged = False

    def check_node(self, node: NodeRecord) -> None:
        self.nodes += 1
        if self.first is None:
            self.first = node.located()
        self.ids.add(node.id)
        if not (node.ctrl_deps or node.data_deps):
            self.root = True
            return
        ids = self.ids
        early = [parent for parent in (*node.ctrl_deps, *node.data_deps) if parent not in ids]
        if early:
            where = node.located()  # one for the node, not one per parent: a damaged file may name thousands
            self.early.extend((parent, where) for parent in early)

    def missing(self) -> dict[int, list[Located]]:
        """The parent ids that are no node's, with the nodes that name them (in file order)."""
        found: dict[int, list[Located]] = {}
        for parent, node in self.early:
            if parent not in self.ids:
                found.setdefault(parent, []).append(node)
        return found


class DependencyRule(Rule):
    """A rule on :class:`Dependencies`, which it builds from the file's records and judges when the file ends."""

    formats = FORMATS

    def __init__(self, options: Any = None) -> None:
        super().__init__(options)
        self.dependencies = Dependencies()

    def check_head(self, head: HeadRecord) -> tuple[Violation, ...]:
        self.dependencies.check_head(head)
        return ()

    def check_syntax(self, problem: SyntaxProblem) -> tuple[Violation, ...]:
        self.dependencies.check_syntax(problem)
        return ()

    def check_node(self, node: NodeRecord) -> tuple[Violation, ...]:
        self.dependencies.check_node(node)
        return ()


class GraphRule(Rule):
    """A rule on the file's dependency graph: it builds the file's :class:`Graph` from the records and judges it
    when the file ends (rules are plain: each graph rule keeps its own)."""

    formats = FORMATS

    def __init__(self, options: Any = None) -> None:
        super().__init__(options)
        self.graph = Graph()

    def check_head(self, head: HeadRecord) -> tuple[Violation, ...]:
        return self.graph.check_head(head)

    def check_syntax(self, problem: SyntaxProblem) -> tuple[Violation, ...]:
        return self.graph.check_syntax(problem)

    def check_node(self, node: NodeRecord) -> tuple[Violation, ...]:
        return self.graph.check_node(node)
