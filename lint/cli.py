"""The ``tlint`` command line: parses arguments and wires configuration, engine and reporters.

Modules are imported where a command needs them: ``tlint --version`` (run by every pre-commit and CI
set-up) imports nothing of tlint's, nor argparse, and a check does not import the differ or the Dask client.
"""

from __future__ import annotations

import errno
import gc
import io
import os
import sys

from lint import __version__

# typing.TYPE_CHECKING without importing typing (mypy reads any TYPE_CHECKING so): this module imports nothing
# at the top that `tlint --version` does not use, and a command's own imports come after _StartUp has paused
# the garbage collector.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Sequence
    from pathlib import Path
    from typing import Any, NoReturn, TextIO

    from lint.check.config import Settings
    from lint.check.engine import CheckOptions
    from lint.check.executor import Backend
    from lint.models.report import Severity

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
DASK_HELP = "read the files as tasks on this running Dask cluster (e.g. tcp://host:8786), which must see them at the same paths; needs tlint-traces[dask]"


def _choice_suggestion(message: str) -> str:
    """ "; did you mean …?" for a mistyped subcommand or choice in argparse's ``message``, as git and cargo
    suggest; "" when nothing is close (or a later argparse suggested already)."""
    import re

    from lint.rule import did_you_mean

    choice = re.search(r"invalid choice: '(.*?)' \(choose from (.*)\)", message)
    if choice is None or "maybe you meant" in message:
        return ""
    return did_you_mean(choice.group(1), [option.strip(" '\"") for option in choice.group(2).split(",")])


def _unrecognized(parser: argparse.ArgumentParser, command: str | None, words: list[str]) -> NoReturn:
    """The error for arguments no option takes, suggesting the closest flag of the subcommand they were given to."""
    import argparse

    from lint.rule import did_you_mean

    subcommands = next((action for action in parser._actions if isinstance(action, argparse._SubParsersAction)), None)
    used: argparse.ArgumentParser = subcommands.choices.get(command, parser) if subcommands is not None and command else parser
    flags = sorted(flag for action in used._actions for flag in action.option_strings)
    hint = next((found for word in words if word.startswith("-") and (found := did_you_mean(word.split("=", 1)[0], flags))), "")
    used.exit(EXIT_ERROR, f"tlint: error: unrecognized arguments: {' '.join(words)}{hint}\n")


def _codes(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The command line's parser: only the subcommand ``argv`` names, with its arguments (every subcommand, and
    all their arguments, when it names none; every subcommand when the words before it may ask for the help
    that lists them): each parser argparse builds costs three gettext look-ups, each argument a help
    formatter (to check its metavar), and the other commands' arguments import what only they use (the
    diff's categories)."""
    import argparse

    columns = _terminal_columns()  # once, not for each of the formatters

    class _Formatter(argparse.HelpFormatter):
        """argparse's, as wide as the terminal without shutil: argparse's shutil.get_terminal_size() imports
        shutil, which imports zlib, bz2 and lzma."""

        def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None) -> None:
            super().__init__(prog, indent_increment, max_help_position, columns - 2 if width is None else width)

    class _Parser(argparse.ArgumentParser):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **{"formatter_class": _Formatter, **kwargs})

        def error(self, message: str) -> NoReturn:
            self.exit(EXIT_ERROR, f"tlint: error: {message}{_choice_suggestion(message)}\n")

    named = next((word for word in argv if not word.startswith("-")), None)
    listed = named not in COMMANDS or any(word not in ("-V", "--version") for word in argv[: list(argv).index(named)])
    parser = _Parser(prog="tlint", description="Lint and diff distributed-training traces, logs and workloads.")
    parser.add_argument("-V", "--version", action="store_true", help="print the version and exit")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, (help_line, arguments) in COMMANDS.items():
        if not (listed or named == name):
            continue
        command = commands.add_parser(name, help=help_line)
        if named not in COMMANDS or named == name:
            arguments(command)
    return parser


