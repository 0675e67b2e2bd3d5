"""tlint's verdicts against SimAI's own: the confusion table on the SimAI oracle beside the project.

``../shared/oracle/simai/oracle.tsv`` records what the real ``SimAI_analytical`` binary (aliyun/SimAI HEAD
cef83f9d) did with each of its files: ``abort``, ``wrong`` (exit 0 but the simulation is not the file),
``warn`` (a warning, then the file as written) or ``fine``.  This module checks those files with
``--consumer simai`` and crosses tlint's highest severity per file with SimAI's class; the files are read in
place (never copied into the project).

    python -m tests.simai_oracle [--consumer NAME]

prints the table and the three figures issue 23 is judged by: the share of SimAI's aborts that get an error,
of its wrong simulations that get an error or a warning, and of the files it simulates as written that get
no error.  ``tests/test_simai_oracle.py`` holds tlint to them.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from lint.cli import main
from tests.shared_corpus import SHARED

ORACLE = SHARED / "oracle" / "simai"
CLASSES = ("abort", "wrong", "warn", "fine")
SEVERITIES = ("error", "warning", "info", "none")
# What issue 23 asks of tlint on each class of SimAI's outcomes.
TARGETS = {"aborts with an error": 0.95, "wrong simulations flagged": 0.90, "simulated as written, no error": 0.95}


@dataclass(frozen=True)
class Run:
    """One row of oracle.tsv: a file and what SimAI did with it."""

    path: Path
    mutation: str  # "" for a real file, "ORIGINAL" for a parent
    simai: str
    detail: str


def runs(oracle: Path = ORACLE) -> list[Run]:
    with open(oracle / "oracle.tsv", encoding="utf-8", newline="") as table:
        rows = list(csv.DictReader(table, delimiter="\t"))
    shared = oracle.parent.parent
    return [Run(shared / row["file"], row["mutation"], row["simai"], row["simai_detail"]) for row in rows]


def verdicts(paths: list[Path], *options: str) -> dict[Path, str]:
    """tlint's highest severity on each file ("none" without a finding), checked as simai-workload."""
    highest: dict[Path, str] = {path.resolve(): "none" for path in paths}
    for start in range(0, len(paths), 400):
        out = io.StringIO()
        argv = ["check", "--no-cache", "--output-format", "json", "--max-findings", "0", "--trace-format", "simai-workload", *options]
        main([*argv, *map(str, paths[start : start + 400])], stdout=out, stderr=io.StringIO())
        for finding in json.loads(out.getvalue())["findings"]:
            path = Path(finding["path"]).resolve()
            if SEVERITIES.index(finding["severity"]) < SEVERITIES.index(highest[path]):
                highest[path] = finding["severity"]
    return highest


@dataclass(frozen=True)
class Confusion:
    """tlint's highest severity × SimAI's class, with the runs in each cell."""

    cells: dict[tuple[str, str], list[Run]]

    @classmethod
    def of(cls, oracle: Path = ORACLE, *options: str) -> Confusion:
        rows = runs(oracle)
        found = verdicts(sorted({run.path for run in rows}), *options)
        cells: dict[tuple[str, str], list[Run]] = {}
        for run in rows:
            cells.setdefault((found[run.path.resolve()], run.simai), []).append(run)
        return cls(cells)

    def count(self, severities: tuple[str, ...], classes: tuple[str, ...]) -> int:
        return sum(len(self.cells.get((severity, simai), [])) for severity in severities for simai in classes)

    def figures(self) -> dict[str, tuple[int, int]]:
        """Each of issue 23's measures as (files that meet it, files of the class)."""
        return {
            "aborts with an error": (self.count(("error",), ("abort",)), self.count(SEVERITIES, ("abort",))),
            "wrong simulations flagged": (self.count(("error", "warning"), ("wrong",)), self.count(SEVERITIES, ("wrong",))),
            "simulated as written, no error": (self.count(("warning", "info", "none"), ("warn", "fine")), self.count(SEVERITIES, ("warn", "fine"))),
        }

    def table(self) -> str:
        lines = ["| tlint \\ SimAI | " + " | ".join(CLASSES) + " |", "|---|" + "---:|" * len(CLASSES)]
        lines += [f"| {severity} | " + " | ".join(str(self.count((severity,), (simai,))) for simai in CLASSES) + " |" for severity in SEVERITIES]
        return "\n".join(lines)

    def misses(self) -> Counter[tuple[str, str, str]]:
        """(SimAI class, tlint severity, mutation) of the files that miss their class's measure."""
        missed: Counter[tuple[str, str, str]] = Counter()
        for (severity, simai), cell in self.cells.items():
            if (
                (simai == "abort" and severity != "error")
                or (simai == "wrong" and severity in ("info", "none"))
                or (simai in ("warn", "fine") and severity == "error")
            ):
                missed.update((simai, severity, run.mutation or "real file") for run in cell)
        return missed


def _main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--consumer", default="simai", help="the consumer tlint judges for ('' : none given)")
    parser.add_argument("--oracle", type=Path, default=ORACLE)
    args = parser.parse_args()
    confusion = Confusion.of(args.oracle, *(["--consumer", args.consumer] if args.consumer else []))
    print(confusion.table())
    print()
    for name, (met, total) in confusion.figures().items():
        print(f"{name}: {met}/{total} ({met / total:.1%}; target {TARGETS[name]:.0%})")
    for (simai, severity, mutation), count in sorted(confusion.misses().items()):
        print(f"  missed: SimAI {simai}, tlint {severity}: {mutation} x{count}")


if __name__ == "__main__":
    _main()
