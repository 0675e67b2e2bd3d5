"""Declarative pass/fail cases per rule (``tests/rules/<CODE>.toml``) and meta-tests of the rule set.

A case builds its input from ``text``, from ``bytes`` (Python escapes, for invalid encodings), from a
fixture ``base`` with ``edits`` (and a ``long_line``: a line replaced by ``length`` times "x"), from ``chakra``
traces (file name -> trace spec, tests/synth/chakra_trace.py; several make a run), or - for run rules - from a
generated run ``synth`` (a RunSpec), whose
rank files take ``edits`` and ``delete`` (by ``rank``), ``remove`` (ranks) and ``duplicate`` (a rank
copied under another name); ``config`` is a tlint.toml and ``args`` extra command-line arguments;
``consumer`` judges the files for that consumer (``--consumer``; see lint/models/consumers.py), and ``severities``
lists the severities of the findings, in the order of ``messages`` (required of every failing case that names a
consumer: the verdict is the consumer's).
``expect`` lists every finding that *all* rules produce: ``[line, "CODE"]`` (or ``[line, column, "CODE"]``) for one-file cases and
``[file name or "run", line or 0, "CODE"]`` for runs; ``messages`` lists the messages of those findings,
in order of line (required of every failing case), with ``<tmp>`` for the case's directory.  A failing case fires only its own rule and goes
silent when that rule is ignored; a passing case has no finding at all.  Each rule's docstring example
ends with ``-> message``: one of its failing cases gives that message (``...`` stands for any text).
"""

from __future__ import annotations

import codecs
import io
import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from lint.cli import main
from lint.rule import Scope, iter_rules

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "tests" / "rules"
FIXTURES = ROOT / "tests" / "fixtures"
OUTCOME_NOTE = "TL221"


def load_cases() -> list[tuple[str, dict[str, Any]]]:
    cases = []
    for path in sorted(CASES.glob("TL*.toml")):
        for case in tomllib.loads(path.read_text(encoding="utf-8"))["case"]:
            cases.append((path.stem, case))
    return cases


def _edit(lines: list[str], edit: dict[str, Any]) -> None:
    """Replace the first ``old`` of line ``line`` (of every line holding it when no line is given)."""
    indices = [edit["line"] - 1] if "line" in edit else [i for i, line in enumerate(lines) if edit["old"] in line]
    assert indices and all(edit["old"] in lines[i] for i in indices), f"edit {edit} does not apply"
    for index in indices:
        lines[index] = lines[index].replace(edit["old"], edit["new"], 1)


def materialize_run(case: dict[str, Any], directory: Path) -> list[Path]:
    from tests.synth.megatron_run import RunSpec, write_run

    def rank_of(path: Path) -> int:
        found = re.search(r"rank([0-9]+)", path.name)
        assert found is not None, path  # write_run names each file after its rank
        return int(found.group(1))

    paths = {rank_of(p): p for p in write_run(RunSpec(**case["synth"]), directory)}
    for rank, path in paths.items():
        lines = path.read_text(encoding="utf-8").split("\n")
        for edit in (e for e in case.get("edits", []) if e["rank"] == rank):
            _edit(lines, edit)
        deleted = {n for d in case.get("delete", []) if d["rank"] == rank for n in d["lines"]}
        path.write_text("\n".join(line for number, line in enumerate(lines, 1) if number not in deleted), encoding="utf-8")
    if "duplicate" in case:
        copy = directory / case["duplicate"]["name"]
        copy.write_bytes(paths[case["duplicate"]["rank"]].read_bytes())
    for rank in case.get("remove", []):
        paths.pop(rank).unlink()
    for name, text in case.get("files", {}).items():  # beside the run: a log or workload the config names
        (directory.parent / name).write_text(text, encoding="utf-8")
    return [directory]


