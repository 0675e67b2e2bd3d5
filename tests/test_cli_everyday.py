"""Everyday use the way ruff users expect it, each case through the real command (``python -m lint`` in a
subprocess, in the directory a user would be in)."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from lint import __version__
from lint.rule import registry
from tests.readers import read_junit
from tests.shared_corpus import CORPUS
from tests.synth.megatron_run import RunSpec, write_run

ROOT = Path(__file__).resolve().parents[1]
SEED_TRACE = ROOT / "tests" / "fixtures" / "seeds" / "000_14848477538be528.txt"
EXAMPLE_WORKLOAD = ROOT / "examples" / "simai-workload.txt"
REAL_MEGATRON = CORPUS / "real" / "megatron-trace"


def tlint(*argv: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    environment.pop("GITHUB_ACTIONS", None)
    return subprocess.run([sys.executable, "-m", "lint", *argv], cwd=cwd, env=environment, capture_output=True, text=True, timeout=120, check=False)


def broken(path: Path) -> Path:
    """A copy of the seed trace with a syntax error at line 3, column 30."""
    lines = SEED_TRACE.read_text(encoding="utf-8").splitlines()
    lines[2] = lines[2].replace("stage_id=3", "stage_id=x")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def clean(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(SEED_TRACE.read_text(encoding="utf-8"), encoding="utf-8")
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with a clean trace, a broken one that .gitignore excludes, and one under a build/ folder."""
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("ignored/\n*.tmp.txt\n", encoding="utf-8")
    clean(tmp_path / "traces" / "good_rank7.txt")
    broken(tmp_path / "ignored" / "bad_rank7.txt")
    broken(tmp_path / "traces" / "scratch.tmp.txt")
    return tmp_path


# -- paths, exclusion, .gitignore ------------------------------------------------------------------


def test_bare_check_checks_the_current_directory_and_skips_what_gitignore_excludes(repo: Path) -> None:
    result = tlint("check", cwd=repo)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stderr.strip() == "Checked 1 file: no findings."
    shown = tlint("check", "--show-files", cwd=repo)
    assert shown.stdout.splitlines() == ["traces/good_rank7.txt"]


def test_gitignore_of_a_parent_and_a_negation_in_a_deeper_one_apply(repo: Path) -> None:
    (repo / "traces" / ".gitignore").write_text("!scratch.tmp.txt\n", encoding="utf-8")
    result = tlint("check", "traces", cwd=repo)
    assert result.returncode == 1
    assert result.stdout == "traces/scratch.tmp.txt:3:30: TL001 [error] expected a non-negative integer, found 'x'\n"


def test_a_directory_named_on_the_command_line_is_checked_even_where_gitignore_excludes_it(repo: Path) -> None:
    # Trace folders are often git-ignored: naming one must check it, not pass with "Checked 0 files".
    result = tlint("check", "ignored", cwd=repo)
    assert result.returncode == 1
    assert result.stdout == "ignored/bad_rank7.txt:3:30: TL001 [error] expected a non-negative integer, found 'x'\n"
    assert tlint("check", "--show-files", "ignored", "--exclude", "ignored/", cwd=repo).stdout.splitlines() == ["ignored/bad_rank7.txt"]


def test_no_respect_gitignore_walks_everything(repo: Path) -> None:
    shown = tlint("check", "--show-files", "--no-respect-gitignore", cwd=repo)
    assert shown.stdout.splitlines() == ["ignored/bad_rank7.txt", "traces/good_rank7.txt", "traces/scratch.tmp.txt"]


def test_exclude_takes_gitignore_patterns_and_extend_exclude_adds_to_the_defaults(tmp_path: Path) -> None:
    clean(tmp_path / "runs" / "a" / "trace_rank7.txt")
    broken(tmp_path / "runs" / "old" / "trace_rank7.txt")
    clean(tmp_path / "node_modules" / "trace_rank7.txt")
    listed = tlint("check", "--show-files", "--extend-exclude", "old/", cwd=tmp_path).stdout.splitlines()
    assert listed == ["runs/a/trace_rank7.txt"]
    # --exclude replaces the defaults: node_modules/ is walked again, runs/old/ is left out.
    listed = tlint("check", "--show-files", "--exclude", "/runs/old", cwd=tmp_path).stdout.splitlines()
    assert listed == ["node_modules/trace_rank7.txt", "runs/a/trace_rank7.txt"]
    assert tlint("check", "--extend-exclude", "old/", cwd=tmp_path).returncode == 0
    # A file named on the command line is read whatever the patterns say.
    named = tlint("check", "runs/old/trace_rank7.txt", "--extend-exclude", "old/", cwd=tmp_path)
    assert named.returncode == 1 and "TL001" in named.stdout


