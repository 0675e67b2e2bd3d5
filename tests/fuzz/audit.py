"""The hostile-input audit: fuzzed ``check`` and ``diff`` inputs through the real command, and the hostile
cases of issue 22 measured one by one.  Reproducible (``--seed``); prints counts, never asserts.

    python tests/fuzz/audit.py [--check 2000] [--diff 500] [--seed 22] [--timeout 60]

Each case runs ``lint.cli.main`` in a forked child (the parent has imported tlint once, so a case costs its
own work, not start-up): a case that does not end within ``--timeout`` seconds is killed and counted as a
hang; a child that dies of an exception tlint did not catch is a traceback; its peak resident memory is
``ru_maxrss`` from ``os.wait4`` (which includes what it shares with this parent: a floor of ~100 MiB).
Exit codes other than 0, 1 and 2, TL000 findings (a rule or parser that failed), reports that do not
parse and control characters in an HTML page are counted too.  The fuzzed inputs are the seeds of
``tests/fixtures/seeds`` (and the shared SimAI samples where present), cut, spliced, damaged, compressed.
"""

from __future__ import annotations

import argparse
import bz2
import contextlib
import gzip
import io
import json
import lzma
import os
import re
import resource
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from random import Random

import zstandard

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from lint.cli import main  # noqa: E402 - after the checkout is on the path
from tests.fuzz.inputs import DAMAGE, ENORMOUS_NUMBERS, SEEDS  # noqa: E402

MIB = 1 << 20
UNCAUGHT = 99  # a child's exit status when main() raised
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_COMPRESSORS: tuple[Callable[[bytes], bytes], ...] = (gzip.compress, bz2.compress, lzma.compress, zstandard.ZstdCompressor().compress)


@dataclass
class Outcome:
    code: int | None  # None: killed after the timeout
    seconds: float
    peak_mib: float
    out: str
    err: str


@dataclass
class Tally:
    cases: int = 0
    codes: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)
    slowest: float = 0.0
    peak_mib: float = 0.0

    def add(self, name: str, outcome: Outcome, problem: str | None) -> None:
        self.cases += 1
        self.codes["hang" if outcome.code is None else "traceback" if outcome.code == UNCAUGHT else str(outcome.code)] += 1
        self.slowest = max(self.slowest, outcome.seconds)
        self.peak_mib = max(self.peak_mib, outcome.peak_mib)
        if problem is not None:
            self.problems.append(f"{name}: {problem}")