def _terminal_columns() -> int:
    """The terminal's width as shutil.get_terminal_size() gives it: $COLUMNS when a positive number, else the
    width of the terminal standard output is (not of the one the report is written to: argparse's choice), else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80  # type: ignore[union-attr]  # no stdout: AttributeError
    except (AttributeError, ValueError, OSError):  # no standard output, closed, detached or no terminal
        return 80


def _check_arguments(check_cmd: argparse.ArgumentParser) -> None:
    from pathlib import Path

    from lint.formats import FORMAT_NAMES, consumers
    from lint.models.report import Severity
    from lint.report import CHECK_REPORTERS

    check_cmd.add_argument("paths", nargs="*", metavar="PATH", help="files or directories (walked; default: the current directory)")
    check_cmd.add_argument("--trace-format", choices=FORMAT_NAMES, help="parse every file as this format")
    check_cmd.add_argument(
        "--consumer",
        choices=sorted(consumers()),
        help="judge the files of its formats for this program (default: the configuration's, else inferred per file from what it shows)",
    )
    check_cmd.add_argument(
        "--output-format",
        choices=sorted(CHECK_REPORTERS),
        default=None,
        help="how findings are reported (default: github inside GitHub Actions, else concise)",
    )
    check_cmd.add_argument("-o", "--output-file", type=Path, metavar="FILE", help="write the report to this file instead of standard output")
    check_cmd.add_argument("-q", "--quiet", action="store_true", help="print the findings and nothing else (no summary, no progress)")
    check_cmd.add_argument("-v", "--verbose", action="store_true", help="also list the files passed over: of no known format, links out of the tree")
    check_cmd.add_argument(
        "--color",
        choices=["auto", "always", "never"],
        default="auto",
        help="colour findings by severity: auto (a terminal, unless NO_COLOR is set; FORCE_COLOR also elsewhere), always or never",
    )
    check_cmd.add_argument("--exit-zero", action="store_true", help="exit 0 even when findings fail (2 still means the check could not run)")
    check_cmd.add_argument("--config", type=Path, metavar="FILE", help="use this tlint.toml, .tlint.toml or pyproject.toml")
    check_cmd.add_argument(
        "--exclude", type=_codes, metavar="PATTERNS", help="gitignore-style patterns left out when walking directories, comma-separated; replaces the defaults"
    )
    check_cmd.add_argument(
        "--extend-exclude", type=_codes, action="extend", default=[], metavar="PATTERNS", help="patterns left out in addition to the defaults"
    )
    check_cmd.add_argument("--no-respect-gitignore", action="store_true", help="walk what .gitignore files exclude too")
    check_cmd.add_argument("--show-settings", action="store_true", help="print the settings a check would use, and exit")
    check_cmd.add_argument("--show-files", action="store_true", help="print the files a check would read, and exit")
    check_cmd.add_argument("--select", type=_codes, metavar="CODES", help="only these rules (codes, names or prefixes, comma-separated)")
    check_cmd.add_argument("--extend-select", type=_codes, action="extend", default=[], metavar="CODES", help="add rules to the selection")
    check_cmd.add_argument("--ignore", type=_codes, action="extend", default=[], metavar="CODES", help="switch rules off")
    check_cmd.add_argument(
        "--fail-on",
        choices=[s.value for s in Severity],
        default=None,
        help="lowest severity that makes the exit code 1 (default: error)",
    )
    check_cmd.add_argument("--max-findings", type=int, default=None, metavar="N", help="findings shown per rule and file (0: all; default 1000)")
    check_cmd.add_argument("--statistics", action="store_true", help="print the number of findings per rule, most frequent first")
    check_cmd.add_argument("--jobs", "-j", type=int, default=None, metavar="N", help="worker processes (default and most: one per core)")
    check_cmd.add_argument("--dask-scheduler", metavar="ADDRESS", help=DASK_HELP)
    check_cmd.add_argument(
        "--rank-regex",
        metavar="REGEX",
        help="find the rank in a file name: a regex with a (?P<rank>...) group; what precedes it is the run's name stem (default: 'rank<R>')",
    )
    check_cmd.add_argument(
        "--comm-group",
        type=Path,
        metavar="FILE",
        help="the comm_group.json of the Chakra runs checked, as given to ASTRA-sim (default: comm_group.json or PREFIX.json beside the files)",
    )
    for dimension, words in (("tp", "tensor"), ("pp", "pipeline"), ("dp", "data"), ("ep", "expert")):
        check_cmd.add_argument(f"--{dimension}", type=int, metavar="N", help=f"{words}-parallel size of the runs checked")
    check_cmd.add_argument("--no-cache", action="store_true", help="parse every file again instead of reusing cached results of unchanged files")
    check_cmd.add_argument("--baseline", type=Path, metavar="FILE", help="report only findings not recorded in this baseline")
    check_cmd.add_argument("--write-baseline", type=Path, metavar="FILE", help="record the current findings as the baseline")


def _diff_arguments(diff_cmd: argparse.ArgumentParser) -> None:
    from pathlib import Path

    from lint.formats import FORMAT_NAMES
    from lint.models.categories import CATEGORIES
    from lint.report import DIFF_REPORTERS

    diff_cmd.add_argument("a", metavar="RUN_A", help="a file, or a run directory, of any format")
    diff_cmd.add_argument("b", metavar="RUN_B", help="the file or run directory to compare it with")
    diff_cmd.add_argument("--output-format", choices=sorted(DIFF_REPORTERS), default="concise")
    diff_cmd.add_argument(
        "--threshold", type=float, default=None, metavar="PERCENT", help="smallest relative change of a median (timing) or size (comm) that counts (default 5)"
    )
    diff_cmd.add_argument(
        "--fail-on",
        type=_codes,
        default=list(CATEGORIES),
        metavar="CATEGORY[,CATEGORY]",
        help=f"categories whose significant changes make the exit code 1: {', '.join(CATEGORIES)} (default: all)",
    )
    diff_cmd.add_argument("--trace-format", choices=FORMAT_NAMES, help="read both sides as this format")
    diff_cmd.add_argument("--rank-regex", metavar="REGEX", help="find the rank in a file name, as for check")
    diff_cmd.add_argument("-o", "--output-file", type=Path, metavar="FILE", help="write the report to this file instead of standard output")
    diff_cmd.add_argument("--jobs", "-j", type=int, default=None, metavar="N", help="worker processes reading the files (default and most: one per core)")
    diff_cmd.add_argument("--dask-scheduler", metavar="ADDRESS", help=DASK_HELP)
    diff_cmd.add_argument("--no-cache", action="store_true", help="read every file again instead of reusing the cached check and profile of unchanged files")
    diff_cmd.add_argument(
        "--all",
        action="store_true",
        help="list every change, also timing that is not significant and what follows from the writer modes (json always has them)",
    )


def _rules_arguments(rules_cmd: argparse.ArgumentParser) -> None:
    rules_cmd.add_argument("--output-format", choices=["concise", "json", "markdown"], default="concise")


def _rule_arguments(rule_cmd: argparse.ArgumentParser) -> None:
    rule_cmd.add_argument("rule", metavar="CODE|NAME", nargs="?")
    rule_cmd.add_argument("--all", action="store_true", help="print the documentation of every rule")


def _cache_arguments(cache_cmd: argparse.ArgumentParser) -> None:
    cache_cmd.add_argument("action", choices=["dir", "info", "clean"], help="dir: print its directory; info: its size; clean: remove it")


# Each subcommand: its help line, and what adds its arguments.
COMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None]]] = {
    "check": ("check trace, log and workload files", _check_arguments),
    "diff": ("compare two runs or workloads: what changed, and whether it matters", _diff_arguments),
    "rules": ("list every rule", _rules_arguments),
    "rule": ("print the documentation of a rule", _rule_arguments),
    "cache": ("where the result cache is, how big, or empty it", _cache_arguments),
}


class _ClosedOutput(io.StringIO):
    """Standard output that the shell closed (``tlint check >&-``), which Python gives as None: writing to it is
    an I/O error, as a full disk is (exit 2); a report written to ``-o FILE`` does not need it."""

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, "standard output is closed")


def main(argv: Sequence[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    out = stdout or sys.stdout or _ClosedOutput()
    err = stderr or sys.stderr or io.StringIO()  # standard error closed (`2>&-`): what would go there is lost, as in a shell
    for stream in (out, err):
        # A terminal or pipe of another encoding than UTF-8 (LC_ALL=C, PYTHONIOENCODING=latin-1) gets the
        # characters it cannot encode as escapes (\u2192), not a UnicodeEncodeError half-way through a report.
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    start_up = _StartUp()
    try:
        code = _main(argv, out, err, start_up)
        out.flush()  # here, not when the interpreter exits: a full disk or a closed pipe is this command's error
        return code
    except BrokenPipeError:  # `tlint check . | head`: the reader left; say nothing more, as other commands do
        _silence(out)
        return EXIT_ERROR
    except OSError as error:  # no reader turned it into a finding or an input error: writing the report, mostly
        _silence(out)
        import contextlib

        with contextlib.suppress(OSError):
            where = f"{error.filename}: " if isinstance(error.filename, str) else ""
            err.write(f"tlint: error: I/O error: {where}{error.strerror or error}\n")
        return EXIT_ERROR
    finally:
        start_up.done()


class _StartUp:
    """Automatic garbage collection off while tlint starts: its imports, configuration and rule catalog build
    tens of thousands of objects that live until it exits, and the collections they triggered walked them
    and freed nothing.  :meth:`done` turns it back on before files are read (a check first freezes what
    start-up built: lint.check.engine.freeze_loaded_objects)."""

    def __init__(self) -> None:
        self.paused = gc.isenabled()  # not when the embedding program turned it off: it stays as it is
        if self.paused:
            gc.disable()

    def done(self) -> None:
        if self.paused:
            gc.enable()
            self.paused = False


def _main(argv: Sequence[str] | None, out: TextIO, err: TextIO, start_up: _StartUp) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments in (["--version"], ["-V"]):  # before the parser and what it imports
        out.write(f"tlint {__version__}\n")
        return EXIT_CLEAN
    from lint.check.executor import BackendError
    from lint.models.errors import ConfigError
    from lint.rule import InstallError

    parser = build_parser(arguments)
    try:
        args, unknown = parser.parse_known_args(arguments)
        if unknown:
            _unrecognized(parser, args.command, unknown)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    if args.version:
        out.write(f"tlint {__version__}\n")
        return EXIT_CLEAN
    try:
        if args.command == "check":
            return _check(args, out, err, start_up)
        start_up.done()
        if args.command == "diff":
            return _diff(args, out, err)
        if args.command == "rules":
            from lint.report.rules import render_rules

            render_rules(args.output_format, out)
            return EXIT_CLEAN
        if args.command == "rule":
            return _rule(args.rule, args.all, out, err)
        if args.command == "cache":
            return _cache(args.action, out)
    except (ConfigError, BackendError, InstallError) as error:
        err.write(f"tlint: error: {error}\n")
        return EXIT_ERROR
    except KeyboardInterrupt:
        err.write("tlint: interrupted\n")
        return 130
    parser.print_help(err)
    return EXIT_ERROR


def _silence(stream: TextIO) -> None:
    """Point a closed pipe at /dev/null so that Python's final flush of it does not fail again."""
    import contextlib

    with contextlib.suppress(OSError, ValueError, io.UnsupportedOperation):
        os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())


