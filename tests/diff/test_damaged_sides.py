"""A diff never rests silently on broken input: what `tlint check` finds wrong with a side makes the verdict
inconclusive and the exit code 1, whatever else changed; a second diff of unchanged inputs reads no file.

Each damage is one a user meets: a rank file emptied, cut while copied, deleted, a record deleted or
duplicated, a workload row lost or repeated.  Generated runs, the repository's example workload, and a real
run of the shared corpus (read in place, copied to a temporary directory before it is damaged).
"""

from __future__ import annotations

import io
import json
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from lint.check.executor import Backend
from lint.cli import main
from lint.diff import SideOptions, diff_paths
from lint.read.source import Source
from tests.shared_corpus import corpus_dir
from tests.synth.megatron_run import RunSpec, write_run

ROOT = Path(__file__).resolve().parents[2]
WORKLOAD = ROOT / "examples" / "simai-workload.txt"
SPEC = RunSpec(tp=2, pp=2, dp=1, micro_batches=2, layers=4, hidden=32, seq=8, vocab=64, iterations=2)
GPT2_TP2 = "MegatronLM__realistic_trace__wd4_tp2_pp2_numl40_GPT2_20250320144110"


def run(*argv: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["diff", *map(str, argv)], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def _empty(path: Path) -> None:
    path.write_text("", encoding="utf-8")


def _cut(path: Path) -> None:  # a copy that stopped inside a record
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _delete(path: Path) -> None:
    path.unlink()


def _lines(edit: Callable[[list[str]], object]) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        lines = path.read_text(encoding="utf-8").splitlines()
        edit(lines)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    return damage


DAMAGES = {
    "emptied": _empty,
    "cut": _cut,
    "deleted": _delete,
    "record-deleted": _lines(lambda lines: lines.pop(3)),
    "record-duplicated": _lines(lambda lines: lines.insert(3, lines[3])),
}


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path, list[Path]]:
    write_run(SPEC, tmp_path / "a")
    return tmp_path / "a", tmp_path / "b", write_run(SPEC, tmp_path / "b")


@pytest.mark.parametrize("damage", DAMAGES, ids=list(DAMAGES))
def test_a_damaged_rank_file_makes_the_diff_inconclusive_and_exit_1(pair: tuple[Path, Path, list[Path]], damage: str) -> None:
    a, b, files = pair
    DAMAGES[damage](files[1])
    code, out, err = run(a, b)
    assert code == 1, out  # before: 0 ("identical" or "no significant change") for every one but the duplicate
    assert out.startswith("inconclusive: b has "), out.splitlines()[0]
    assert "(`tlint check` lists " in out.splitlines()[0] and err == ""
    document = json.loads(run(a, b, "--output-format", "json")[1])
    assert document["summary"]["verdict"] == "inconclusive"
    assert document["a"]["errors"] == 0 and document["b"]["errors"] >= 1 and document["b"]["problems"]


def test_the_problem_of_a_deleted_rank_is_the_one_check_reports(pair: tuple[Path, Path, list[Path]]) -> None:
    a, b, files = pair
    files[1].unlink()
    _, out, _ = run(a, b)
    assert "TL502 rank 1 has no trace file" in out.splitlines()[0]  # before: never mentioned


def test_damage_fails_whatever_fail_on_says(pair: tuple[Path, Path, list[Path]]) -> None:
    a, b, files = pair
    _cut(files[2])
    assert run(a, b, "--fail-on", "timing")[0] == 1
    assert run(b, a)[1].startswith("inconclusive: a has ")


@pytest.mark.parametrize(
    ("edit", "code"), [(lambda lines: lines.pop(5), "TL402"), (lambda lines: lines.insert(5, lines[5]), "TL403")], ids=["row-deleted", "row-duplicated"]
)
def test_a_workload_whose_rows_are_not_the_declared_count_is_inconclusive(tmp_path: Path, edit: Callable[[list[str]], object], code: str) -> None:
    damaged = tmp_path / "workload.txt"
    shutil.copy(WORKLOAD, damaged)
    _lines(edit)(damaged)
    status, out, _ = run(WORKLOAD, damaged)
    assert (
        status == 1 and out.startswith("inconclusive: b has 1 error (`tlint check` lists it): workload.txt:") and code in out.splitlines()[0]
    )  # before: a removed or added row


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_gro", "no simai-workload record could be read"),
        ("xyz 1 2 3\n\x00\x01 garbage\nallreduce -1 0 NONE\n", "no file of a known format"),
    ],
    ids=["no-record", "no-format"],
)
def test_a_side_with_nothing_to_compare_is_inconclusive_not_an_input_error(tmp_path: Path, text: str, why: str) -> None:
    # Before: exit 2 and no report ("tlint: error: ...: no simai-workload record could be read"), although
    # `tlint check` names the damage (TL001, TL005) and exits 1.
    damaged = tmp_path / "workload.txt"
    damaged.write_text(text, encoding="utf-8")
    status, out, err = run(WORKLOAD, damaged, "--output-format", "json")
    report = json.loads(out)
    assert (status, err, report["changes"]) == (1, "", [])
    assert report["summary"]["verdict"] == "inconclusive" and report["b"]["errors"] >= 1
    headline = report["summary"]["headline"]
    assert headline.startswith("b has "), headline
    assert f"; nothing compared: {damaged}: {why}" in headline


