"""The engine keeps going: a crashing rule becomes a TL000 finding and every other rule still runs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lint import formats
from lint.check.config import FileConfig, Overrides, build_selection
from lint.check.engine import MAX_MESSAGE, CheckOptions, check
from lint.formats.optprime_log.rulekit import RankOutputs
from lint.rule import registry

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def test_a_crashing_rule_is_reported_and_the_others_still_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    trace = tmp_path / "trace.txt"
    lines = (FIXTURES / "seeds" / "000_14848477538be528.txt").read_text(encoding="utf-8").splitlines()
    lines[3] = lines[3].replace("mg_state=steady", "mg_state=stedy")
    trace.write_text("\n".join(lines) + "\n", encoding="utf-8")

    def explode(self: object, record: object) -> object:
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(registry()["TL103"], "check_op", explode)
    report = check([str(trace)], CheckOptions())
    codes = [(f.code, f.line) for f in report.findings]
    assert ("TL000", 1) in codes and ("TL112", 4) in codes
    (crash,) = [f for f in report.findings if f.code == "TL000"]
    assert crash.message == "rule TL103 (op-overlap) failed at line 1 and was skipped for this file: ZeroDivisionError: boom"


def _trace_with_unknown_state(tmp_path: Path) -> Path:
    trace = tmp_path / "trace.txt"
    lines = (FIXTURES / "seeds" / "000_14848477538be528.txt").read_text(encoding="utf-8").splitlines()
    lines[3] = lines[3].replace("mg_state=steady", "mg_state=stedy")
    trace.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return trace


def _explode_on_line_4(self: object, record: object) -> object:
    if getattr(record, "line", None) == 4:
        raise ZeroDivisionError("boom")
    return ()


def test_a_rule_crashing_on_a_record_leaves_the_other_rules_findings_on_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # TL103 runs before TL112 on every record: its crash on line 4 must not cost TL112's finding there
    monkeypatch.setattr(registry()["TL103"], "check_op", _explode_on_line_4)
    report = check([str(_trace_with_unknown_state(tmp_path))], CheckOptions())
    codes = [(f.code, f.line) for f in report.findings]
    assert ("TL000", 4) in codes and ("TL112", 4) in codes


def test_ignoring_tl000_silences_internal_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry()["TL103"], "check_op", _explode_on_line_4)
    selection = build_selection(FileConfig(), Overrides(ignore=["TL000"]), tmp_path, "command line")
    report = check([str(_trace_with_unknown_state(tmp_path))], CheckOptions(selection=selection))
    assert [(f.code, f.line) for f in report.findings] == [("TL112", 4)]


def test_a_message_quoting_a_huge_value_keeps_its_start_and_end(tmp_path: Path) -> None:
    table = tmp_path / "table.tsv"
    header = (FIXTURES / "seeds" / "003_891053d3e8445d09.txt").read_text(encoding="utf-8").splitlines()[0]
    table.write_text(f"{header}\n{'n' * 100_000}\t0\tNone\t0\t0\tNone\t0\t0\tNone\t0\t0\n", encoding="utf-8")
    (finding,) = check([str(table)], CheckOptions()).findings
    assert finding.code == "TL306" and len(finding.message) == MAX_MESSAGE + 1
    assert finding.message.startswith("1 row has every time 0 and no comm (first nnn") and "…" in finding.message
    assert finding.message.endswith("some compute time or comm size")


def test_read_summary_gives_a_run_files_summary_without_rules(tmp_path: Path) -> None:
    """What `tlint diff` reads a run by: the rank summary, and whether the file parsed; no rule runs."""
    from lint.check.engine import read_summary
    from lint.formats.megatron_trace.summary import RankSummary
    from lint.read.source import Source

    broken = _trace_with_unknown_state(tmp_path)  # TL112 for a check, nothing here
    summary, parsed = read_summary(Source(broken, broken.name), "megatron-trace")
    assert isinstance(summary, RankSummary)
    assert (summary.rank, summary.stage, parsed) == (7, 3, True) and summary.steps
    lines = broken.read_text(encoding="utf-8").splitlines()
    lines[5] = lines[5][:20]
    broken.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert read_summary(Source(broken, broken.name), "megatron-trace")[1] is False
    with pytest.raises(ValueError, match="do not form runs"):
        read_summary(Source(broken, broken.name), "simai-workload")


def test_each_rule_keeps_its_own_state_fed_each_record_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # TL218-TL221 all read which ranks printed what (RankOutputs): each rule its own copy, fed once per record
    # (through observe, or observe_output for the kinds where that is what observe does): no rule shares another's state
    fed: list[int] = []

    def counted(method: Callable[[RankOutputs, Any], Any]) -> Callable[[RankOutputs, Any], Any]:
        def feed(self: RankOutputs, record: Any) -> Any:
            fed.append(id(self))
            return method(self, record)

        return feed

    monkeypatch.setattr(RankOutputs, "observe", counted(RankOutputs.observe))
    monkeypatch.setattr(RankOutputs, "observe_output", counted(RankOutputs.observe_output))
    sample = Path(__file__).resolve().parents[1] / "examples" / "optprime-log.txt"
    report = check([str(sample)], CheckOptions())
    records = sum(1 for _ in formats.parser("optprime-log").parse(enumerate(sample.read_text(encoding="utf-8").splitlines(), 1)))
    assert len(set(fed)) == 4 and len(fed) == 4 * records
    assert [f.code for f in report.findings] == ["TL221"]