def _rule(key: str | None, every: bool, out: TextIO, err: TextIO) -> int:
    from lint.report.rules import render_rule
    from lint.rule import lookup, registry, rule_suggestion

    if every == (key is not None):
        err.write("tlint: error: `tlint rule` takes a rule code or name, or --all\n")
        return EXIT_ERROR
    if key is None:
        for index, rule in enumerate(sorted(registry().values(), key=lambda r: r.code)):
            out.write("\n" if index else "")
            render_rule(rule, out)
        return EXIT_CLEAN
    rules = lookup(key)
    if len(rules) != 1:
        found = "matches " + ", ".join(r.code for r in rules) if rules else "is not a rule code or name"
        err.write(f"tlint: error: '{key}' {found}; `tlint rules` lists them{'' if rules else rule_suggestion(key)}\n")
        return EXIT_ERROR
    render_rule(rules[0].load(), out)
    return EXIT_CLEAN


def _cache(action: str, out: TextIO) -> int:
    from lint.store import disk

    directory = disk.cache_dir()
    if action == "dir":
        out.write(f"{directory}\n")
    elif action == "info":
        files, size = disk.size()
        out.write(f"{directory}: {files} files, {size / 10**6:.1f} MB (bound: {disk.max_bytes() / 10**6:g} MB, ${disk.MAX_MB_VARIABLE})\n")
    else:
        out.write(f"Removed the cache in {directory}.\n" if disk.clean() else f"No cache in {directory}.\n")
    return EXIT_CLEAN


