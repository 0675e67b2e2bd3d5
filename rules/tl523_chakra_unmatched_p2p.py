from collections import Counter
from collections.abc import Iterator

from lint.formats.chakra_et.summary import PointToPoint, Run
from lint.rule import Rule, Scope, Severity, Violation


class ChakraUnmatchedP2p(Rule):
    """A COMM_SEND has no COMM_RECV of the same (tag, source, destination, size) in the run, or a receive no send.

    ASTRA-sim hands a send to the network as ``sim_send(size, dst, tag)`` from its source and a receive as
    ``sim_recv(size, src, tag)`` at its destination (``astra-sim/workload/Workload.cc:393-440``); the network
    backend completes a receive when a send of the same source, destination, tag and size arrives.  An
    unmatched one never completes, and nothing after it on that NPU runs.  The source of a send and the
    destination of a receive default to the file's own NPU.  A run with a send or receive TL611 reports (ASTRA-sim
    throws there) is judged once that is fixed.

    Why it matters:
        The simulation hangs, or ends with that NPU's remaining nodes unissued.

    Example:
        NPU 0 sends tag 7 of 4096 bytes to NPU 1; NPU 1 receives tag 7 of 2048 bytes from NPU 0
        -> the COMM_SEND of tag 7 from NPU 0 to NPU 1, 4096 bytes, has no COMM_RECV of the same tag and size on NPU 1: ...
    """

    code = "TL523"
    name = "chakra-unmatched-p2p"
    severity = Severity.ERROR
    formats = ("chakra-et",)
    scope = Scope.RUN

    def check_run(self, run: Run) -> Iterator[Violation]:
        if any(summary.rejected for summary in run.ranks.values()):
            return  # ASTRA-sim throws at a send or receive of the run (TL611): what pairs with what is judged once that is fixed
        sends: Counter[tuple[int | None, ...]] = Counter()
        recvs: Counter[tuple[int | None, ...]] = Counter()
        where: dict[tuple[str, tuple[int | None, ...]], tuple[int, PointToPoint]] = {}  # the first node of each key
        for npu, summary in sorted(run.ranks.items()):
            for send in summary.sends:
                sends[send[:4]] += 1
                where.setdefault(("COMM_SEND", send[:4]), (npu, send))
            for recv in summary.recvs:
                recvs[recv[:4]] += 1
                where.setdefault(("COMM_RECV", recv[:4]), (npu, recv))
        for kind, mine, theirs, other in (("COMM_SEND", sends, recvs, "COMM_RECV"), ("COMM_RECV", recvs, sends, "COMM_SEND")):
            unmatched = mine - theirs
            if not unmatched:
                continue
            npu, found = min((where[(kind, key)] for key in unmatched), key=lambda pair: (pair[0], pair[1].line))
            peer = found.dst if kind == "COMM_SEND" else found.src
            more = sum(unmatched.values()) - 1
            also = f" ({more} more unmatched {kind} node{'s' if more > 1 else ''})" if more else ""
            yield Violation(
                found.line,
                None,
                f"the {kind} of tag {found.tag} from NPU {found.src} to NPU {found.dst}, {found.size} bytes, has no {other} of the same tag and size on NPU {peer}: "
                f"ASTRA-sim never completes it{also}",
                npu,
                path=run.ranks[npu].path,
                peer=peer,
            )
