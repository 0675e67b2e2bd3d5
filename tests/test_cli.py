"""The command line through ``main([...])``: output formats, exit codes, inputs, configuration."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from lint.cli import main

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SEED_TRACE = FIXTURES / "seeds" / "000_14848477538be528.txt"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def broken_trace(tmp_path: Path) -> Path:
    lines = SEED_TRACE.read_text(encoding="utf-8").splitlines()
    lines[2] = lines[2].replace("stage_id=3", "stage_id=x")
    path = tmp_path / "trace_rank7.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_clean_file_exits_0_with_a_summary_on_stderr() -> None:
    code, out, err = run("check", str(SEED_TRACE))
    assert (code, out) == (0, "")
    assert err.strip() == "Checked 1 file: no findings."


def test_finding_exits_1_in_concise_format(broken_trace: Path) -> None:
    code, out, err = run("check", str(broken_trace))
    assert code == 1
    assert out == f"{broken_trace}:3:30: TL001 [error] expected a non-negative integer, found 'x'\n"
    assert "1 error" in err


def test_json_output_is_one_document_with_the_documented_keys(broken_trace: Path, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("# not a trace\n", encoding="utf-8")
    code, out, _ = run("check", str(tmp_path), "--output-format", "json")
    document = json.loads(out)
    assert code == 1 and document["version"] == 1
    # megatron-trace names no consumers (lint/models/consumers.py): its files are judged for none
    assert document["files"] == [{"path": str(broken_trace), "format": "megatron-trace", "parsed": False, "consumer": None, "consumer_reason": None}]
    assert document["findings"] == [
        {
            "code": "TL001",
            "name": "invalid-syntax",
            "severity": "error",
            "path": str(broken_trace),
            "line": 3,
            "column": 30,
            "rank": 7,
            "message": "expected a non-negative integer, found 'x'",
        }
    ]
    assert document["summary"]["skipped"] == [str(tmp_path / "notes.txt")]
    assert document["summary"]["errors"] == 1 and document["summary"]["findings"] == 1


def test_full_output_shows_the_source_line_and_a_caret(broken_trace: Path) -> None:
    code, out, _ = run("check", str(broken_trace), "--output-format", "full")
    lines = out.splitlines()
    assert code == 1 and str(broken_trace) in lines[0]
    source = next(i for i, line in enumerate(lines) if line.lstrip().startswith("3 | "))
    caret_column = lines[source + 1].index("^")
    assert lines[source][caret_column] == "x"


def test_directory_walk_checks_every_file_and_skips_unknown_formats(tmp_path: Path) -> None:
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    (nested / "rank0.txt").write_text(SEED_TRACE.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "a" / "readme.txt").write_text("hello\n", encoding="utf-8")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text(SEED_TRACE.read_text(encoding="utf-8"), encoding="utf-8")
    code, _, err = run("check", str(tmp_path))
    assert code == 0
    # Quiet about what was passed over, as ruff is: a count, and the list on request.
    assert err == "Checked 1 file (1 of no known format skipped; --verbose lists them): no findings.\n"
    code, _, err = run("check", str(tmp_path), "--verbose")
    assert code == 0 and "Checked 1 file (1 of no known format skipped): no findings." in err
    assert f"{tmp_path / 'a' / 'readme.txt'}: skipped: of no known format" in err


def test_forced_format_checks_an_undetectable_file(tmp_path: Path) -> None:
    path = tmp_path / "odd.txt"
    path.write_text("hello\n", encoding="utf-8")
    code, out, _ = run("check", str(path), "--trace-format", "megatron-trace")
    assert code == 1 and "TL001 [error] expected one of 'rank:' or 'stage:', found 'hello'" in out


def test_missing_path_exits_2_and_still_checks_the_others(broken_trace: Path) -> None:
    code, out, err = run("check", "/no/such/trace.txt", str(broken_trace))
    assert code == 2
    assert "tlint: error: /no/such/trace.txt: no such file or directory" in err
    assert "TL001" in out


def test_unreadable_directory_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    real_scandir = os.scandir

    def scandir(path: str | os.PathLike[str]) -> Iterator[os.DirEntry[str]]:
        if Path(str(path)) == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    code, _, err = run("check", str(locked))
    assert code == 2 and f"{locked}: cannot read directory: Permission denied" in err


def test_usage_errors_exit_2() -> None:
    assert run()[0] == 2
    assert run("rule")[0] == 2  # (`check` with no path checks the current directory: tests/test_cli_everyday.py)
    assert run("check", "x", "--output-format", "yaml")[0] == 2
    assert run("check", str(SEED_TRACE), "--max-findings", "-1")[0] == 2


_WITH_RULES_FROM = """
import sys
from pathlib import Path
import lint.rule
lint.rule.rules_dir = lambda: Path(sys.argv[1])
from lint.cli import main
sys.exit(main(["check", sys.argv[2]]))
"""


@pytest.mark.parametrize(
    ("stale_name", "stale_text", "message"),
    [
        # what an older install of a renamed rule leaves behind: two modules with one code
        ("tl411_zero_header_number.py", None, "code TL411 (zero-parallel-size) is already defined by"),
        ("tl999_broken.py", "import no_such_module\n", "tl999_broken.py: cannot load this rule module: ModuleNotFoundError"),
        ("tl998_empty.py", "X = 1\n", "tl998_empty.py: a rule module defines exactly one rule, found 0"),
    ],
)
def test_a_stale_or_broken_rule_module_is_a_clear_error_not_a_traceback(tmp_path: Path, stale_name: str, stale_text: str | None, message: str) -> None:
    from lint.store.resources import rules_dir

    installed = tmp_path / "rules"
    shutil.copytree(rules_dir(), installed)
    stale = installed / stale_name
    if stale_text is None:
        shutil.copy(installed / "tl411_zero_parallel_size.py", stale)
    else:
        stale.write_text(stale_text, encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", _WITH_RULES_FROM, str(installed), str(SEED_TRACE)], capture_output=True, text=True, check=False)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("tlint: error: ") and message in done.stderr


def test_version() -> None:
    code, out, _ = run("--version")
    assert code == 0 and out.startswith("tlint ")


def test_binary_junk_and_empty_files_never_crash(tmp_path: Path) -> None:
    (tmp_path / "junk.bin").write_bytes(bytes(range(256)) * 10)
    (tmp_path / "empty.txt").write_bytes(b"")
    (tmp_path / "latin1.txt").write_bytes(SEED_TRACE.read_bytes().replace(b"None", b"N\xf6ne", 1))
    code, out, err = run("check", str(tmp_path))
    assert code == 1
    assert "TL003 [error] invalid UTF-8 byte 0xf6" in out
    assert "Traceback" not in out + err


def test_max_findings_caps_each_rule_per_file(tmp_path: Path) -> None:
    path = tmp_path / "trace.txt"
    path.write_text("rank:0:x(\n\n" * 5, encoding="utf-8")  # lines apart: five findings, not one run
    code, out, err = run("check", str(path), "--max-findings", "2")
    assert code == 1 and out.count("TL001") == 2 and "3 more findings not shown" in err
    assert run("check", str(path), "--max-findings", "0")[1].count("TL001") == 5


def test_a_run_of_lines_with_one_problem_is_one_finding_shown_or_not(tmp_path: Path) -> None:
    path = tmp_path / "trace.txt"
    path.write_text("rank:0:x(\n" * 3 + "\n" + "rank:0:y(\n" * 2, encoding="utf-8")
    code, out, err = run("check", str(path), "--max-findings", "0")
    assert code == 1 and out.count("TL001") == 2
    assert ":1:10: TL001 [error] expected one of 'comm_uid=' or 'stage_id=', found end of line (also on 2 more lines, to line 3)" in out
    code, out, err = run("check", str(path), "--max-findings", "1")
    assert out.count("TL001") == 1 and "1 more finding not shown" in err  # the second run, counted once


# -- selection and configuration ------------------------------------------------------------------


def test_ignore_by_code_name_and_family(broken_trace: Path) -> None:
    for key in ("TL001", "invalid-syntax", "TL0"):
        code, out, _ = run("check", str(broken_trace), "--ignore", key)
        assert (code, out) == (0, ""), key


def test_select_narrows_and_exact_code_beats_family(broken_trace: Path) -> None:
    assert run("check", str(broken_trace), "--select", "TL003")[0] == 0
    assert run("check", str(broken_trace), "--ignore", "TL0", "--extend-select", "TL001")[0] == 1


def test_unknown_code_on_the_command_line_is_a_usage_error(broken_trace: Path) -> None:
    code, _, err = run("check", str(broken_trace), "--ignore", "TL999")
    assert code == 2 and "unknown rule code or name 'TL999'" in err


def test_pyproject_is_found_by_walking_up(tmp_path: Path, broken_trace: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.tlint]\nignore = ["invalid-syntax"]\n', encoding="utf-8")
    assert run("check", str(broken_trace))[0] == 0


def test_tlint_toml_severity_and_fail_on(tmp_path: Path, broken_trace: Path) -> None:
    (tmp_path / "tlint.toml").write_text('severity = { TL001 = "warning" }\n', encoding="utf-8")
    code, out, _ = run("check", str(broken_trace), "--output-format", "json")
    assert code == 0 and json.loads(out)["findings"][0]["severity"] == "warning"
    assert run("check", str(broken_trace), "--fail-on", "warning")[0] == 1


def test_a_hidden_tlint_toml_is_read_and_comes_first_in_its_folder(tmp_path: Path, broken_trace: Path) -> None:
    (tmp_path / ".tlint.toml").write_text('severity = { TL001 = "warning" }\n', encoding="utf-8")
    (tmp_path / "tlint.toml").write_text('severity = { TL001 = "info" }\n', encoding="utf-8")
    code, out, _ = run("check", str(broken_trace), "--output-format", "json")
    assert code == 0 and json.loads(out)["findings"][0]["severity"] == "warning"


def test_per_path_ignores(tmp_path: Path, broken_trace: Path) -> None:
    (tmp_path / "tlint.toml").write_text('[per-path-ignores]\n"trace_*.txt" = ["TL001"]\n', encoding="utf-8")
    assert run("check", str(broken_trace))[0] == 0
    (tmp_path / "tlint.toml").write_text('[per-path-ignores]\n"other/*.txt" = ["TL001"]\n', encoding="utf-8")
    assert run("check", str(broken_trace))[0] == 1


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("selct = []\n", "tlint.toml:1: unknown key 'selct'"),
        ('ignore = ["TL998"]\n', "tlint.toml:1: key 'ignore': unknown rule code or name 'TL998'"),
        ("ignore = 3\n", "tlint.toml:1: key 'ignore': Input should be a valid list"),
        ('severity = { TL001 = "fatal" }\n', "tlint.toml:1: key 'severity.TL001'"),
        ("[rules.TL001]\nfoo = 1\n", "tlint.toml:2: unknown key 'rules.TL001.foo'"),
        ("max-findings = -2\n", "tlint.toml:1: key 'max-findings'"),
        ("[broken\n", "tlint.toml:1:8: not valid TOML"),
        pytest.param("select = " + "[" * 5000 + "\n", "not valid TOML: arrays or inline tables nested too deeply", id="nested"),
    ],
)
def test_configuration_errors_exit_2_naming_the_key(tmp_path: Path, broken_trace: Path, config: str, message: str) -> None:
    (tmp_path / "tlint.toml").write_text(config, encoding="utf-8")
    code, _, err = run("check", str(broken_trace))
    assert code == 2 and message in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ('[runs."*"]\ntp = "2"', "tlint.toml:2: key 'runs.*.tp': Input should be a valid integer (found '2')"),
        ('[runs."*"]\npp = 2.0', "tlint.toml:2: key 'runs.*.pp': Input should be a valid integer (found 2.0)"),
        ('[runs."*"]\ntp = true', "tlint.toml:2: key 'runs.*.tp': Input should be a valid integer (found True)"),
        ("max-findings = true", "tlint.toml:1: key 'max-findings': Input should be a valid integer (found True)"),
        ('max-findings = "7"', "tlint.toml:1: key 'max-findings': Input should be a valid integer (found '7')"),
        ('respect-gitignore = "off"', "tlint.toml:1: key 'respect-gitignore': Input should be a valid boolean (found 'off')"),
        ('[rules.TL103]\ntolerance_ms = "0.05"', "tlint.toml:2: key 'rules.TL103.tolerance_ms': Input should be a valid number (found '0.05')"),
        ('fail-on = "warnin"', "tlint.toml:1: key 'fail-on': Input should be 'error', 'warning' or 'info' (found 'warnin')"),
        (
            'severity = { op-overlp = "error" }',
            "tlint.toml:1: key 'severity.op-overlp': unknown rule code or name 'op-overlp'; `tlint rules` lists them; did you mean 'op-overlap'?",
        ),
    ],
)
def test_a_value_of_the_wrong_type_is_an_error_naming_file_line_and_key_never_converted(tmp_path: Path, broken_trace: Path, setting: str, message: str) -> None:
    (tmp_path / "tlint.toml").write_text(f"# tlint\n{setting}\n".removeprefix("# tlint\n"), encoding="utf-8")
    code, _, err = run("check", str(broken_trace))
    assert (code, err) == (2, f"tlint: error: {tmp_path / message}\n")


def test_right_types_are_taken_and_an_integer_is_a_float(tmp_path: Path, broken_trace: Path) -> None:
    (tmp_path / "tlint.toml").write_text(
        'fail-on = "warning"\nmax-findings = 7\nrespect-gitignore = false\n[rules.TL103]\ntolerance_ms = 1\n', encoding="utf-8"
    )
    assert run("check", str(broken_trace))[0] == 1


def test_a_discovered_pyproject_that_does_not_parse_is_an_error_not_dropped(tmp_path: Path, broken_trace: Path) -> None:
    # Dropped, its settings were lost with it: here `ignore` would make the check pass.
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n[tool.tlint]\nignore = ["TL001"\n', encoding="utf-8")
    code, _, err = run("check", str(broken_trace))
    assert (code, err) == (2, f"tlint: error: {tmp_path / 'pyproject.toml'}:4: not valid TOML: Unclosed array at the end of the file\n")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n[tool.tlint]\nignore = ["TL001"]\n', encoding="utf-8")
    assert run("check", str(broken_trace))[0] == 0


@pytest.mark.parametrize("tool", ["tool = 5", 'tool = "tlint"', "[tool]\ntlint = 3"])
def test_a_pyproject_whose_tool_is_no_table_of_tables_is_not_a_crash(tmp_path: Path, broken_trace: Path, tool: str) -> None:
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(tool + "\n", encoding="utf-8")
    code, _, err = run("check", str(broken_trace))
    assert (code, err.count("tlint: error")) == ((2, 1) if "tlint = 3" in tool else (1, 0))
    code, _, err = run("check", str(broken_trace), "--config", str(pyproject))
    assert (code, err.count("tlint: error")) == ((2, 1) if "tlint = 3" in tool else (1, 0))
    assert "Traceback" not in err


def test_explicit_config_overrides_discovery(tmp_path: Path, broken_trace: Path) -> None:
    (tmp_path / "tlint.toml").write_text('ignore = ["TL001"]\n', encoding="utf-8")
    other = tmp_path / "strict.toml"
    other.write_text('select = ["TL"]\n', encoding="utf-8")
    assert run("check", str(broken_trace))[0] == 0
    assert run("check", str(broken_trace), "--config", str(other))[0] == 1
    assert run("check", str(broken_trace), "--config", str(tmp_path / "missing.toml"))[0] == 2


# -- baseline and statistics ----------------------------------------------------------------------


def test_baseline_suppresses_known_findings_by_content_not_line(tmp_path: Path, broken_trace: Path) -> None:
    # Only syntax findings: the duplicated record below would also overlap in time.
    baseline = tmp_path / "baseline.json"
    assert run("check", str(broken_trace), "--select", "TL001", "--write-baseline", str(baseline))[0] == 1
    code, out, err = run("check", str(broken_trace), "--select", "TL001", "--baseline", str(baseline))
    assert (code, out) == (0, "") and "1 finding suppressed by the baseline, 0 baseline entries no longer matched" in err

    # A line inserted above moves the finding to line 4: still suppressed.
    lines = broken_trace.read_text(encoding="utf-8").splitlines()
    broken_trace.write_text("\n".join([lines[0], *lines]) + "\n", encoding="utf-8")
    assert run("check", str(broken_trace), "--select", "TL001", "--baseline", str(baseline))[0] == 0

    # A new problem is reported; a fixed one leaves a stale entry.
    lines = broken_trace.read_text(encoding="utf-8").splitlines()
    lines[3] = lines[3].replace("stage_id=x", "stage_id=3")
    lines[1] = lines[1].replace("batch_id=0", "batch_id=y")
    broken_trace.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, err = run("check", str(broken_trace), "--select", "TL001", "--baseline", str(baseline))
    assert code == 1 and out.count("TL001") == 1 and ":2:" in out
    assert "0 findings suppressed by the baseline, 1 baseline entry no longer matched" in err


def test_a_baseline_records_and_matches_the_findings_past_max_findings_too(tmp_path: Path) -> None:
    trace, baseline = tmp_path / "trace_rank7.txt", tmp_path / "baseline.json"
    lines = SEED_TRACE.read_text(encoding="utf-8").splitlines()
    # Every other line broken: lines one after another with one problem would be one finding.
    broken_lines = [line.replace("stage_id=3", "stage_id=x") if index % 2 == 0 else line for index, line in enumerate(lines)]
    trace.write_text("\n".join(broken_lines) + "\n", encoding="utf-8")
    broken = sum(line != original for line, original in zip(broken_lines, lines, strict=True))
    assert broken > 2
    code, _, err = run("check", str(trace), "--select", "TL001", "--max-findings", "1", "--write-baseline", str(baseline))
    assert code == 1 and f"Wrote {broken} findings to the baseline" in err
    # A broken record once more at the end, after a good one, past --max-findings: it alone is new, and it fails the check.
    good, bad = next((line, changed) for line, changed in zip(lines, broken_lines, strict=True) if line != changed)
    trace.write_text(trace.read_text(encoding="utf-8") + good + "\n" + bad + "\n", encoding="utf-8")
    code, out, err = run("check", str(trace), "--select", "TL001", "--max-findings", "1", "--baseline", str(baseline))
    assert (code, out.count("TL001"), f":{len(lines) + 2}:" in out) == (1, 1, True)
    assert f"{broken} findings suppressed by the baseline, 0 baseline entries no longer matched" in err


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"{}", "entries: Field required"),
        (b"[" * 100_000, "Invalid JSON: recursion limit exceeded at line 1 column"),
        (b"\xff", "Invalid JSON: expected value at line 1 column 1"),
    ],
    ids=["no-entries", "nested", "not-utf-8"],
)
def test_broken_baseline_file_exits_2(tmp_path: Path, broken_trace: Path, content: bytes, problem: str) -> None:
    baseline = tmp_path / "baseline.json"
    baseline.write_bytes(content)
    code, _, err = run("check", str(broken_trace), "--baseline", str(baseline))
    assert code == 2 and f"{baseline}: not a tlint baseline file: {problem}" in err


def test_statistics_counts_per_rule_most_frequent_first(tmp_path: Path) -> None:
    path = tmp_path / "trace.txt"
    path.write_bytes(b"rank:0:x(\n\n" * 3 + b"\xff\n")  # lines apart: three findings, not one run
    code, out, _ = run("check", str(path), "--statistics", "--trace-format", "megatron-trace")
    assert code == 1
    assert out.splitlines() == ["4  TL001  invalid-syntax  error", "1  TL003  invalid-encoding  error"]
    document = json.loads(run("check", str(path), "--statistics", "--output-format", "json", "--trace-format", "megatron-trace")[1])
    assert [(s["code"], s["count"]) for s in document["statistics"]] == [("TL001", 4), ("TL003", 1)]


# -- rule documentation ---------------------------------------------------------------------------


def test_rules_lists_every_rule_and_rule_prints_its_docs() -> None:
    code, out, _ = run("rules", "--output-format", "json")
    entries = json.loads(out)
    assert code == 0 and {"TL000", "TL001", "TL002", "TL003"} <= {e["code"] for e in entries}
    code, out, _ = run("rule", "column-count")
    assert code == 0 and out.startswith("TL002 (column-count)") and "## Why it matters" in out
    assert run("rule", "TL9999")[0] == 2


class _ClosedPipe(io.StringIO):
    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")


def test_a_reader_that_leaves_the_pipe_ends_the_check_quietly(broken_trace: Path) -> None:
    err = io.StringIO()
    assert main(["check", str(broken_trace)], stdout=_ClosedPipe(), stderr=err) == 2
    assert "Traceback" not in err.getvalue()