def test_exclude_patterns_from_the_configuration(tmp_path: Path) -> None:
    (tmp_path / "tlint.toml").write_text('extend-exclude = ["old/"]\n', encoding="utf-8")
    clean(tmp_path / "runs" / "trace_rank7.txt")
    broken(tmp_path / "runs" / "old" / "trace_rank7.txt")
    result = tlint("check", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, "")
    assert tlint("check", "--show-files", cwd=tmp_path).stdout.splitlines() == ["runs/trace_rank7.txt"]  # configuration is no trace


def test_a_gitignore_line_that_is_no_pattern_matches_nothing_as_in_git(repo: Path) -> None:
    (repo / "traces" / ".gitignore").write_text("!\n*.tmp.txt\\\n", encoding="utf-8")  # a lone `!`, a trailing `\`
    shown = tlint("check", "--show-files", cwd=repo)
    assert (shown.returncode, shown.stdout.splitlines(), shown.stderr) == (0, ["traces/good_rank7.txt"], "")


@pytest.mark.parametrize("option", ["--exclude", "--extend-exclude"])
def test_an_exclude_pattern_that_is_no_pattern_is_a_usage_error(repo: Path, option: str) -> None:
    result = tlint("check", option, "!", cwd=repo)
    assert (result.returncode, result.stderr) == (2, "tlint: error: exclude patterns: Invalid git pattern: '!'\n")


# -- output and exit -------------------------------------------------------------------------------


def test_exit_zero_reports_findings_but_exits_0(tmp_path: Path) -> None:
    broken(tmp_path / "trace_rank7.txt")
    result = tlint("check", "--exit-zero", cwd=tmp_path)
    assert result.returncode == 0
    assert result.stdout == "trace_rank7.txt:3:30: TL001 [error] expected a non-negative integer, found 'x'\n"
    missing = tlint("check", "--exit-zero", "missing.txt", cwd=tmp_path)
    assert missing.returncode == 2  # the check could not run: not a finding to wave through