def run(argv: list[str], timeout: float, stdin: Path | None = None) -> Outcome:
    """``main(argv)`` in a forked child, with its output in temporary files."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.monotonic()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            code: int | None = UNCAUGHT
            try:
                if stdin is not None:
                    descriptor = os.open(stdin, os.O_RDONLY)
                    os.dup2(descriptor, 0)
                    sys.stdin = io.TextIOWrapper(io.FileIO(0, closefd=False))
                code = main(argv, stdout=out, stderr=err)
            except BaseException:
                traceback.print_exc(file=err)
            finally:
                with contextlib.suppress(BaseException):
                    out.flush()
                    err.flush()
                os._exit(UNCAUGHT if code is None else code)
        status, usage = _wait(pid, timeout)
        seconds = time.monotonic() - started
        out.seek(0)
        err.seek(0)
        code = os.waitstatus_to_exitcode(status) if status is not None else None
        return Outcome(code, seconds, usage.ru_maxrss / 1024 if usage else 0.0, out.read(), err.read())


def _wait(pid: int, timeout: float) -> tuple[int | None, resource.struct_rusage | None]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            return status, usage
        time.sleep(0.01)
    os.kill(pid, signal.SIGKILL)
    os.wait4(pid, 0)
    return None, None


# -- fuzzed inputs ---------------------------------------------------------------------------------


def damaged(random: Random) -> bytes:
    """A seed after a few of the edits files suffer: cuts, splices, junk, extreme numbers, repeats."""
    data = random.choice(SEEDS)
    for _ in range(random.randint(0, 4)):
        at = random.randint(0, len(data))
        edit = random.choice(("truncate", "splice", "insert", "number", "repeat", "line", "bom"))
        if edit == "truncate":
            data = data[:at]
        elif edit == "splice":
            other = random.choice(SEEDS)
            data = data[:at] + other[random.randint(0, len(other)) :]
        elif edit == "insert":
            data = data[:at] + (random.choice(DAMAGE) if random.random() < 0.7 else random.randbytes(random.randint(1, 16))) + data[at:]
        elif edit == "number":
            numbers = list(re.finditer(rb"[0-9]+(?:\.[0-9]+)?", data))
            if numbers:
                chosen = random.choice(numbers)
                data = data[: chosen.start()] + random.choice(ENORMOUS_NUMBERS) + data[chosen.end() :]
        elif edit == "repeat":
            line_end = data.find(b"\n", at)
            line = data[data.rfind(b"\n", 0, at) + 1 : line_end if line_end >= 0 else len(data)]
            data = data[:at] + (line + b"\n") * random.randint(2, 200) + data[at:]
        elif edit == "line":  # one long line, over the limit once in a while
            data = data[:at] + random.choice((b"x", b"d,", b"[", b"'", b"0")) * random.choice((1000, 100_000, 5 * MIB // 2)) + data[at:]
        else:
            data = b"\xef\xbb\xbf" + data
    if random.random() < 0.1:
        data = random.choice(_COMPRESSORS)(data)
        if random.random() < 0.3:
            data = data[: random.randint(0, len(data))]
    return data


def audit_check(random: Random, count: int, timeout: float, directory: Path) -> Tally:
    tally = Tally()
    formats = (None, "megatron-trace", "optprime-log", "neusight-tsv", "simai-workload")
    reporters = ("json", "concise", "full", "sarif", "github", "junit")
    for case in range(count):
        folder = directory / f"check{case}"
        folder.mkdir()
        for rank in range(random.randint(1, 3)):
            (folder / f"trace_rank{rank}.txt").write_bytes(damaged(random))
        forced, reporter = random.choice(formats), random.choice(reporters)
        argv = ["check", str(folder), "--no-cache", "--jobs", "1", "--output-format", reporter] + (["--trace-format", forced] if forced else [])
        outcome = run(argv, timeout)
        tally.add(f"check {case} ({reporter}, {forced})", outcome, _check_problem(outcome, reporter))
        for path in folder.iterdir():
            path.unlink()
        folder.rmdir()
    return tally


def _check_problem(outcome: Outcome, reporter: str, command: str = "check") -> str | None:
    if outcome.code is None:
        return "hang"
    if outcome.code == UNCAUGHT or "Traceback (most recent call last)" in outcome.err:
        return "traceback: " + outcome.err.strip().splitlines()[-1]
    if outcome.code not in (0, 1, 2):
        return f"exit {outcome.code}"
    if reporter in ("json", "sarif"):
        try:
            report = json.loads(outcome.out)
        except ValueError:
            return "a JSON report that does not parse"
        if command == "diff":
            return None
        found = [f["code"] for f in report["findings"]] if reporter == "json" else [r["ruleId"] for run in report["runs"] for r in run["results"]]
        return "TL000" if "TL000" in found else None
    # The text formats name a finding's code before its severity or as its title (SARIF and JUnit list every rule).
    return "TL000" if re.search(r"TL000 (?:\[|error)|title=TL000", outcome.out) else None


def audit_diff(random: Random, count: int, timeout: float, directory: Path) -> Tally:
    tally = Tally()
    for case in range(count):
        sides = [directory / f"diff{case}{side}.txt" for side in "ab"]
        for side in sides:
            side.write_bytes(damaged(random) if random.random() < 0.8 else random.choice(SEEDS))
        reporter = random.choice(("concise", "json", "full", "html"))
        outcome = run(["diff", *map(str, sides), "--output-format", reporter, "--jobs", "1"], timeout)
        problem = _check_problem(outcome, reporter, "diff")
        if problem is None and reporter == "html" and _CONTROL.search(outcome.out.replace("\n", "").replace("\t", "")):
            problem = "a control character in the HTML page"
        tally.add(f"diff {case} ({reporter})", outcome, problem)
        for side in sides:
            side.unlink()
    return tally


# -- the hostile cases, measured -------------------------------------------------------------------


def hostile_cases(directory: Path, timeout: float) -> list[tuple[str, Outcome]]:
    trace = (ROOT / "tests" / "fixtures" / "seeds" / "000_14848477538be528.txt").read_bytes()
    first = trace.splitlines(keepends=True)[0]
    cases: list[tuple[str, list[str], Path | None]] = []

    def compressed_line(name: str, compress: Callable[[bytes], bytes], size: int) -> Path:
        path = directory / name
        path.write_bytes(compress(first + b"x" * size + b"\n"))
        return path

    gz = directory / "bomb.txt.gz"
    with gzip.open(gz, "wb", compresslevel=9) as stream:  # 2 GB of one line in about 2 MB
        stream.write(first)
        for _ in range(2048):
            stream.write(b"x" * MIB)
    cases.append((f"gzip of one 2 GiB line ({gz.stat().st_size / 1e6:.1f} MB)", ["check", str(gz), "--no-cache"], None))
    for name, compress in (("bz2", bz2.compress), ("xz", lzma.compress), ("zst", zstandard.ZstdCompressor().compress)):
        path = compressed_line(f"bomb.txt.{name}", compress, 512 * MIB)
        cases.append((f"{name} of one 512 MiB line ({path.stat().st_size / 1e3:.0f} kB)", ["check", str(path), "--no-cache"], None))
    long = directory / "long_rank7.txt"
    long.write_bytes(first + b"d," * (4 * MIB) + b"\n" + trace)
    cases.append(("an 8 MiB line of commas between records", ["check", str(long), "--no-cache"], None))
    cases.append(("standard input from /dev/zero", ["check", "-", "--no-cache"], Path("/dev/zero")))
    fifo = directory / "waiting.log"
    os.mkfifo(fifo)
    run_dir = directory / "run"
    run_dir.mkdir()
    for rank in (0, 1):
        (run_dir / f"trace_rank{rank}.txt").write_bytes(trace.replace(b"rank:7:", f"rank:{rank}:".encode()))
    for key in ("log", "workload"):
        config = directory / f"{key}.toml"
        config.write_text(f'[runs."*"]\n{key} = "{fifo}"\n', encoding="utf-8")
        cases.append((f"a FIFO as {key} =", ["check", str(run_dir), "--config", str(config), "--no-cache"], None))
    cases.append(("a FIFO as --baseline", ["check", str(run_dir), "--baseline", str(fifo), "--no-cache"], None))
    cases.append(("/dev/zero named", ["check", "/dev/zero", "--no-cache"], None))
    return [(name, run(argv, timeout, stdin)) for name, argv, stdin in cases]


def main_audit() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", type=int, default=2000, help="fuzzed check inputs")
    parser.add_argument("--diff", type=int, default=500, help="fuzzed diff inputs")
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds before a case counts as a hang")
    parser.add_argument("--no-hostile", action="store_true", help="leave out the measured hostile cases")
    args = parser.parse_args()
    random = Random(args.seed)
    floor = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"seed {args.seed}; a child's peak RSS counts the ~{floor:.0f} MiB it shares with this process")
    failed = False
    with tempfile.TemporaryDirectory(prefix="tlint-audit-") as name:
        directory = Path(name)
        for label, audit, count in (("check", audit_check, args.check), ("diff", audit_diff, args.diff)):
            started = time.monotonic()
            tally = audit(random, count, args.timeout, directory)
            codes = ", ".join(f"{key}: {value}" for key, value in sorted(tally.codes.items()))
            print(
                f"{label}: {tally.cases} inputs in {time.monotonic() - started:.0f} s; exits {codes}; problems {len(tally.problems)}; "
                f"slowest {tally.slowest:.1f} s; peak RSS {tally.peak_mib:.0f} MiB"
            )
            for problem in tally.problems[:20]:
                print(f"  {problem}")
            failed |= bool(tally.problems)
        if not args.no_hostile:
            print("hostile cases (exit, seconds, peak RSS):")
            for name, outcome in hostile_cases(directory, args.timeout):
                code = "hang" if outcome.code is None else "traceback" if outcome.code == UNCAUGHT else outcome.code
                last = (outcome.err.strip().splitlines() or [""])[-1][:110]
                print(f"  {name}: exit {code}, {outcome.seconds:.1f} s, {outcome.peak_mib:.0f} MiB; {last}")
                failed |= outcome.code not in (1, 2)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main_audit())
