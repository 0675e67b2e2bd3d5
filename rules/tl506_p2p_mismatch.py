from collections import Counter
from collections.abc import Iterator
from functools import cached_property
from operator import itemgetter

from lint.formats.megatron_trace.records import P2P_OPS
from lint.formats.megatron_trace.rulekit import format_shape
from lint.formats.megatron_trace.summary import OpStep, Run
from lint.rule import Rule, Scope, Severity, Violation

# send op -> (the op that receives it, stage offset of the receiver)
_RECEIVER = {"send_forward": ("recv_forward", 1), "send_backward": ("recv_backward", -1)}
_SENDER = {receive: (send, offset) for send, (receive, offset) in _RECEIVER.items()}
_KEY = itemgetter(*(OpStep._fields.index(name) for name in ("op", "iteration", "batch_id")))  # a p2p step's key: what pairs it
_Keyed = dict[tuple[str, int, int | None], OpStep]  # a rank's p2p steps by key (a key's last step)


class P2pMismatch(Rule):
    """A pipeline send has no matching receive on the neighbour stage, or they move different tensors.

    Stage ``s``'s ``send_forward`` of micro-batch ``b`` is received by stage ``s+1``'s ``recv_forward`` of
    ``b`` on the rank at the same position in the next stage (rank + ranks per stage), with the same
    shape and dtype; ``send_backward`` goes to ``recv_backward`` one stage back.  No send or receive may
    dangle.  When the two sides differ, the culprit is the side whose tensor differs from the run's usual
    activation.

    Writer: each send CMD and its receive CMD in ``schedules.py`` carry the pipeline tensor shape, and
    the 1F1B schedule pairs them per micro-batch, so this is an error.  A peer whose file is absent (one
    node's directory, a sampled run) is not judged.

    Why it matters:
        A real pipeline hangs on an unmatched send or receive, and a receive of another size corrupts the
        activation; a trace that shows one was cut, merged from two jobs, or mislabelled.

    Example:
        rank 1 (stage 0) sends ``[16, 2, 64] torch.float32`` for micro-batch 0; rank 3 (stage 1) receives ``[16,
        2, 64] torch.bfloat16``
        -> recv_forward of micro-batch 0 (iteration 0) receives [16, 2, 64] torch.bfloat16 from rank 1, which
        sends [16, 2, 64] torch.float32 (line 3)
    """

    code = "TL506"
    name = "p2p-mismatch"
    severity = Severity.ERROR
    formats = ("megatron-trace",)
    scope = Scope.RUN

    def check_run(self, run: Run) -> Iterator[Violation]:
        p2p: dict[int, list[OpStep]] = {}
        steps: dict[int, _Keyed] = {}
        for rank, summary in run.ranks.items():
            p2p[rank] = [s for s in summary.steps if s.op in P2P_OPS]
            steps[rank] = dict(zip(map(_KEY, p2p[rank]), p2p[rank], strict=True))  # a key's last step, built in C
        activation = _Usual(steps)
        for rank, by_key in sorted(steps.items()):
            yield from self._check_rank(run, rank, by_key, len(p2p[rank]), steps, activation)

    def _check_rank(self, run: Run, rank: int, by_key: _Keyed, listed: int, steps: dict[int, _Keyed], activation: "_Usual") -> Iterator[Violation]:
        """The findings of ``rank``'s p2p steps (``listed`` of them, ``by_key`` the last of each key)."""
        per_stage = run.layout.ranks_per_stage
        stage = run.stage_of(rank)
        # In line order: the steps' own, unless a key came again (its last step then sits in its first one's place).
        ordered = by_key.items() if len(by_key) == listed else sorted(by_key.items(), key=lambda item: item[1].line)
        for (op, iteration, batch), step in ordered:
            if op in _RECEIVER:
                receiver_op, offset = _RECEIVER[op]
                peer = rank + offset * per_stage
                if peer not in run.ranks:
                    if not 0 <= peer < run.layout.world:
                        yield self._at(
                            run,
                            rank,
                            step,
                            f"{op} of micro-batch {batch} (iteration {iteration}) has no receiver: stage {stage} has no {'next' if offset > 0 else 'previous'} stage",
                        )
                    continue
                received = steps[peer].get((receiver_op, iteration, batch))
                if received is None:
                    yield self._at(
                        run, rank, step, f"{op} of micro-batch {batch} (iteration {iteration}) is never received: rank {peer} has no {receiver_op} of it", peer
                    )
                elif _tensor_key(received) != _tensor_key(step):
                    yield from self._mismatch(run, rank, step, peer, received, activation.tensor)
            else:
                sender_op, offset = _SENDER[op]
                peer = rank - offset * per_stage
                if peer in run.ranks and (sender_op, iteration, batch) not in steps[peer]:
                    yield self._at(
                        run, rank, step, f"{op} of micro-batch {batch} (iteration {iteration}) is never sent: rank {peer} has no {sender_op} of it", peer
                    )

    def _mismatch(self, run: Run, sender: int, send: OpStep, receiver: int, receive: OpStep, activation: object) -> Iterator[Violation]:
        sent, got = _tensor(send), _tensor(receive)
        if receive.collectives[0][2:] != activation or send.collectives[0][2:] == activation:
            yield self._at(
                run,
                receiver,
                receive,
                f"{receive.op} of micro-batch {receive.batch_id} (iteration {receive.iteration}) receives {got} from rank {sender}, which sends {sent} (line {send.line})",
                sender,
            )
        else:
            yield self._at(
                run,
                sender,
                send,
                f"{send.op} of micro-batch {send.batch_id} (iteration {send.iteration}) sends {sent} to rank {receiver}, which receives {got} (line {receive.line})",
                receiver,
            )

    @staticmethod
    def _at(run: Run, rank: int, step: OpStep, message: str, peer: int | None = None) -> Violation:
        return Violation(step.line, 1, message, rank, path=run.ranks[rank].path, peer=peer)


class _Usual:
    """The run's usual activation (the tensor most p2p steps move): counted only when a pair of steps differs."""

    def __init__(self, steps: dict[int, _Keyed]) -> None:
        self.steps = steps

    @cached_property
    def tensor(self) -> object:
        usual = Counter(s.collectives[0][2:] for by_key in self.steps.values() for s in by_key.values() if s.collectives)
        return usual.most_common(1)[0][0] if usual else None


def _tensor_key(step: OpStep) -> tuple[object, ...] | None:
    """What a p2p moves, to compare (formatting it for every pair would cost more than the comparison)."""
    return step.collectives[0][2:] if step.collectives else None


def _tensor(step: OpStep) -> str:
    collective = step.collectives[0] if step.collectives else None
    return f"{format_shape(collective.shape)} {collective.dtype}" if collective else "no tensor"
