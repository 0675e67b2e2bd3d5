"""``tlint diff`` through ``main([...])``: every output format, exit codes, --fail-on, --threshold, errors."""

from __future__ import annotations

import io
import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from lint.cli import main
from tests.diff.conftest import SEEDS
from tests.synth.megatron_run import RunSpec, generate_run, slow_down_stage, write_run

NOT_A_TRACE = Path(__file__).resolve().parents[2] / "pyproject.toml"
SEED_000, SEED_001, SEED_002 = SEEDS / "000_14848477538be528.txt", SEEDS / "001_0e8fa2e5d125871b.txt", SEEDS / "002_cbcb88115115ad29.txt"
SEED_003, SEED_004 = SEEDS / "003_891053d3e8445d09.txt", SEEDS / "004_e7a75019e7d30864.txt"
CHANGE_KEYS = {"category", "kind", "key", "field", "before", "after", "delta", "rel_delta", "significant", "judged", "cause"}


def run(*argv: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["diff", *map(str, argv)], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def slower_workload(tmp_path: Path) -> Path:
    """Seed 004 with every attention_norm forward compute time 10 % longer: a timing change only."""
    text = SEED_004.read_text(encoding="utf-8").replace("attention_norm	    -1	3422000", "attention_norm	    -1	3764200")
    path = tmp_path / "slower.txt"
    path.write_text(text, encoding="utf-8")
    return path


def test_identical_inputs_exit_0_and_say_so() -> None:
    code, out, err = run(SEED_004, SEED_004)
    assert code == 0
    assert out.splitlines()[0] == "identical: no difference in config, structure, comm or timing"
    assert out.splitlines()[1].startswith(
        f"--- a: {SEED_004} (simai-workload, AICB (AIOB path), 1 file; time: ns (SimAI), shown in ms; comm: bytes as written)"
    )
    assert out.splitlines()[-1].startswith("0 changes, 0 significant") and err == ""  # the report's last line, where the report goes


def test_concise_lines_read_category_kind_key_field_transition(slower_workload: Path) -> None:
    code, out, _ = run(SEED_004, slower_workload)
    lines = out.splitlines()
    assert code == 1
    assert lines[0] == "significant change: attention_norm fwd compute +10.0 % (significant)"
    assert "timing changed attention_norm fwd compute median: 3.422 ms → 3.764 ms (+0.3422, +10.0 %) *significant*" in lines


def test_json_is_one_document_with_the_issue_schema(slower_workload: Path) -> None:
    code, out, _ = run(SEED_004, slower_workload, "--output-format", "json")
    document = json.loads(out)
    assert code == 1 and set(document) == {"version", "a", "b", "changes", "summary"} and document["version"] == 1
    assert document["a"]["format"] == "simai-workload" and document["a"]["units"]["comm"] == "bytes as written"
    for change in document["changes"]:
        assert set(change) == CHANGE_KEYS
    (change,) = [c for c in document["changes"] if c["key"] == "attention_norm fwd compute"]
    assert change["delta"] == pytest.approx(change["after"] - change["before"])
    assert change["rel_delta"] == pytest.approx(change["delta"] / change["before"]) and change["significant"] is True
    summary = document["summary"]
    assert summary["verdict"] == "significant change" and summary["significant_categories"] == ["timing"]
    # the workload's compute total moves too, by less than the threshold: listed, not significant
    assert summary["threshold_percent"] == 5 and summary["counts"]["timing"] == {"changes": 2, "significant": 1}
    assert summary["headline"].startswith("attention_norm fwd compute +10.0 %")


def test_rel_delta_is_null_where_undefined() -> None:
    _, out, _ = run(SEED_000, SEED_001, "--output-format", "json")
    changes = json.loads(out)["changes"]
    removed = next(c for c in changes if c["kind"] == "removed")
    assert removed["delta"] is None and removed["rel_delta"] is None and removed["after"] is None


def test_full_output_has_a_summary_panel_and_a_table_per_category(slower_workload: Path) -> None:
    code, out, _ = run(SEED_000, SEED_001, "--output-format", "full", "--all")
    assert code == 1 and out.startswith("╭─ tlint diff")
    for title in ("config (", "structure (", "comm (", "timing ("):
        assert title in out
    _, timing, _ = run(SEED_004, slower_workload, "--output-format", "full")
    assert "┃" in timing.split("timing (")[1]  # the distribution bars of both sides


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.links += [value or "" for name, value in attrs if name in ("src", "href")]


def test_html_is_self_contained_with_tables_and_a_stage_plot(tmp_path: Path) -> None:
    spec = RunSpec(tp=1, pp=2, dp=1, micro_batches=4, layers=2, hidden=16, seq=8, vocab=64, iterations=6)
    write_run(spec, tmp_path / "a")
    write_run(spec, tmp_path / "b", run=slow_down_stage(generate_run(spec), 1, 1.5))
    code, out, _ = run(tmp_path / "a", tmp_path / "b", "--output-format", "html")
    tags = _Tags()
    tags.feed(out)
    assert code == 1 and out.startswith("<!DOCTYPE html>")
    assert tags.links == [] and tags.tags.count("script") == 1  # nothing to fetch; one inline script sorts the tables
    assert {"style", "table", "svg", "rect"} <= set(tags.tags)
    assert "stage 0 step" in out and "stage 1 step" in out


def test_fail_on_narrows_what_fails(slower_workload: Path) -> None:
    assert run(SEED_004, slower_workload, "--fail-on", "comm,structure")[0] == 0
    assert run(SEED_004, slower_workload, "--fail-on", "timing")[0] == 1


def test_threshold_is_a_percentage(slower_workload: Path) -> None:
    code, out, _ = run(SEED_004, slower_workload, "--threshold", "15")
    # a 10 % timing change is below it: not significant, but not "identical" either (before: "identical")
    assert code == 0 and out.splitlines()[0] == "no significant change: 2 changes within noise or below the 15 % threshold"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["missing.txt", SEED_004], "tlint: error: missing.txt: no such file or directory\n"),
        ([NOT_A_TRACE, SEED_004], f"tlint: error: {NOT_A_TRACE}: no file of a known format (use --trace-format to force one)\n"),
        ([SEED_004, SEED_004, "--fail-on", "speed"], "tlint: error: --fail-on takes config, structure, comm, timing; not speed\n"),
        ([SEED_004, SEED_004, "--threshold", "-1"], "tlint: error: --threshold is a percentage from 0 to 1000\n"),
        ([SEED_004, SEED_004, "--rank-regex", "r(\\d+)"], "tlint: error: --rank-regex 'r(\\\\d+)' has no (?P<rank>...) group\n"),
    ],
    ids=["missing", "unknown-format", "fail-on", "threshold", "rank-regex"],
)
def test_errors_are_one_line_and_exit_2(argv: list[object], message: str) -> None:
    code, out, err = run(*argv)
    assert (code, out, err) == (2, "", message)