def _check(args: argparse.Namespace, out: TextIO, err: TextIO, start_up: _StartUp) -> int:
    from pathlib import Path

    from lint.check.config import Overrides, find_config, load_settings
    from lint.check.engine import CheckOptions, check, freeze_loaded_objects
    from lint.check.stated import configured_sources
    from lint.models.errors import ConfigError
    from lint.models.report import Severity
    from lint.read.walk import DEFAULT_EXCLUDE, WalkOptions, expand
    from lint.report import HUMAN_FORMATS, check_reporter
    from lint.report.progress import progress_bar
    from lint.runs.discovery import RankRegexError, compile_rank_regex

    paths = args.paths or ["."]
    output_format = args.output_format or _default_output_format()
    config_path = args.config or find_config(paths)
    if args.config is not None and not os.path.lexists(args.config):
        raise ConfigError(f"{args.config}: no such configuration file")
    settings = load_settings(config_path, Overrides(args.select, args.extend_select, args.ignore, args.consumer))
    max_findings = args.max_findings if args.max_findings is not None else settings.max_findings
    if max_findings is not None and max_findings < 0:
        raise ConfigError("--max-findings must be 0 or more")
    try:
        rank_regex = compile_rank_regex(args.rank_regex)
    except RankRegexError as error:
        raise ConfigError(str(error)) from None
    stated = {d: getattr(args, d) for d in ("tp", "pp", "dp", "ep") if getattr(args, d) is not None}
    if any(value < 1 for value in stated.values()):
        raise ConfigError("--tp, --pp, --dp and --ep must be 1 or more")
    root = config_path.resolve().parent if config_path else Path.cwd()
    layout = configured_sources(stated, settings.runs, root)
    exclude = args.exclude if args.exclude is not None else settings.exclude
    walk = WalkOptions(
        exclude=tuple(exclude) if exclude is not None else DEFAULT_EXCLUDE,
        extend_exclude=(*settings.extend_exclude, *args.extend_exclude),
        respect_gitignore=settings.respect_gitignore and not args.no_respect_gitignore,
        root=root,
    )
    options = CheckOptions(
        trace_format=args.trace_format,
        selection=settings.selection,
        backend=_backend(args),
        rank_regex=rank_regex,
        layout=layout,
        use_cache=not args.no_cache,
        walk=walk,
    )
    if args.comm_group is not None:  # a FIFO or a device is refused here, never waited for
        from lint.models.errors import InputError
        from lint.store.files import open_regular

        try:
            open_regular(args.comm_group, f"--comm-group {args.comm_group}").close()
        except InputError as error:
            raise ConfigError(str(error)) from None
    layout.comm_group = args.comm_group
    if max_findings is not None:
        options.max_findings = max_findings
    fail_on = Severity(args.fail_on or settings.fail_on or Severity.ERROR)
    if args.show_settings:
        _show_settings(settings, options, fail_on, paths, out)
        return EXIT_CLEAN
    if args.show_files:
        from lint.report.text import NOT_FOLLOWED_NOTE

        walked = expand(paths, walk)
        out.writelines(f"{name}\n" for name in sorted(source.display for source in walked.sources))
        err.writelines(f"{name}: {NOT_FOLLOWED_NOTE}\n" for name in walked.not_followed)
        err.writelines(f"tlint: error: {problem}\n" for problem in walked.errors)
        return EXIT_ERROR if walked.errors else EXIT_CLEAN

    shown_per_rule = options.max_findings
    if args.write_baseline or args.baseline:
        # A baseline records and matches every finding: those past --max-findings are left out after it has.
        options.max_findings = 0
    freeze_loaded_objects()  # what start-up built lives until exit: frozen before collection resumes
    start_up.done()
    with progress_bar(err, enabled=output_format in HUMAN_FORMATS and not args.quiet) as progress:
        report = check(paths, options, progress)

    if args.write_baseline or args.baseline:
        from lint.check import baseline
    if args.write_baseline:
        count = baseline.write(args.write_baseline, report.findings)
        err.write(f"Wrote {count} findings to the baseline {args.write_baseline}.\n")
    if args.baseline:
        kept, suppressed, stale = baseline.apply(args.baseline, report.findings)
        report.findings = kept
        report.summary.baseline_suppressed, report.summary.baseline_stale = suppressed, stale
        report.count_severities()
    if args.write_baseline or args.baseline:
        report.limit_findings(shown_per_rule)
    if args.statistics:
        report.compute_statistics()

    report.fail_on = fail_on
    report.verbose = args.verbose
    if output_format in HUMAN_FORMATS and args.output_file is None:  # the others are no text for a terminal
        from lint.report.text import use_color

        report.color = use_color(args.color, out)
    notes = io.StringIO() if args.quiet else err  # --quiet: the findings, and errors that stop the check
    _write_report(args.output_file, out, lambda written: check_reporter(output_format)(report, written, notes))
    if not report.summary.checked and not report.summary.input_errors and not args.quiet:
        # As ruff does ("No Python files found under the given path(s)"): a warning, and exit 0.
        from lint.report.text import SEVERITY_STYLES, paint, plural, use_color

        passed = f" ({plural(len(report.summary.skipped), 'file')} of no known format)" if report.summary.skipped else ""
        err.write(f"{paint('warning:', SEVERITY_STYLES['warning'], use_color(args.color, err))} No trace, log or workload files found{passed}.\n")
    if report.summary.input_errors:
        if args.quiet:
            err.writelines(f"tlint: error: {error}\n" for error in report.summary.input_errors)
        return EXIT_ERROR
    if args.exit_zero:
        return EXIT_CLEAN
    return EXIT_FINDINGS if any(map(report.fails, report.findings)) else EXIT_CLEAN


