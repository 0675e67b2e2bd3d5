"""``optprime-log``: the rank (and step) of the records whose own text does not say it, from the writer's structure.

A layer timing record belongs to the timing header it follows (:class:`_TimingBlocks`), a special-nodes
list to the cross-reference header before it, a failure report's fields to the rank its entry names.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lint.formats.optprime_log.records import LayerTimingRecord, Record, TimingHeaderRecord, layer_position


@dataclass(slots=True)
class _TimingBlock:
    """A ``[rank:R stage:S] … - step N`` header and the layer groups attributed to it so far."""

    rank: int
    stage: int
    step: int
    burst: int  # headers printed with no layer record between them form one burst
    order: int
    layers: set[str] = field(default_factory=set)
    last: float = float("-inf")


class _TimingBlocks:
    """Which timing header a ``layer[...]`` record belongs to.

    Each rank's latest header is a candidate.  Narrowed in turn (a filter that would leave nothing is
    skipped): blocks not yet complete (a stage reports the same groups every step); blocks whose last
    group is printed before this one (embed, layers ascending, lm_head); blocks whose stage reported
    this group in an earlier step.  Several left: those of the latest burst of headers (printed with no
    layer record between them, as when two land on one line), where the n-th layer record of a line
    belongs to the n-th header.
    """

    def __init__(self) -> None:
        self.latest: dict[int, _TimingBlock] = {}
        self.stage_layers: dict[int, set[str]] = {}
        self.bursts = 0
        self.burst_size = 0
        self.opened = 0
        self.newest: _TimingBlock | None = None
        self.layer_since_header = True

    def open(self, header: TimingHeaderRecord, _layers_before: int) -> None:
        rank, stage, step = header.rank, header.stage, header.step
        previous = self.latest.get(rank)
        if previous is not None:
            history = self.stage_layers.get(previous.stage)
            if history is None:
                self.stage_layers[previous.stage] = set(previous.layers)
            else:  # (not setdefault: that makes a set per header, which this runs for)
                history |= previous.layers
        if self.layer_since_header:
            self.bursts += 1
            self.burst_size = 0
            self.layer_since_header = False
        self.opened += 1
        self.burst_size += 1
        self.newest = self.latest[rank] = _TimingBlock(rank, stage, step, self.bursts, self.opened)

    def attribute(self, layer: LayerTimingRecord, index_on_line: int) -> None:
        self.layer_since_header = True
        name = layer.layer
        position = layer_position(name)
        newest = self.newest
        if layer.rank is not None:
            block = self.latest.get(layer.rank)
        elif (
            self.burst_size == 1
            and newest is not None
            and (history := self.stage_layers.get(newest.stage)) is not None
            and name in history
            and newest.last < position
            and not (len(newest.layers) >= len(history) and newest.layers >= history)  # lengths first: mostly unequal
        ):
            block = newest  # what _choose would pick (_open, _follows, _reported at once), without comparing every rank's block
        else:
            block = self._choose(name, position, index_on_line)
        if block is None:
            return
        layer.rank, layer.step = block.rank, block.step
        block.layers.add(name)
        block.last = position

    def _open(self, block: _TimingBlock) -> bool:
        history = self.stage_layers.get(block.stage)
        return not history or not (len(block.layers) >= len(history) and block.layers >= history)  # lengths first: mostly unequal

    def _follows(self, block: _TimingBlock, position: float) -> bool:
        return block.last < position

    def _reported(self, block: _TimingBlock, layer: str) -> bool:
        return layer in self.stage_layers.get(block.stage, ())

    def _choose(self, layer: str, position: float, index_on_line: int) -> _TimingBlock | None:
        blocks = list(self.latest.values())
        if len(blocks) <= 1:
            return blocks[0] if blocks else None
        blocks = _narrow(blocks, self._open)
        blocks = _narrow(blocks, lambda block: self._follows(block, position))
        blocks = _narrow(blocks, lambda block: self._reported(block, layer))
        burst = max(block.burst for block in blocks)
        blocks = sorted((block for block in blocks if block.burst == burst), key=lambda block: block.order)
        return blocks[min(index_on_line, len(blocks) - 1)]


def _narrow(blocks: list[_TimingBlock], keep: Callable[[_TimingBlock], bool]) -> list[_TimingBlock]:
    kept = [block for block in blocks if keep(block)]
    return kept or blocks


class Attribution:
    """The state of one log that gives records the rank (and step) their own text does not carry."""

    def __init__(self) -> None:
        self.timing = _TimingBlocks()
        self.awaiting_special_nodes: deque[int | None] = deque()  # cross-reference headers, oldest first
        self.process: int | str | None = None  # the current line's process: its rank, its tee name, None: no prefix
        self.tracebacks: set[int | str | None] = set()  # processes inside a traceback
        self.failure_rank: int | None = None  # the rank of the failure report entry being printed
        self.by_kind: dict[str, Callable[[Any, int], None]] = {  # what a record of the kind tells, given the layer records before it on its line
            "timing_header": self.timing.open,
            "layer_timing": self.timing.attribute,
            "cross_ref_header": lambda r, _: self.awaiting_special_nodes.append(r.rank),
            "special_nodes": lambda r, _: self._special_nodes(r),
            "traceback": lambda r, _: self.tracebacks.add(self.process),
            "exception": lambda r, _: self.tracebacks.discard(self.process),
            "failure_title": self._new_failure,
            "failure_section": self._new_failure,
            "failure_index": self._new_failure,
            "failure_rank": lambda r, _: setattr(self, "failure_rank", r.rank),
            "failure_exitcode": self._failure_field,
            "failure_signal": self._failure_field,
            "failure_field": self._failure_field,
        }

    def in_traceback(self) -> bool:
        return self.process in self.tracebacks

    def _special_nodes(self, record: Record) -> None:
        if record.rank is None:
            record.rank = self.awaiting_special_nodes.popleft() if self.awaiting_special_nodes else None
        elif record.rank in self.awaiting_special_nodes:
            self.awaiting_special_nodes.remove(record.rank)

    def _new_failure(self, record: Record, _: int) -> None:
        self.failure_rank = None

    def _failure_field(self, record: Record, _: int) -> None:
        if record.rank is None:
            record.rank = self.failure_rank