def test_quiet_prints_the_findings_and_nothing_else(tmp_path: Path) -> None:
    broken(tmp_path / "trace_rank7.txt")
    result = tlint("check", "-q", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (1, "")
    assert result.stdout == "trace_rank7.txt:3:30: TL001 [error] expected a non-negative integer, found 'x'\n"
    assert tlint("check", "--quiet", "missing.txt", cwd=tmp_path).stderr == "tlint: error: missing.txt: no such file or directory\n"


def test_output_file_receives_the_report(tmp_path: Path) -> None:
    broken(tmp_path / "trace_rank7.txt")
    result = tlint("check", "-o", "report.json", "--output-format", "json", "trace_rank7.txt", cwd=tmp_path)
    assert result.returncode == 1 and result.stdout == ""
    document = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert [f["code"] for f in document["findings"]] == ["TL001"]
    unwritable = tlint("check", "--output-file", "no/such/dir/report.txt", cwd=tmp_path)
    assert unwritable.returncode == 2 and "no/such/dir/report.txt: cannot write" in unwritable.stderr


def test_show_settings_prints_the_configuration_in_effect(tmp_path: Path) -> None:
    (tmp_path / "tlint.toml").write_text('ignore = ["TL103"]\nfail-on = "warning"\n', encoding="utf-8")
    result = tlint("check", "--show-settings", "--extend-exclude", "old/", cwd=tmp_path)
    lines = result.stdout.splitlines()
    assert result.returncode == 0
    assert lines[0] == f"configuration: {tmp_path / 'tlint.toml'}" and "fail-on: warning" in lines and "extend-exclude: old/" in lines
    assert "  TL001 invalid-syntax (error)" in lines and not any(line.startswith("  TL103 ") for line in lines)


def test_rule_all_prints_every_rule_and_version_has_a_short_flag(tmp_path: Path) -> None:
    documented = tlint("rule", "--all", cwd=tmp_path).stdout
    for code, rule in registry().items():
        assert f"{code} ({rule.name})" in documented
    assert tlint("-V", cwd=tmp_path).stdout == f"tlint {__version__}\n"
    assert tlint("rule", cwd=tmp_path).returncode == 2


def test_command_line_select_overrides_an_ignore_in_the_configuration(tmp_path: Path) -> None:
    (tmp_path / "tlint.toml").write_text('ignore = ["TL001"]\n', encoding="utf-8")
    broken(tmp_path / "trace_rank7.txt")
    assert tlint("check", cwd=tmp_path).returncode == 0
    for flags in (["--extend-select", "TL001"], ["--select", "TL0"]):
        result = tlint("check", *flags, cwd=tmp_path)
        assert result.returncode == 1 and "TL001" in result.stdout, flags
    assert tlint("check", "--extend-select", "TL001", "--ignore", "TL001", cwd=tmp_path).returncode == 0


def test_junit_counts_files_as_tests_not_findings(tmp_path: Path) -> None:
    path = broken(tmp_path / "trace_rank7.txt")
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[5] = lines[5].replace("stage_id=3", "stage_id=y")  # a second finding in the same file (not the next line: one run)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    clean(tmp_path / "clean" / "trace_rank7.txt")
    suite = read_junit(tlint("check", "--output-format", "junit", cwd=tmp_path).stdout).find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures")) == ("2", "1")
    (failure,) = suite.findall("testcase/failure")
    assert failure.get("message") == "2 findings: TL001"
    assert failure.text is not None and len(failure.text.splitlines()) == 2


# -- runs ------------------------------------------------------------------------------------------


def test_a_syntax_error_is_reported_once_not_again_as_run_findings(tmp_path: Path) -> None:
    spec = RunSpec(tp=1, pp=2, dp=2, micro_batches=2, layers=2, hidden=64, seq=16, vocab=128)
    paths = write_run(spec, tmp_path / "run")
    assert tlint("check", "run", cwd=tmp_path).returncode == 0
    rank1 = paths[1]
    lines = rank1.read_text(encoding="utf-8").splitlines()
    number = next(i for i, line in enumerate(lines) if "backward_step(" in line)
    lines[number] = lines[number].replace("backward_step(stage_id=0,", "backward_step(stage_id=0,,", 1)
    rank1.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = tlint("check", "run", cwd=tmp_path)
    codes = [line.split(": ")[1].split()[0] for line in result.stdout.splitlines()]
    assert codes == ["TL001"], result.stdout
    assert "run findings about stage 0 not shown: they follow from the syntax errors in the file of rank 1" in result.stderr
    full = tlint("check", "run", "--output-format", "full", cwd=tmp_path)
    assert "run findings about stage 0 not shown" in full.stderr and "TL507" not in full.stdout


def test_stated_sizes_the_world_cannot_hold_exit_2(tmp_path: Path) -> None:
    spec = RunSpec(tp=2, pp=2, dp=1, micro_batches=2, layers=2, hidden=64, seq=16, vocab=128)
    write_run(spec, tmp_path / "run")
    assert tlint("check", "run", "--tp", "2", "--dp", "1", cwd=tmp_path).returncode == 0
    result = tlint("check", "run", "--tp", "5", "--dp", "3", cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == ""
    assert "--tp 5 --dp 3 do not fit the run" in result.stderr
    assert "need 5 × 3 = 15 ranks per pipeline stage, but the stage ids in its traces allow exactly 2 ranks per stage" in result.stderr
    assert tlint("check", "run", "--tp", "4", cwd=tmp_path).returncode == 2


@pytest.mark.skipif(not REAL_MEGATRON.is_dir(), reason="the shared corpus (../shared/corpus/real) is not beside the project")
def test_stated_sizes_are_checked_against_a_real_run() -> None:
    run = REAL_MEGATRON / "MegatronLM__realistic_trace__wd4_tp2_pp2_numl40_GPT2_20250320144110"
    if not run.is_dir():
        pytest.skip(f"{run} is not in the corpus")
    assert tlint("check", str(run), "--tp", "2", "--dp", "1", cwd=ROOT).returncode in (0, 1)
    assert tlint("check", str(run), "--tp", "5", "--dp", "3", cwd=ROOT).returncode == 2


# -- diff ------------------------------------------------------------------------------------------


def _terminal_output(argv: list[str], cwd: Path, columns: int, no_color: bool = True) -> str:
    """What ``argv`` prints on a terminal ``columns`` wide (a pseudo-terminal)."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    environment = {key: value for key, value in os.environ.items() if key not in {"COLUMNS", "LINES", "GITHUB_ACTIONS", "NO_COLOR", "FORCE_COLOR"}}
    environment |= {"PYTHONPATH": str(ROOT), "TERM": "xterm"} | ({"NO_COLOR": "1"} if no_color else {})
    process = subprocess.Popen([sys.executable, "-m", "lint", *argv], cwd=cwd, env=environment, stdout=follower, stderr=follower, stdin=follower)
    os.close(follower)
    chunks = []
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the other side closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    process.wait(timeout=60)
    os.close(leader)
    return b"".join(chunks).decode("utf-8", "replace")


def test_diff_full_fits_a_narrow_terminal(tmp_path: Path) -> None:
    changed = tmp_path / "b.txt"
    text = EXAMPLE_WORKLOAD.read_text(encoding="utf-8")
    changed.write_text(text.replace("14600000", "29200000", 1), encoding="utf-8")
    output = _terminal_output(["diff", str(EXAMPLE_WORKLOAD), str(changed), "--output-format", "full"], tmp_path, 60)
    assert "tlint diff" in output and "significant change" in output
    widest = max(len(re.sub(r"\x1b\[[0-9;]*m", "", line).rstrip("\r")) for line in output.splitlines())
    assert widest <= 60, output


# -- the everyday command line ---------------------------------------------------------------------


def test_the_concise_format_shows_each_findings_severity(tmp_path: Path) -> None:
    broken(tmp_path / "trace_rank7.txt")
    (tmp_path / "workload.txt").write_text(EXAMPLE_WORKLOAD.read_text(encoding="utf-8"), encoding="utf-8")
    lines = tlint("check", "--no-cache", cwd=tmp_path).stdout.splitlines()
    assert "trace_rank7.txt:3:30: TL001 [error] expected a non-negative integer, found 'x'" in lines
    assert any(re.fullmatch(r"workload\.txt:\d+:\d+: TL4\d\d \[info\] .+", line) for line in lines), lines


SEVERITY_COLOURS = {"error": "\x1b[1;31m", "warning": "\x1b[1;33m", "info": "\x1b[1;36m"}


@pytest.mark.parametrize(
    ("argv", "env", "coloured"),
    [
        ([], {}, False),  # a pipe
        (["--color", "always"], {}, True),
        (["--color", "always"], {"NO_COLOR": "1"}, True),  # the flag is the user's last word
        (["--color", "never"], {"FORCE_COLOR": "1"}, False),
        ([], {"FORCE_COLOR": "1"}, True),
        ([], {"NO_COLOR": "1", "FORCE_COLOR": "1"}, False),
    ],
)
def test_color_by_severity_as_asked(tmp_path: Path, argv: list[str], env: dict[str, str], coloured: bool) -> None:
    broken(tmp_path / "trace_rank7.txt")
    (tmp_path / "workload.txt").write_text(EXAMPLE_WORKLOAD.read_text(encoding="utf-8"), encoding="utf-8")
    environment = {key: value for key, value in os.environ.items() if key not in ("NO_COLOR", "FORCE_COLOR")}
    result = subprocess.run(
        [sys.executable, "-m", "lint", "check", "--no-cache", *argv],
        cwd=tmp_path,
        env={**environment, "PYTHONPATH": str(ROOT), **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 1 and ("\x1b[" in result.stdout) == coloured
    if coloured:
        assert f"{SEVERITY_COLOURS['error']}TL001 [error]\x1b[0m" in result.stdout
        assert f"{SEVERITY_COLOURS['info']}TL409 [info]\x1b[0m" in result.stdout
        plain = re.sub(r"\x1b\[[0-9;]*m", "", result.stdout)
        assert "trace_rank7.txt:3:30: TL001 [error] expected a non-negative integer, found 'x'" in plain


@pytest.mark.parametrize(("no_color", "coloured"), [(False, True), (True, False)])
def test_a_terminal_gets_colour_unless_no_color_is_set(tmp_path: Path, no_color: bool, coloured: bool) -> None:
    broken(tmp_path / "trace_rank7.txt")
    output = _terminal_output(["check", "--no-cache"], tmp_path, 200, no_color=no_color)
    assert "TL001" in output and (SEVERITY_COLOURS["error"] in output) == coloured


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        (["chek", "."], "invalid choice: 'chek' (choose from 'check', 'diff', 'rules', 'rule', 'cache'); did you mean 'check'?"),
        (["check", "--exitzero", "."], "unrecognized arguments: --exitzero; did you mean '--exit-zero'?"),
        (["check", "--output-format", "jsno", "."], "did you mean 'json'?"),
        (["diff", "a", "b", "--treshold", "3"], "unrecognized arguments: --treshold 3; did you mean '--threshold'?"),
        (["check", "--select", "TL1033", "."], "unknown rule code or name 'TL1033'; `tlint rules` lists them; did you mean 'TL103'?"),
        (["check", "--ignore", "op-overlp", "."], "did you mean 'op-overlap'?"),
        (["rule", "op-overlp"], "'op-overlp' is not a rule code or name; `tlint rules` lists them; did you mean 'op-overlap'?"),
    ],
)
def test_a_mistyped_flag_subcommand_or_rule_gets_a_did_you_mean(tmp_path: Path, argv: list[str], hint: str) -> None:
    result = tlint(*argv, cwd=tmp_path)
    assert result.returncode == 2 and hint in result.stderr and result.stderr.startswith("tlint: error: ")


def test_a_mistyped_flag_with_nothing_close_gets_no_guess(tmp_path: Path) -> None:
    result = tlint("check", "--frobnicate", ".", cwd=tmp_path)
    assert result.returncode == 2 and result.stderr == "tlint: error: unrecognized arguments: --frobnicate\n"


def test_a_check_that_finds_no_file_warns_and_exits_0_as_ruff_does(tmp_path: Path) -> None:
    empty = tlint("check", cwd=tmp_path)
    assert (empty.returncode, empty.stdout) == (0, "")
    assert empty.stderr == "Checked 0 files: no findings.\nwarning: No trace, log or workload files found.\n"
    (tmp_path / "notes.txt").write_text("nothing to see\n", encoding="utf-8")
    (tmp_path / "README.md").write_text("# docs\n", encoding="utf-8")
    passed = tlint("check", cwd=tmp_path)
    assert passed.returncode == 0 and passed.stderr.endswith("warning: No trace, log or workload files found (1 file of no known format).\n")
    assert tlint("check", "-q", cwd=tmp_path).stderr == ""


def test_documentation_that_quotes_records_is_never_read_as_a_trace() -> None:
    # docs/formats/optprime-log.md quotes log lines: read as a log, it gave five errors.
    result = tlint("check", "docs", "--no-cache", cwd=ROOT)
    assert (result.returncode, result.stdout) == (0, "")
    assert "warning: No trace, log or workload files found." in result.stderr


@pytest.mark.parametrize("output_format", ["concise", "full", "json", "github", "sarif"])
def test_a_semantic_finding_points_at_the_field_it_is_about(tmp_path: Path, output_format: str) -> None:
    lines = SEED_TRACE.read_text(encoding="utf-8").splitlines()
    lines[1] = lines[1].replace("duration=7.5", "duration=-7.5")  # TL105 on line 2: the duration is negative
    (tmp_path / "trace_rank7.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    column = lines[1].index("duration=-7.5") + len("duration=") + 1
    result = tlint("check", "trace_rank7.txt", "--no-cache", "--select", "TL105", "--output-format", output_format, cwd=tmp_path)
    assert result.returncode == 1
    shown = {
        "concise": lambda out: re.search(r"trace_rank7\.txt:2:(\d+): TL105", out),
        "json": lambda out: re.search(r'"column": (\d+)', out),
        "github": lambda out: re.search(r",col=(\d+),title=TL105", out),
        "sarif": lambda out: re.search(r'"startColumn": (\d+)', out),
        "full": lambda out: re.search(r"\n  2:(\d+)  TL105", out),
    }[output_format](result.stdout)
    assert shown is not None and int(shown.group(1)) == column, result.stdout
    if output_format == "full":  # the caret stands under the value
        rows = result.stdout.splitlines()
        source = next(index for index, row in enumerate(rows) if row.lstrip().startswith("2 | "))
        assert rows[source][rows[source + 1].index("^") :].startswith("-7.5,")