def _write_report(output_file: Path | None, out: TextIO, write: Callable[[TextIO], object]) -> None:
    """``write`` the report to standard output, or to ``-o FILE``."""
    from lint.models.errors import ConfigError

    if output_file is None:
        write(out)
        return
    try:
        with output_file.open("w", encoding="utf-8") as written:
            write(written)
    except OSError as error:
        raise ConfigError(f"{output_file}: cannot write: {error.strerror or error}") from None


def _show_settings(settings: Settings, options: CheckOptions, fail_on: Severity, paths: list[str], out: TextIO) -> None:
    """What a check of ``paths`` would use, one setting a line, the way ``ruff check --show-settings`` shows it."""
    from lint.rule import catalog

    selection = options.selection
    lines = [
        f"configuration: {settings.source}",
        f"paths: {', '.join(paths)}",
        f"exclude: {', '.join(options.walk.exclude) or '(none)'}",
        f"extend-exclude: {', '.join(options.walk.extend_exclude) or '(none)'}",
        f"respect-gitignore: {str(options.walk.respect_gitignore).lower()}",
        f"fail-on: {fail_on.value}",
        f"max-findings: {options.max_findings}",
        f"trace-format: {options.trace_format or 'detected per file'}",
        f"jobs: {options.backend.jobs}",
        f"dask-scheduler: {options.backend.dask_scheduler or '(none)'}",
        f"cache: {'on' if options.use_cache else 'off'}",
        f"layout: {', '.join(f'{d}={v}' for d, v in options.layout.command_line.items()) or 'from the traces'}",
        f"rules ({len(selection.severities)} enabled):",
    ]
    names = catalog()
    lines += [f"  {code} {names[code].name} ({severity.value})" for code, severity in sorted(selection.severities.items())]
    lines += [f"per-path-ignores: {pattern} -> {', '.join(sorted(codes))}" for pattern, codes in selection.per_path_ignores]
    named = selection.command_line_consumer or selection.consumer
    lines.append(f"consumer: {f'{named.name} ({named.where})' if named else 'inferred per file'}")
    lines += [f"per-path-consumer: {pattern} -> {choice.name}" for pattern, choice in selection.per_path_consumers]
    out.write("\n".join(lines) + "\n")


