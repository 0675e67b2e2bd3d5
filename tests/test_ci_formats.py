"""The CI output formats (sarif, github, junit), each read back with a parser of its own kind, on a report
with errors, warnings, findings on a run (no line), a skipped file and, separately, an unreadable path."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from lint.cli import main
from lint.models.report import Finding, Severity
from lint.report.github import command
from lint.rule import iter_rules
from tests.readers import read_github, read_json_report, read_junit, read_sarif, read_workflow_command

ROOT = Path(__file__).resolve().parent
SEED_TRACE = ROOT / "fixtures" / "seeds" / "000_14848477538be528.txt"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run of two rank files (so the run rules report missing ranks, on no line) and a note."""
    directory = tmp_path_factory.mktemp("ci") / "traces"
    directory.mkdir()
    lines = SEED_TRACE.read_text(encoding="utf-8").splitlines()
    (directory / "trace_rank6.txt").write_text("\n".join(line.replace("rank:7:", "rank:6:") for line in lines) + "\n", encoding="utf-8")
    lines[2] = lines[2].replace("stage_id=3", "stage_id=x")  # TL001, an error
    lines[3] = lines[3].replace("loss_func(", "loss_fnuc(")  # TL113, a warning
    (directory / "trace_rank7.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (directory / "notes.txt").write_text("# not a trace\n", encoding="utf-8")
    return directory


@pytest.fixture(scope="module")
def findings(checked: Path) -> list[dict[str, Any]]:
    code, out, _ = run("check", str(checked), "--output-format", "json")
    document = read_json_report(out)
    assert code == 1 and document["summary"]["skipped"] == [str(checked / "notes.txt")]
    found: list[dict[str, Any]] = document["findings"]
    assert {"error", "warning"} == {f["severity"] for f in found}
    assert any(f["line"] is None and f["path"] == str(checked / "trace_rank*") for f in found)
    return found


# -- sarif ----------------------------------------------------------------------------------------


def test_sarif_is_valid_sarif_2_1_0_with_every_rule_and_every_finding(checked: Path, findings: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(checked.parent)
    code, out, err = run("check", "traces", "--output-format", "sarif")
    log = read_sarif(out)
    assert code == 1 and "Checked 2 files (1 of no known format skipped; --verbose lists them)" in err

    (sarif_run,) = log["runs"]
    driver = sarif_run["tool"]["driver"]
    assert driver["name"] == "tlint" and driver["version"] and driver["informationUri"].startswith("https://")
    rules = driver["rules"]
    assert [rule["id"] for rule in rules] == [rule.code for rule in iter_rules()]
    tl113 = next(rule for rule in rules if rule["id"] == "TL113")
    assert tl113["name"] == "unknown-op" and tl113["defaultConfiguration"]["level"] == "warning"
    assert tl113["help"]["markdown"] and tl113["fullDescription"]["text"].startswith(tl113["shortDescription"]["text"])

    results = sarif_run["results"]
    assert len(results) == len(findings)
    for result, finding in zip(results, findings, strict=True):
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"] == finding["code"]
        assert result["level"] == {"error": "error", "warning": "warning"}[finding["severity"]]
        (location,) = result["locations"]
        physical = location["physicalLocation"]
        assert physical["artifactLocation"]["uri"] == Path(finding["path"]).relative_to(checked.parent).as_posix()
        if finding["line"] is None:
            assert "region" not in physical
        else:
            assert physical["region"] == {"startLine": finding["line"], "startColumn": finding["column"]}
        assert re.fullmatch(r"[0-9a-f]{20}#[0-9]+", result["partialFingerprints"]["tlintBaseline/v1"])
    assert len({json.dumps(r["partialFingerprints"]) + r["ruleId"] for r in results}) == len(results)
    (invocation,) = sarif_run["invocations"]
    assert invocation["executionSuccessful"] is True
    assert [n["level"] for n in invocation["toolExecutionNotifications"]] == ["note"]


def test_sarif_marks_an_unreadable_path_as_a_failed_execution(checked: Path) -> None:
    code, out, _ = run("check", str(checked / "trace_rank7.txt"), str(checked / "missing.txt"), "--output-format", "sarif")
    log = read_sarif(out)
    (invocation,) = log["runs"][0]["invocations"]
    assert code == 2 and invocation["executionSuccessful"] is False
    assert "missing.txt: no such file or directory" in invocation["toolExecutionNotifications"][0]["message"]["text"]
    assert log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].startswith("file:///")


# -- github ---------------------------------------------------------------------------------------


def test_github_writes_one_annotation_per_finding(checked: Path, findings: list[dict[str, Any]]) -> None:
    code, out, err = run("check", str(checked), "--output-format", "github")
    commands = read_github(out)
    assert code == 1 and len(commands) == len(findings)
    assert err.splitlines()[-1].startswith("Checked 2 files")
    for (name, properties, data), finding in zip(commands, findings, strict=True):
        assert name == {"error": "error", "warning": "warning"}[finding["severity"]]
        assert properties["file"] == finding["path"]
        assert properties["title"] == f"{finding['code']} {finding['name']}"
        assert data.startswith(finding["message"])
        if finding["line"] is None:
            assert "line" not in properties and "col" not in properties
            assert data.endswith(f"[rank {finding['rank']}]")
        else:
            assert (properties["line"], properties["col"]) == (str(finding["line"]), str(finding["column"]))


def test_github_escapes_what_would_end_a_property_or_the_command() -> None:
    finding = Finding(
        code="TL001",
        name="invalid-syntax",
        severity=Severity.INFO,
        path="a,b:c%d\x1b[2J.txt",
        line=3,
        column=4,
        rank=None,
        message="100% wrong: a, b\r\nnext line ::error:: grad\x1b[31m",
    )
    line = command(finding)
    assert "\n" not in line and "\r" not in line and "\x1b" not in line
    # Control characters from the file are shown as escapes, then the rest is escaped as GitHub documents.
    assert read_workflow_command(line) == (
        "notice",
        {"file": "a,b:c%d\\x1b[2J.txt", "line": "3", "col": "4", "title": "TL001 invalid-syntax"},
        "100% wrong: a, b\\r\\nnext line ::error:: grad\\x1b[31m",
    )


def test_github_is_the_default_inside_github_actions(checked: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    assert run("check", str(checked))[1].startswith("::")
    assert not run("check", str(checked), "--output-format", "concise")[1].startswith("::")


# -- junit ----------------------------------------------------------------------------------------


def test_junit_has_a_test_case_per_file_and_one_failure_per_failing_file(checked: Path, findings: list[dict[str, Any]]) -> None:
    code, out, _ = run("check", str(checked), "--output-format", "junit")
    root = read_junit(out)
    (suite,) = root.findall("testsuite")
    assert code == 1
    cases = {(case.get("classname"), case.get("name")): case for case in suite.findall("testcase")}
    assert set(cases) == {
        ("megatron-trace", str(checked / "trace_rank6.txt")),
        ("megatron-trace", str(checked / "trace_rank7.txt")),
        ("run", str(checked / "trace_rank*")),
        ("unrecognised", str(checked / "notes.txt")),
    }
    assert cases["unrecognised", str(checked / "notes.txt")].find("skipped") is not None

    errors = [f for f in findings if f["severity"] == "error"]
    failing_files = {f["path"] for f in errors}
    failures = suite.findall("testcase/failure")
    assert len(failures) == len(failing_files) == int(suite.get("failures", "-1")) == int(root.get("failures", "-1"))
    assert (suite.get("tests"), suite.get("skipped"), suite.get("errors")) == ("4", "1", "0")
    for case in suite.findall("testcase"):
        assert len(case.findall("failure")) <= 1  # a test fails once, whatever the number of its findings
    listed = "\n".join(failure.text or "" for failure in failures)
    for error in errors:
        assert f"{error['code']} {error['name']} (error): {error['message']}" in listed
    for failure in failures:
        assert failure.get("type") in {f["code"] for f in errors} and "finding" in (failure.get("message") or "")
    # The warning is below --fail-on: listed, not failed.  With --fail-on warning it fails too.
    rank7 = cases["megatron-trace", str(checked / "trace_rank7.txt")]
    assert "TL113" in (rank7.findtext("system-out") or "")
    stricter = read_junit(run("check", str(checked), "--output-format", "junit", "--fail-on", "warning")[1])
    assert len(stricter.findall("testsuite/testcase/failure")) == len({f["path"] for f in findings})


def test_junit_reports_an_unreadable_path_as_an_error_and_stays_well_formed(tmp_path: Path) -> None:
    trace = tmp_path / "trace\x1b.txt"  # a control character XML 1.0 cannot carry
    trace.write_text("rank:0:x(\n", encoding="utf-8")
    code, out, _ = run("check", str(trace), str(tmp_path / "missing.txt"), "--output-format", "junit")
    suite = read_junit(out).find("testsuite")
    assert code == 2 and suite is not None and suite.get("errors") == "1"
    error = suite.find("testcase/error")
    assert error is not None and "missing.txt: no such file or directory" in (error.get("message") or "")
    assert suite.find("testcase/failure") is not None