@pytest.mark.parametrize("number", ["attention_norm	    -1	3422000", "6236471296"], ids=["compute", "size"])
def test_a_number_beyond_a_float_is_a_damaged_row_not_a_crash(tmp_path: Path, number: str) -> None:
    path = tmp_path / "huge.txt"
    path.write_text(SEED_004.read_text(encoding="utf-8").replace(number, number[:-7] + "9" * 400, 1), encoding="utf-8")
    code, out, _ = run(path, SEED_004)
    assert code == 1 and out.startswith(f"inconclusive: a has 1 error (`tlint check` lists it): {path.name}:")
    code, out, _ = run(path, SEED_004, "--output-format", "json")
    assert code == 1 and json.loads(out)["a"]["path"] == str(path)


@pytest.mark.parametrize(
    ("seed", "old", "new"),
    [
        (SEED_003, "4.791370158793459e-09", "1.7976931348623157e308"),  # valid, but their sum is past the largest float
        (SEED_000, "duration=629.77", "duration=1e400"),  # infinite: TL105 for check, no sample for diff
        (SEED_000, "duration=629.77", "duration=nan"),
    ],
    ids=["largest-floats", "infinite", "nan"],
)
@pytest.mark.parametrize("output_format", ["concise", "full", "html", "json"])
def test_times_past_the_largest_float_are_drawn_or_left_out_not_a_crash(tmp_path: Path, seed: Path, old: str, new: str, output_format: str) -> None:
    path = tmp_path / seed.name
    path.write_text(seed.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    code, out, err = run(seed, path, "--output-format", output_format, "--threshold", "0")
    assert code in (0, 1) and out and "Traceback" not in err
    if output_format == "json":
        assert all(change.get("spread_before", {}).get("median") != "NaN" for change in json.loads(out)["changes"])


def test_a_zeroed_rank_file_of_a_run_makes_the_diff_inconclusive(tmp_path: Path) -> None:
    spec = RunSpec(tp=2, pp=2, dp=1, micro_batches=2)
    write_run(spec, tmp_path / "a")
    zeroed = write_run(spec, tmp_path / "b")[0]
    zeroed.write_bytes(b"\0" * zeroed.stat().st_size)
    code, out, _ = run(tmp_path / "a", tmp_path / "b", "--output-format", "json")
    side = json.loads(out)["b"]
    assert code == 1 and side["files"] == 4 and side["errors"] >= 1 and side["problems"][0].startswith(f"{zeroed}:1:")


def test_a_directory_of_mixed_formats_is_refused(tmp_path: Path) -> None:
    (tmp_path / "trace_rank0.txt").write_bytes(SEED_000.read_bytes())
    (tmp_path / "workload.txt").write_bytes(SEED_004.read_bytes())
    code, _, err = run(tmp_path, SEED_004)
    assert code == 2 and err == f"tlint: error: {tmp_path}: holds files of several formats (1 megatron-trace, 1 simai-workload); name one file or run\n"


def test_a_directory_of_several_workloads_is_ambiguous(tmp_path: Path) -> None:
    for name in ("one.txt", "two.txt"):
        (tmp_path / name).write_bytes(SEED_004.read_bytes())
    code, _, err = run(tmp_path, SEED_004)
    assert code == 2 and err == f"tlint: error: {tmp_path}: holds 2 simai-workload files; name one\n"


def test_a_directory_of_two_runs_is_ambiguous(tmp_path: Path) -> None:
    for name in ("job1_rank0.txt", "job2_rank0.txt"):
        (tmp_path / name).write_bytes(SEED_000.read_bytes())
    code, _, err = run(tmp_path, SEED_000)
    assert code == 2 and err == f"tlint: error: {tmp_path}: holds the files of 2 runs (job1_rank*, job2_rank*); name one\n"


def test_output_file_receives_the_report_and_jobs_read_the_runs_alike(tmp_path: Path) -> None:
    run_a, run_b = tmp_path / "a", tmp_path / "b"
    write_run(RunSpec(tp=2, pp=2, dp=2, micro_batches=2), run_a)
    write_run(RunSpec(tp=2, pp=2, dp=2, micro_batches=4), run_b)
    code, out, _ = run(run_a, run_b, "--jobs", "1")
    written = tmp_path / "diff.txt"
    code_2, out_2, _ = run(run_a, run_b, "--jobs", "2", "-o", written)
    assert code == code_2 == 1 and out_2 == ""
    assert written.read_text(encoding="utf-8") == out
    assert "config changed micro-batches: 2 → 4" in out


def test_bad_jobs_and_unwritable_output_file_exit_2(tmp_path: Path) -> None:
    assert run(SEED_004, SEED_004, "--jobs", "0")[0] == 2
    code, _, err = run(SEED_004, SEED_004, "-o", tmp_path / "missing" / "diff.txt")
    assert code == 2 and "diff.txt: cannot write: No such file or directory" in err