def materialize(case: dict[str, Any], directory: Path) -> list[Path]:
    if "chakra" in case:  # Chakra traces (tests/synth/chakra_trace.py): the files, or their run's folder
        from tests.synth.chakra_trace import write

        run = directory / "run"
        run.mkdir()
        paths = write(case["chakra"], run)
        return [run] if len(paths) > 1 else paths
    if "synth" in case:
        run = directory / "run"
        run.mkdir()
        return materialize_run(case, run)
    if "files" in case:
        paths = []
        for name, text in case["files"].items():
            (directory / name).parent.mkdir(parents=True, exist_ok=True)
            (directory / name).write_text(text, encoding="utf-8")
            paths.append(directory / name)
        return paths
    target = directory / case.get("file", "input.txt")
    if "bytes" in case:
        target.write_bytes(codecs.escape_decode(case["bytes"].encode())[0])
    elif "base" in case:
        lines = (FIXTURES / case["base"]).read_text(encoding="utf-8").split("\n")
        for edit in case.get("edits", []):
            _edit(lines, edit)
        if "long_line" in case:  # too long to write out: line ``line`` becomes ``length`` times "x"
            lines[case["long_line"]["line"] - 1] = "x" * case["long_line"]["length"]
        target.write_text("\n".join(lines), encoding="utf-8")
    else:
        target.write_text(case["text"], encoding="utf-8")
    return [target]


def findings(paths: list[Path], case: dict[str, Any], *extra: str) -> set[tuple[Any, ...]]:
    return located(report(paths, case, *extra), case)


def located(found: list[dict[str, Any]], case: dict[str, Any]) -> set[tuple[Any, ...]]:
    """Where the findings are, as a case's ``expect`` says it: ``[line, "CODE"]``, or ``[line, column, "CODE"]``
    where the case pins the column of the field the finding is about."""
    if "synth" in case or len(case.get("chakra", ())) > 1:
        named = {f["path"]: Path(f["path"]).name for f in found}
        return {("run" if "*" in named[f["path"]] else named[f["path"]], f["line"] or 0, f["code"]) for f in found}
    if any(len(entry) == 3 for entry in case["expect"]):
        return {(f["line"], f["column"], f["code"]) for f in found}
    return {(f["line"], f["code"]) for f in found}


def report(paths: list[Path], case: dict[str, Any], *extra: str) -> list[dict[str, Any]]:
    argv = ["check", *map(str, paths), "--output-format", "json", "--max-findings", "0", "--jobs", "1", *case.get("args", []), *extra]
    if "consumer" in case:
        argv += ["--consumer", case["consumer"]]
    if "format" in case:
        argv += ["--trace-format", case["format"]]
    out = io.StringIO()
    code = main(argv, stdout=out, stderr=io.StringIO())
    assert code in (0, 1), f"exit code {code}"
    found: list[dict[str, Any]] = json.loads(out.getvalue())["findings"]
    return found


def run_case(code: str, case: dict[str, Any], tmp_path: Path) -> tuple[list[Path], list[str], list[dict[str, Any]]]:
    """The case's input files, the rules it leaves out, and every finding on them, in order of line."""
    if "options" in case:
        options = "\n".join(f"{key} = {json.dumps(value)}" for key, value in case["options"].items())
        (tmp_path / "tlint.toml").write_text(f"[rules.{code}]\n{options}\n", encoding="utf-8")
    if "config" in case:
        (tmp_path / "tlint.toml").write_text(case["config"], encoding="utf-8")
    paths = materialize(case, tmp_path)
    # TL221 states the outcome of every completed optprime run: other rules' cases leave it out.
    ignored = [] if code == OUTCOME_NOTE else [OUTCOME_NOTE]
    found = report(paths, case, *(["--ignore", ",".join(ignored)] if ignored else []))
    return paths, ignored, sorted(found, key=lambda f: f["line"] or 0)


@pytest.mark.parametrize(("code", "case"), load_cases(), ids=lambda v: v if isinstance(v, str) else v["name"])
def test_rule_case(code: str, case: dict[str, Any], tmp_path: Path) -> None:
    expected = {tuple(entry) for entry in case["expect"]}
    assert {entry[-1] for entry in expected} <= {code}, "a case of rule X expects only X's findings"
    paths, ignored, found = run_case(code, case, tmp_path)
    assert located(found, case) == expected
    if "messages" in case:  # a message naming a file of the case's directory says ``<tmp>`` for it
        assert [f["message"].replace(str(tmp_path), "<tmp>") for f in found] == case["messages"]
    if "severities" in case:
        assert [f["severity"] for f in found] == case["severities"]
    if expected:
        assert findings(paths, case, "--ignore", ",".join([code, *ignored])) == set()


# -- meta-tests -------------------------------------------------------------------------------------


