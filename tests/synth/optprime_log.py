"""A long OptimusPrime training run's log, grown from a real one (examples/optprime-log.txt by default).

A real log prints its set-up once, then per training step a timing block on every rank (the timing
add-on's ``[rank:R stage:S] … - step N`` header and one ``layer[…]`` line per group the stage runs) and
an ``| epoch … |`` progress line from the last stage, then ``run completed`` on every rank.  A long run is
the same set-up and ending around as many steps as the size asks for: the ranks keep their stages,
groups and ``ops``; the ranks print each step in an order of their own (they are separate processes);
times vary around the sample's; batches count up to ``nbatches`` and go on in the next epoch.  The log
is valid: it draws no finding but TL221's (the run completed).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from pathlib import Path

from lint import formats
from lint.formats.optprime_log.records import ConfigRecord, EpochProgressRecord, LayerTimingRecord, TimingHeaderRecord

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "examples" / "optprime-log.txt"
MB = 1_000_000


@dataclass(frozen=True)
class _Block:
    """What one rank times in a step: its stage and (group, ops, the sample's total ms) per group."""

    rank: int
    stage: int
    groups: tuple[tuple[str, int, float], ...]


@dataclass(frozen=True)
class _Sample:
    set_up: list[str]  # up to the first timing header
    blocks: list[_Block]  # step 1's, in the sample's order
    nbatches: int
    ending: list[str]  # after the last progress line


def _read(sample: Path) -> _Sample:
    lines = sample.read_text(encoding="utf-8").splitlines()
    records = list(formats.parser("optprime-log").parse(enumerate(lines, 1)))
    headers = [r for r in records if isinstance(r, TimingHeaderRecord)]
    progress = [r for r in records if isinstance(r, EpochProgressRecord)]
    nbatches = next(int(r.value) for r in records if isinstance(r, ConfigRecord) and r.setting == "nbatches")
    groups: dict[int, list[tuple[str, int, float]]] = {header.rank: [] for header in headers if header.step == 1}
    for record in records:
        if isinstance(record, LayerTimingRecord) and record.step == 1 and record.rank in groups:
            groups[record.rank].append((record.layer, record.ops, record.total_ms))
    stages = {header.rank: header.stage for header in headers if header.step == 1}
    blocks = [_Block(rank, stages[rank], tuple(timed)) for rank, timed in groups.items()]
    return _Sample(lines[: headers[0].line - 1], blocks, nbatches, lines[progress[-1].line :])


def _block_lines(block: _Block, step: int, rng: random.Random) -> list[str]:
    lines = [f"[rank:{block.rank} stage:{block.stage}] transformer-block(module) forward time (no send/recv) - step {step}"]
    for layer, ops, sample_total in block.groups:
        total = round(sample_total * rng.uniform(0.8, 1.2), 3)
        lines.append(f"  layer[{layer}]: total={total:.3f}ms, ops={ops}, avg/op={total / ops:.3f}ms")
    return lines


def _progress_line(step: int, nbatches: int, rng: random.Random) -> str:
    epoch, batch = divmod(step - 1, nbatches)
    loss = 1.5 + 8 * math.exp(-step / 50) + rng.uniform(0, 0.3)
    return (
        f"| epoch {epoch + 1:3d} | {batch + 1:5d}/{nbatches:5d} batches | lr {0.0:02.2f} | ms/batch {rng.uniform(1500, 1700):5.2f} "
        f"| loss {loss:5.2f} | ppl {math.exp(loss):8.2f}"
    )


def write_long_run(path: Path, size_mb: float, sample: Path = SAMPLE, seed: int = 0) -> int:
    """Writes a log of about ``size_mb`` MB to ``path``; returns its number of steps."""
    run = _read(sample)
    rng = random.Random(seed)
    target = size_mb * MB - sum(len(line) + 1 for line in run.ending)
    with open(path, "w", encoding="utf-8") as out:
        written = out.write("".join(line + "\n" for line in run.set_up))
        step = 0
        while written < target or step == 0:
            step += 1
            order = run.blocks[:]
            rng.shuffle(order)
            lines = [line for block in order for line in _block_lines(block, step, rng)]
            lines.append(_progress_line(step, run.nbatches, rng))
            written += out.write("".join(line + "\n" for line in lines))
        out.write("".join(line + "\n" for line in run.ending))
    return step