def _default_output_format() -> str:
    """Annotations where GitHub Actions shows them (it sets GITHUB_ACTIONS=true in every step), else concise."""
    return "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "concise"


def _backend(args: argparse.Namespace) -> Backend:
    """Where files are read: ``--jobs`` local processes (check's default: one per core), or a Dask cluster."""
    from lint.check.executor import Backend, default_jobs
    from lint.models.errors import ConfigError

    if args.jobs is not None and args.jobs < 1:
        raise ConfigError("--jobs must be 1 or more")
    cores = default_jobs()  # more processes than cores only cost memory and switching (and --jobs 100000 would fork them all)
    return Backend(jobs=min(args.jobs or cores, cores), dask_scheduler=args.dask_scheduler)


def _diff(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from lint.diff import DiffInputError, DiffOptions, SideOptions, diff_paths
    from lint.diff.compare import DEFAULT_THRESHOLD_PERCENT
    from lint.models.categories import CATEGORIES
    from lint.models.errors import ConfigError
    from lint.report import diff_reporter
    from lint.runs.discovery import RankRegexError, compile_rank_regex

    unknown = [name for name in args.fail_on if name not in CATEGORIES]
    if unknown or not args.fail_on:
        raise ConfigError(f"--fail-on takes {', '.join(CATEGORIES)}; not {', '.join(unknown) or 'nothing'}")
    threshold = DEFAULT_THRESHOLD_PERCENT if args.threshold is None else args.threshold  # the differ is imported only here
    if not 0 <= threshold < 1000:
        raise ConfigError("--threshold is a percentage from 0 to 1000")
    try:
        rank_regex = compile_rank_regex(args.rank_regex)
    except RankRegexError as error:
        raise ConfigError(str(error)) from None
    sides = SideOptions(trace_format=args.trace_format, rank_regex=rank_regex, backend=_backend(args), use_cache=not args.no_cache)
    options = DiffOptions(threshold=threshold / 100, fail_on=tuple(args.fail_on))
    try:
        report = diff_paths(args.a, args.b, sides, options)
    except DiffInputError as error:
        err.write(f"tlint: error: {error}\n")
        return EXIT_ERROR
    report.show_all = args.all
    _write_report(args.output_file, out, lambda written: diff_reporter(args.output_format)(report, written, err))
    return EXIT_FINDINGS if report.failing else EXIT_CLEAN