RULES = list(iter_rules())
EXEMPT_FROM_CASES = {"TL000"}  # an internal error is a tlint bug: no input may trigger it


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_rule_has_documentation_in_every_section(rule: Any) -> None:
    docs = rule.docs()
    assert docs.summary and docs.why and docs.example, f"{rule.code} docstring lacks a section"
    assert re.fullmatch(r"TL[0-9]{3}", rule.code)
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.name)
    for name, _type, _default, description in docs.options:
        assert description, f"{rule.code} option {name} has no description"


def test_codes_and_names_are_unique() -> None:
    assert len({r.code for r in RULES}) == len(RULES)
    assert len({r.name for r in RULES}) == len(RULES)


def test_code_families_follow_scope_and_format() -> None:
    families = {"TL0": None, "TL1": "megatron-trace", "TL2": "optprime-log", "TL3": "neusight-tsv", "TL4": "simai-workload", "TL6": "chakra-et"}
    for rule in RULES:
        family = rule.code[:3]
        if family == "TL5":
            assert rule.scope == Scope.RUN, rule.code
        elif rule.code == "TL601":  # the chakra-et reader's own finding, as TL001 is the grammars'
            assert rule.scope == Scope.PARSER and rule.formats == ("chakra-et",)
        elif families[family] is None:
            assert rule.scope == Scope.PARSER, rule.code
        else:
            assert rule.formats == (families[family],) and rule.scope == Scope.FILE, rule.code


@pytest.mark.parametrize("rule", [r for r in RULES if r.code not in EXEMPT_FROM_CASES], ids=lambda r: r.code)
def test_rule_has_passing_and_failing_cases(rule: Any) -> None:
    cases = [case for code, case in load_cases() if code == rule.code]
    assert any(case["expect"] == [] for case in cases), f"{rule.code} has no passing case"
    assert any(case["expect"] for case in cases), f"{rule.code} has no failing case"


@pytest.mark.parametrize("rule", [r for r in RULES if r.consumers], ids=lambda r: r.code)
def test_rule_has_a_verdict_case_for_every_consumer_of_its_format(rule: Any) -> None:
    """A rule that names consumers shows its verdict for each consumer of its format: a failing case judged for
    each consumer it holds for (with the severity asserted), and a case where the others stay silent."""
    from lint.formats import named

    cases = [case for code, case in load_cases() if code == rule.code]
    for consumer in (c.name for format_name in rule.formats for c in named(format_name).consumers):
        judged = [case for case in cases if case.get("consumer") == consumer]
        if consumer in rule.consumers:
            failing = [case for case in judged if case["expect"]]
            assert failing, f"{rule.code} has no failing case judged for {consumer}"
            assert all("severities" in case for case in failing), f"{rule.code}: assert the severities of its cases judged for {consumer}"
        else:
            assert judged, f"{rule.code} holds not for {consumer}: a case judged for {consumer} shows it silent"


def test_every_failing_case_asserts_its_messages() -> None:
    missing = [f"{code}: {case['name']}" for code, case in load_cases() if case["expect"] and "messages" not in case]
    assert missing == [], "add `messages` to these cases"


def example_message(rule: Any) -> str:
    """The message a rule's docstring example ends with (``-> message``; wrapped lines joined by a space)."""
    _, arrow, message = rule.docs().example.rpartition("-> ")
    assert arrow, f"{rule.code}: the example does not end with '-> message'"
    return " ".join(line.strip() for line in message.strip().splitlines())


@pytest.mark.parametrize("rule", [r for r in RULES if r.code not in EXEMPT_FROM_CASES], ids=lambda r: r.code)
def test_docstring_example_is_the_message_of_a_failing_case(rule: Any) -> None:
    example = re.compile(".*".join(re.escape(part) for part in example_message(rule).split("...")))
    messages = [message for code, case in load_cases() if code == rule.code and case["expect"] for message in case["messages"]]
    assert any(example.fullmatch(message) for message in messages), (
        f"{rule.code}'s docstring example\n  {example_message(rule)}\nis none of its failing cases' messages:\n  " + "\n  ".join(messages)
    )


def test_readme_rule_table_is_generated_from_the_rule_docs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.split("<!-- rules -->\n", 1)[1].split("<!-- /rules -->", 1)[0]
    out = io.StringIO()
    assert main(["rules", "--output-format", "markdown"], stdout=out) == 0
    assert table == out.getvalue(), "regenerate the table with: tlint rules --output-format markdown"
    for rule in RULES:
        assert f"| {rule.code} | `{rule.name}` |" in table
