"""What the benchmarks share: generated inputs under benchmarks/data/, and timing a child process."""

from __future__ import annotations

import compileall
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "benchmarks" / "data"
# --no-cache: a benchmark measures parsing and rules, not a cache hit on its second run.
TLINT_CHECK = [sys.executable, "-m", "lint", "check", "--no-cache"]


@contextmanager
def generated_input(name: str, make: Callable[[Path], object], keep: bool) -> Iterator[Path]:
    """``DATA / name``, reused when an earlier run kept it, else made now and removed afterwards unless ``keep``."""
    path = DATA / name
    made = not path.exists()
    if made:
        DATA.mkdir(parents=True, exist_ok=True)
        partial = DATA / f".{name}.partial"  # an interrupted generation must not be reused as complete
        make(partial)
        partial.rename(path)
    try:
        yield path
    finally:
        if made and not keep and path.is_dir():
            shutil.rmtree(path)
        elif made and not keep:
            path.unlink()


@dataclass
class Measurement:
    seconds: float
    peak_rss_mib: float  # of the child or of its largest waited-for descendant, not what it inherited from this process
    exit_code: int
    stdout: str
    parent_peak_rss_mib: float | None = None  # of the child process alone (its VmHWM), where /proc tells it
    cpu_seconds: float = 0.0  # user + system of the child and the descendants it waited for (its workers)
    parent_cpu_seconds: float | None = None  # of the child alone, as /proc last showed it before it exited


@cache
def bytecode_compiled() -> None:
    """Compiles the checkout's modules as ``pip install`` does for an installed package: with
    PYTHONDONTWRITEBYTECODE set (as on some CI machines) a checkout would otherwise recompile every
    module it imports on every run, ~35 ms of start-up no installed tlint pays."""
    for folder in ("lint", "rules"):
        compileall.compile_dir(ROOT / folder, quiet=1)


def run_measured(command: list[str], cpu: int | None = None, env: dict[str, str] | None = None) -> Measurement:
    """Runs ``command`` from the checkout, pinned to ``cpu`` if given, and measures that child alone."""
    bytecode_compiled()
    pin = (lambda: os.sched_setaffinity(0, {cpu})) if cpu is not None else None
    inherited = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # what the child starts with, in KiB (see below)
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        child = subprocess.Popen(command, cwd=ROOT, stdout=out, preexec_fn=pin, env=env)
        watcher = _PeakWatcher(child.pid)
        watcher.start()
        # wait4 gives this child's own rusage, which RUSAGE_CHILDREN would mix with earlier children's.
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - start
        watcher.join()
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        stdout = out.read().decode("utf-8", "replace")
    cpu_seconds = usage.ru_utime + usage.ru_stime  # wait4 counts the child's reaped descendants with it
    peak = usage.ru_maxrss / 1024
    if watcher.peak_mib is not None and usage.ru_maxrss <= inherited:
        # Linux keeps a process's peak RSS across exec, and a child counts the pages it shares with this process
        # until it execs: a figure no larger than this process's own peak may be this process's (a benchmark that
        # generated its input here: 386 MiB reported for a 200 MB workload checked in 75 MiB).  The child's own
        # VmHWM is not inherited; its workers, forked from it, are small then.
        peak = watcher.peak_mib
    return Measurement(seconds, peak, child.returncode, stdout, watcher.peak_mib, cpu_seconds, watcher.cpu_seconds)


class _PeakWatcher(threading.Thread):
    """Polls the child's own peak RSS (VmHWM, which never decreases) and CPU time until it exits: worker
    processes left out.  The CPU time misses what the child spent after the last poll (at most POLL_SECONDS)."""

    POLL_SECONDS = 0.02

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.status = Path(f"/proc/{pid}/status")
        self.stat = Path(f"/proc/{pid}/stat")
        self.peak_mib: float | None = None
        self.cpu_seconds: float | None = None

    def run(self) -> None:
        ticks = os.sysconf("SC_CLK_TCK")
        while True:
            try:
                text = self.status.read_text()
                stat = self.stat.read_text()
            except OSError:
                return
            if "VmHWM:" not in text:  # a zombie: exited, its memory gone
                return
            kib = int(text.split("VmHWM:")[1].split()[0])
            self.peak_mib = max(self.peak_mib or 0.0, kib / 1024)
            fields = stat.rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
            self.cpu_seconds = (int(fields[11]) + int(fields[12])) / ticks  # utime + stime: its own, not its children's
            time.sleep(self.POLL_SECONDS)


def first_cpu() -> int:
    return min(os.sched_getaffinity(0))


def best_cpu(step: Callable[[], object], repeats: int = 3) -> float:
    """The fewest CPU seconds ``step()`` took in this process, of ``repeats`` runs: a floor benchmark's timer."""
    times = []
    for _ in range(repeats):
        start = time.process_time()
        step()
        times.append(time.process_time() - start)
    return min(times)
