"""The ``tlint`` command line: parses arguments and wires the engine, the differ and the reporters."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TextIO

from lint import __version__
from lint.engine import CheckOptions, check
from lint.formats import FORMAT_NAMES
from lint.report import CHECK_REPORTERS
from lint.rule import Severity

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_ERROR, f"tlint: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="tlint", description="Lint and diff distributed-training traces, logs and workloads.")
    parser.add_argument("--version", action="version", version=f"tlint {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    check_cmd = commands.add_parser("check", help="check trace, log and workload files")
    check_cmd.add_argument("paths", nargs="+", metavar="PATH", help="files or directories (walked)")
    check_cmd.add_argument("--trace-format", choices=FORMAT_NAMES, help="parse every file as this format")
    check_cmd.add_argument("--output-format", choices=sorted(CHECK_REPORTERS), default="concise")
    check_cmd.add_argument(
        "--fail-on", choices=[s.value for s in Severity], default="error",
        help="lowest severity that makes the exit code 1 (default: error)",
    )
    check_cmd.add_argument(
        "--max-findings", type=int, default=1000, metavar="N",
        help="findings shown per rule and file (0: all; default 1000)",
    )
    return parser


def main(argv: Sequence[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    if args.command is None:
        parser.print_help(err)
        return EXIT_ERROR
    if args.command == "check":
        return _check(args, out, err)
    return EXIT_ERROR  # pragma: no cover - argparse only accepts the commands above


def _check(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.max_findings < 0:
        err.write("tlint: error: --max-findings must be 0 or more\n")
        return EXIT_ERROR
    report = check(args.paths, CheckOptions(trace_format=args.trace_format, max_findings=args.max_findings))
    CHECK_REPORTERS[args.output_format](report, out, err)
    if report.summary.input_errors:
        return EXIT_ERROR
    threshold = Severity(args.fail_on).rank
    failing = any(f.severity.rank >= threshold for f in report.findings)
    return EXIT_FINDINGS if failing else EXIT_CLEAN