def test_a_folder_with_no_trace_stays_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    status, out, err = run(tmp_path / "empty", WORKLOAD)
    assert (status, out, err) == (2, "", f"tlint: error: {tmp_path / 'empty'}: no file of a known format (use --trace-format to force one)\n")


def test_a_row_name_of_thousands_of_digits_is_sorted_not_a_crash(tmp_path: Path) -> None:
    # Before: ValueError (Python refuses int() of over 4,300 digits) from the natural sort of the changes.
    lines = WORKLOAD.read_text(encoding="utf-8").splitlines()
    lines[2] = "9" * 5000 + lines[2][lines[2].index("\t") :]
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("\n".join(lines) + "\n", encoding="utf-8")
    lines[2] = "8" * 5000 + lines[2][lines[2].index("\t") :]
    b.write_text("\n".join(lines) + "\n", encoding="utf-8")
    status, out, err = run(a, b, "--output-format", "full", "--all")
    assert status in (0, 1) and "Traceback" not in err and "8888" in out


def test_a_real_run_with_a_rank_file_deleted_or_cut(tmp_path: Path) -> None:
    real = corpus_dir("real", "megatron-trace", GPT2_TP2)
    for damage in (_delete, _cut):
        copy = tmp_path / damage.__name__
        shutil.copytree(real, copy)
        damage(sorted(copy.glob("*rank1_*"))[0])
        code, out, _ = run(real, copy)
        assert code == 1 and out.startswith("inconclusive: b has "), out.splitlines()[0]


def test_a_second_diff_of_unchanged_inputs_reads_no_file(pair: tuple[Path, Path, list[Path]], monkeypatch: pytest.MonkeyPatch) -> None:
    a, b, _ = pair
    monkeypatch.setenv("TLINT_CACHE_DIR", str(a.parent / "cache"))  # the session's cache may know these files
    sides = SideOptions(backend=Backend(jobs=1))  # read here, where the spy sees it
    read: list[str] = []
    real_lines = Source.lines

    def lines(self: Source) -> object:
        read.append(self.display)
        return real_lines(self)

    monkeypatch.setattr(Source, "lines", lines)
    first = diff_paths(str(a), str(b), sides)
    assert read  # the first diff reads the files: to check them, and to profile them
    read.clear()
    second = diff_paths(str(a), str(b), sides)
    assert read == [] and second == first
    read.clear()
    diff_paths(str(a), str(b), replace(sides, use_cache=False))
    assert read  # --no-cache reads them again


def test_an_optprime_layer_of_thousands_of_digits_is_no_crash(tmp_path: Path) -> None:
    # Before: ValueError (int() of 5,000 digits) where a timing group's place is worked out.  A layer of more
    # digits than an int64 is no layer index (the grammar's LAYER): the line is not a layer timing record.
    log = ROOT / "examples" / "optprime-log.txt"
    damaged = tmp_path / "optprime.log"
    damaged.write_text(log.read_text(encoding="utf-8").replace("  layer[3]:", f"  layer[{'9' * 5000}]:", 1), encoding="utf-8")
    status, out, err = run(log, damaged, "--output-format", "json")
    assert status in (0, 1) and err == "" and json.loads(out)["summary"]["verdict"]


@pytest.mark.parametrize(("name", "shown"), [("d," * 500_000, "…"), ("attn[/x]", "attn[/x]")], ids=["a-megabyte", "markup"])
def test_the_full_report_shows_a_row_name_from_the_input_as_plain_elided_text(tmp_path: Path, name: str, shown: str) -> None:
    # Before: rich took a minute to wrap a row name of a megabyte (the audit's diff "hangs"), and read a
    # name's brackets as markup: [bold] styled, and [/x] was a MarkupError.
    lines = WORKLOAD.read_text(encoding="utf-8").splitlines()
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("\n".join(lines) + "\n", encoding="utf-8")
    lines[2] = name + lines[2][lines[2].index("\t") :]
    b.write_text("\n".join(lines) + "\n", encoding="utf-8")
    status, out, err = run(a, b, "--output-format", "full", "--all")
    assert status == 1 and err == "" and shown in out and len(out) < 50_000
