"""Damaged input never passes silently: each way a file gets damaged is a finding and exit code 1.

Detection looks at the structure of a file's first records, so a damaged first line is reported by the
format's parser; a file named on the command line that matches no format, a damaged archive and bytes
that are not text are findings of their own.  The last tests damage real files (read in place from
``../shared``) at random and ask for a finding at the damage.
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import zstandard
from hypothesis import assume, given
from hypothesis import strategies as st

from lint.cli import main
from tests.fuzz.budget import fuzz_settings
from tests.shared_corpus import SHARED
from tests.synth.megatron_run import RunSpec, write_run

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT / "tests" / "fixtures" / "seeds"
MEGATRON = SEEDS / "000_14848477538be528.txt"
OPTPRIME = SEEDS / "002_cbcb88115115ad29.txt"
NEUSIGHT = SEEDS / "003_891053d3e8445d09.txt"
SIMAI = SEEDS / "004_e7a75019e7d30864.txt"
REAL_FORMATS = ("megatron-trace", "optprime-log", "optprime-cpu", "simai-workload", "neusight-tsv")
ESC = "\x1b"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["check", "--no-cache", "--jobs", "1", *argv], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def findings(*argv: str) -> tuple[int, list[dict[str, Any]], dict[str, Any]]:
    code, out, _ = run(*argv, "--output-format", "json", "--max-findings", "0")
    document = json.loads(out)
    return code, document["findings"], document["summary"]


def located(found: list[dict[str, Any]]) -> set[tuple[int | None, str]]:
    return {(f["line"], f["code"]) for f in found}


# -- a damaged first line or header is reported where it is ------------------------------------------


def test_a_torn_first_line_of_a_megatron_trace_is_a_finding_at_that_line(tmp_path: Path) -> None:
    path = tmp_path / "trace_rank7.txt"
    path.write_text("rank:7 \n" + MEGATRON.read_text(encoding="utf-8"), encoding="utf-8")
    code, out, _ = run(str(path))
    assert code == 1 and out == f"{path}:1:7: TL001 [error] expected ':', found a space\n"


def test_a_renamed_neusight_header_column_is_a_finding_at_the_header(tmp_path: Path) -> None:
    path = tmp_path / "gpt2.tsv"
    path.write_text(NEUSIGHT.read_text(encoding="utf-8").replace("forward_compute_time", "fwd_compute_time", 1), encoding="utf-8")
    code, found, _ = findings(str(path))
    assert code == 1 and [(f["line"], f["code"], f["message"]) for f in found] == [
        (1, "TL001", "expected 'forward_compute_time', found 'fwd_compute_time'"),
    ]


def test_a_damaged_simai_header_is_a_finding_at_the_header(tmp_path: Path) -> None:
    path = tmp_path / "workload.txt"
    path.write_text("hybrid" + SIMAI.read_text(encoding="utf-8")[len("HYBRID") :], encoding="utf-8")
    code, found, _ = findings(str(path))
    # any word is a kind to the consumers' readers: a damaged one is one they cannot decode (TL401)
    assert code == 1 and any(f["line"] == 1 and f["code"] == "TL401" and "unknown workload kind 'hybrid_TRANSFORMER" in f["message"] for f in found)


# -- a named file of no known format -------------------------------------------------------------


def test_an_empty_file_named_on_the_command_line_is_a_finding(tmp_path: Path) -> None:
    path = tmp_path / "trace_rank3.txt"
    path.write_bytes(b"")
    code, out, err = run(str(path))
    assert code == 1
    assert out == f"{path}:1:1: TL005 [error] not a known trace format: the file is empty (use --trace-format to force one)\n"
    assert "Checked 1 file: 1 error." in err


@pytest.mark.parametrize(
    ("trace_format", "message"),
    [
        ("megatron-trace", "expected megatron-trace records, found an empty file"),
        ("optprime-log", "expected optprime-log records, found an empty file"),
        ("neusight-tsv", "expected the header row, found an empty file"),
        ("simai-workload", "expected a parallelism such as HYBRID_TRANSFORMER or DATA, found an empty file"),
    ],
)
def test_an_empty_file_read_as_a_forced_format_is_a_finding(tmp_path: Path, trace_format: str, message: str) -> None:
    path = tmp_path / "trace.txt"
    path.write_bytes(b"")
    code, found, _ = findings(str(path), "--trace-format", trace_format)
    assert code == 1
    assert [(f["line"], f["code"], f["message"]) for f in found] == [(1, "TL001", message)]


def test_an_unknown_named_file_names_the_closest_format_and_why(tmp_path: Path) -> None:
    path = tmp_path / "trace_rank7.txt"
    record = MEGATRON.read_text(encoding="utf-8").splitlines()[0]
    path.write_text(f"Copied from the cluster:\n{record}\nthen the job was stopped.\n", encoding="utf-8")
    code, found, _ = findings(str(path))
    assert code == 1 and [(f["line"], f["code"], f["message"]) for f in found] == [
        (
            1,
            "TL005",
            ("not a known trace format: closest is megatron-trace, but 1 of 3 non-empty lines start a `rank:R:op(` record (use --trace-format to force one)"),
        )
    ]


def test_unknown_files_met_while_walking_a_directory_are_skipped_and_listed(tmp_path: Path) -> None:
    (tmp_path / "empty.txt").write_bytes(b"")
    (tmp_path / "notes.md").write_text("# notes\n", encoding="utf-8")
    (tmp_path / "trace_rank7.txt").write_bytes(MEGATRON.read_bytes())
    code, _, err = run(str(tmp_path))
    # Quiet about them, as ruff is; a Markdown file is not even looked at: by its name it is no trace.
    assert code == 0 and err == "Checked 1 file (1 of no known format skipped; --verbose lists them): no findings.\n"
    code, _, err = run(str(tmp_path), "--verbose")
    assert code == 0 and f"{tmp_path / 'empty.txt'}: skipped" in err and "notes.md" not in err


def test_a_walked_rank_file_emptied_or_zeroed_is_reported_not_skipped(tmp_path: Path) -> None:
    """A crash leaves rank files empty or full of NULs: named as ranks of the run beside them, they are its
    files, damaged; skipped as files of no format, the run would only miss two ranks (a warning)."""
    zeroed, emptied, *_ = write_run(RunSpec(tp=2, pp=2, dp=1, micro_batches=2), tmp_path)
    zeroed.write_bytes(b"\0" * zeroed.stat().st_size)
    emptied.write_bytes(b"")
    (tmp_path / "empty.txt").write_bytes(b"")
    code, found, summary = findings(str(tmp_path))
    assert code == 1 and summary["skipped"] == [str(tmp_path / "empty.txt")]
    assert {(f["path"], f["line"], f["code"]) for f in found if f["path"] in (str(zeroed), str(emptied))} == {
        (str(zeroed), 1, "TL001"),
        (str(zeroed), 1, "TL003"),
        (str(emptied), 1, "TL001"),
    }


NOTE = """# What happened on node 3

The run stopped at step 120; rank 3 printed:

```
[rank3]: Traceback (most recent call last):
[rank3]:   File "pp_train_llama.py", line 212, in <module>
[rank3]:     optimus_p.run(data, labels)
[rank3]: RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled system error
W0105 09:12:09.118000 4242 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 4301 closing signal SIGTERM
```

We restart it from the last checkpoint.
"""


@pytest.mark.parametrize(
    "source",
    ["notes.md", "lint/formats/optprime_log/records.py", "lint/formats/optprime_log/parser.py", "grammars/optprime-log.lark", "grammars/megatron-trace.lark"],
)
def test_notes_and_the_projects_own_sources_are_not_traces(tmp_path: Path, source: str) -> None:
    path = tmp_path / "notes.md" if source == "notes.md" else ROOT / source
    if source == "notes.md":
        path.write_text(NOTE, encoding="utf-8")
    code, found, summary = findings(str(path.parent))  # walked: passed over, by its name
    assert str(path) not in summary["skipped"] and not [f for f in found if f["path"] == str(path)]
    code, found, summary = findings(str(path))  # named: skipped, by its name documentation or source code
    assert code == 0 and summary["skipped"] == [str(path)] and not found


def test_a_shell_glob_over_a_runs_folder_skips_its_documents_and_still_reports_a_stray_file(tmp_path: Path) -> None:
    """`tlint check folder/*` names the folder's README and PROVENANCE.md, its driver script and its patch:
    by their names none is a trace, so they are skipped (a document may quote a few records); a note of
    another kind still is a TL005, and a trace named like a document is read only when a format is forced."""
    (tmp_path / "PROVENANCE.md").write_text("# provenance\n\n| file | repo |\n|---|---|\n", encoding="utf-8")
    (tmp_path / "run.sh").write_text("#!/bin/bash\ntorchrun --nproc_per_node=2 train.py\n", encoding="utf-8")
    (tmp_path / "cpu.patch").write_text("--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("the run stopped at step 120\n", encoding="utf-8")
    (tmp_path / "trace_rank7.md").write_bytes(MEGATRON.read_bytes())
    named = sorted(str(path) for path in tmp_path.iterdir())
    code, found, summary = findings(*named)
    assert sorted(summary["skipped"]) == [str(tmp_path / name) for name in ("PROVENANCE.md", "cpu.patch", "run.sh", "trace_rank7.md")]
    assert code == 1 and {(f["path"], f["code"]) for f in found if f["code"] == "TL005"} == {(str(tmp_path / "notes.txt"), "TL005")}
    assert summary["checked"] == 1  # the note (its TL005)
    code, found, summary = findings(str(tmp_path / "trace_rank7.md"), "--trace-format", "megatron-trace")
    assert (code, found, summary["checked"]) == (0, [], 1)


# -- damaged archives -------------------------------------------------------------------------------

COMPRESSORS: dict[str, tuple[str, Callable[[bytes], bytes]]] = {
    "gz": ("gzip", gzip.compress),
    "bz2": ("bzip2", bz2.compress),
    "xz": ("xz", lzma.compress),
    "zst": ("zstd", zstandard.ZstdCompressor().compress),
}


@pytest.mark.parametrize("suffix", sorted(COMPRESSORS))
def test_a_short_truncated_archive_is_a_finding(tmp_path: Path, suffix: str) -> None:
    name, compress = COMPRESSORS[suffix]
    data = compress(OPTPRIME.read_bytes())
    path = tmp_path / f"optprime_stdout.log.{suffix}"
    path.write_bytes(data[: len(data) // 2])  # what can be read of it is well under the 64 KiB detection reads
    code, out, _ = run(str(path), "--output-format", "json", "--max-findings", "0")
    document = json.loads(out)
    assert code == 1
    (truncated,) = [f for f in document["findings"] if f["code"] == "TL004"]
    # gzip and xz stream what they can; bzip2 and zstd give nothing of a block that ends early.
    where = r"after line \d+" if suffix in ("gz", "xz") else "before its first line"
    assert re.fullmatch(rf"the {name} data is damaged or ends early {where}: .+", truncated["message"])
    assert document["files"][0]["format"] == ("optprime-log" if suffix in ("gz", "xz") else None)


@pytest.mark.parametrize("walked", [False, True], ids=["named", "walked"])
def test_a_corrupt_archive_is_a_finding_even_when_nothing_is_readable(tmp_path: Path, walked: bool) -> None:
    data = gzip.compress(MEGATRON.read_bytes())
    path = tmp_path / "trace_rank7.txt.gz"
    path.write_bytes(data[:20] + b"\xff" * 200 + data[220:])
    code, found, _ = findings(str(tmp_path if walked else path))
    assert code == 1 and [(f["line"], f["code"]) for f in found] == [(1, "TL004")]
    assert found[0]["message"].startswith("the gzip data is damaged or ends early before its first line: ")


# -- bytes that are not text inside a trace ---------------------------------------------------------


def test_nul_bytes_inside_a_trace_are_findings_at_their_line(tmp_path: Path) -> None:
    lines = MEGATRON.read_bytes().split(b"\n")
    lines[3] = lines[3][:40] + b"\0" * 3 + lines[3][40:]
    path = tmp_path / "trace_rank7.txt"
    path.write_bytes(b"\n".join(lines))
    code, found, _ = findings(str(path))
    assert code == 1 and (4, "TL003") in located(found)
    nul = next(f for f in found if f["code"] == "TL003")
    assert (nul["column"], nul["message"]) == (
        41,
        "a NUL byte; no writer's text holds one (blocks of NULs are what a crash or an unfinished copy leaves)",
    )


def test_binary_junk_inside_a_trace_is_a_finding_not_a_binary_file(tmp_path: Path) -> None:
    data = MEGATRON.read_bytes()
    junk = random.Random(7).randbytes(300).replace(b"\n", b"\xff")
    path = tmp_path / "trace_rank7.txt"
    path.write_bytes(data[:5000] + junk + data[5000:])
    line = data[:5000].count(b"\n") + 1
    code, found, summary = findings(str(path))
    assert code == 1 and not summary["skipped"] and (line, "TL003") in located(found)


# -- control characters from a file are shown escaped -----------------------------------------------


@pytest.mark.parametrize("output_format", ["concise", "full", "github", "junit"])
def test_control_characters_from_a_file_are_shown_escaped(tmp_path: Path, output_format: str) -> None:
    path = tmp_path / "trace\x1b[2J_rank3.txt"  # the name itself, as the file's text, comes from outside
    path.write_bytes(b"")
    code, out, err = run(str(path), "--output-format", output_format)
    assert code == 1 and ESC not in out + err
    assert "trace\\x1b[2J_rank3.txt" in out


def test_a_layer_name_with_an_escape_sequence_is_shown_escaped_by_diff(tmp_path: Path) -> None:
    before = tmp_path / "a.txt"
    before.write_bytes(SIMAI.read_bytes())
    after = tmp_path / "b.txt"
    after.write_bytes(SIMAI.read_bytes().replace(b"layernorm", b"layer\x1b[31mnorm", 1))
    for output_format in ("concise", "full"):
        out, err = io.StringIO(), io.StringIO()
        assert main(["diff", str(before), str(after), "--output-format", output_format], stdout=out, stderr=err) == 1
        assert ESC not in out.getvalue() + err.getvalue() and "layer\\x1b[31mnorm" in out.getvalue()


# -- real files, damaged at random ----------------------------------------------------------------


def _real_files() -> list[Path]:
    """Small real files of every format (in place under ../shared), and the seeds of the shared fuzz corpus."""
    if not SHARED.is_dir():
        return []
    real = [
        p
        for name in REAL_FORMATS
        for p in sorted((SHARED / "corpus" / "real" / name).rglob("*"))
        if p.is_file() and p.suffix in (".txt", ".log") and p.stat().st_size < 200_000
    ]
    return real + sorted((SHARED / "seeds").glob("*.txt"))


REAL_FILES = _real_files()
needs_real_files = pytest.mark.skipif(not REAL_FILES, reason=f"{SHARED} is absent: the real files are read in place from there")
JUNK = st.one_of(
    st.binary(min_size=1, max_size=64).map(lambda junk: b"\0" + junk),  # NUL bytes, with or without more
    st.binary(min_size=200, max_size=400).map(lambda junk: junk + b"\xff"),  # a few hundred bytes of binary junk
)


@needs_real_files
@fuzz_settings(25)
@given(data=st.data())
def test_junk_inserted_into_a_real_file_is_a_finding_at_its_line(tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> None:
    original = data.draw(st.sampled_from(REAL_FILES), label="file").read_bytes()
    junk = data.draw(JUNK, label="junk")
    at = data.draw(st.integers(0, len(original)), label="at")
    path = tmp_path_factory.mktemp("junk") / "damaged.txt"
    path.write_bytes(original[:at] + junk + original[at:])
    first = original[:at].count(b"\n") + 1
    damaged_lines = range(first, first + junk.count(b"\n") + 1)
    code, found, _ = findings(str(path))
    at_damage = {f["code"] for f in found if f["line"] in damaged_lines}
    assert at_damage & {"TL001", "TL003", "TL006"} or located(found) == {(1, "TL005")}, found
    # Junk in a console log (optprime-log) may be the console's own, printed by torchrun's threads: a warning (TL006)
    assert code == 1 or at_damage == {"TL006"}, found


def _simai_workloads() -> list[Path]:
    return [p for p in REAL_FILES if "simai-workload" in p.parts]


@needs_real_files
@fuzz_settings(15)
@given(data=st.data())
def test_a_row_dropped_from_a_real_workload_is_a_finding(tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> None:
    # SimAI reads the declared number of rows: a dropped row is a short file, whatever the row was.
    # Only the declared rows count: free text after them is never read (TL420), so dropping it is no damage.
    lines = data.draw(st.sampled_from(_simai_workloads()), label="file").read_bytes().split(b"\n")
    declared = int(lines[1].split()[0])
    rows = [i for i, line in enumerate(lines[2 : 2 + declared], 2) if line.strip()]
    assume(rows)
    dropped = data.draw(st.sampled_from(rows), label="row")
    path = tmp_path_factory.mktemp("drop") / "workload.txt"
    path.write_bytes(b"\n".join(lines[:dropped] + lines[dropped + 1 :]))
    code, found, _ = findings(str(path))
    assert code == 1 and any(f["severity"] == "error" for f in found), found


def test_every_real_file_is_still_detected_as_its_format() -> None:
    if not REAL_FILES:
        pytest.skip(f"{SHARED} is absent: the real files are read in place from there")
    from lint import formats
    from lint.read.source import Source

    for path in REAL_FILES:
        folder = next((name for name in REAL_FORMATS if name in path.parts), None)
        if folder is None:
            continue
        expected = "optprime-log" if folder == "optprime-cpu" else folder
        assert formats.detect(Source(path, str(path)).head()) == expected, path


def _megatron_runs() -> list[Path]:
    folder = SHARED / "corpus" / "real" / "megatron-trace"
    return sorted(run for run in folder.iterdir() if run.is_dir()) if folder.is_dir() else []


def _copied_run_and_a_file(tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> tuple[Path, Path]:
    """A copy of one of the real runs (to damage; the originals stay as they are), and one of its files."""
    source = data.draw(st.sampled_from(_megatron_runs()), label="run")
    run = tmp_path_factory.mktemp("run") / source.name
    run.mkdir()
    for file in source.glob("*.txt"):
        (run / file.name).write_bytes(file.read_bytes())
    return run, data.draw(st.sampled_from(sorted(run.glob("*.txt"))), label="file")


@pytest.mark.skipif(not _megatron_runs(), reason=f"{SHARED} is absent: the real runs are read in place from there")
@fuzz_settings(8)
@given(data=st.data())
def test_a_record_dropped_from_a_rank_of_a_real_run_is_a_finding(tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> None:
    # The schedule fixes how often each step runs per micro-batch and what it calls (TL116, TL117), and the
    # ranks of a stage run the same steps (TL510, TL505): whichever record is lost, the run says so.
    run, damaged = _copied_run_and_a_file(tmp_path_factory, data)
    lines = damaged.read_text(encoding="utf-8").split("\n")
    dropped = data.draw(st.sampled_from([i for i, line in enumerate(lines) if line.strip()]), label="line")
    damaged.write_text("\n".join(lines[:dropped] + lines[dropped + 1 :]), encoding="utf-8")
    code, found, _ = findings(str(run))
    assert code == 1 and any(f["severity"] == "error" for f in found), (damaged.name, dropped + 1)


@pytest.mark.skipif(not _megatron_runs(), reason=f"{SHARED} is absent: the real runs are read in place from there")
@fuzz_settings(8)
@given(data=st.data())
def test_a_rank_file_of_a_real_run_cut_short_is_one_finding(tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> None:
    # The writer writes a rank's whole trace when training ends (write_list_to_file, megatron/profiler/cmd.py):
    # a job killed meanwhile, or a copy cut short, leaves a file whose last line breaks off.  That is one
    # root cause, so one finding: the syntax error, not the steps lost after it, nor its pipeline neighbours'
    # sends and receives that now find no partner in it.
    run, damaged = _copied_run_and_a_file(tmp_path_factory, data)
    text = damaged.read_bytes()
    cut = data.draw(st.integers(len(text) // 4, len(text) - 2), label="cut")
    assume(text[cut - 1 : cut] != b"\n")  # a cut at a line's end leaves a file that only lacks records
    damaged.write_bytes(text[:cut])
    code, found, _ = findings(str(run))
    assert code == 1
    assert [(f["path"], f["line"], f["code"]) for f in found] == [(str(damaged), text[:cut].count(b"\n") + 1, "TL001")]


def test_a_forward_step_after_a_broken_line_still_needs_its_backward_step(tmp_path: Path) -> None:
    def step(op: str, batch: int, time: float, func: str) -> str:
        return (
            f"rank:3:{op}(stage_id=1,batch_id={batch},mg_state=steady,duration=5.0,description=None,group_kind=None,input__shape=None,input__dtype=None,"
            f"timestamp={time},sub_operations=['trace_src_func=allreduce,duration=0.1,timestamp={time - 4},input__shape=[4096, 128],"
            f"input__dtype=torch.float32,func_name={func},group=tp,comm_func=allreduce'])"
        )

    path = tmp_path / "trace_rank3.txt"
    lines = [
        step("forward_step", 0, 10.0, "linear_fwd"),
        step("backward_step", 0, 20.0, "normlinear_bwd"),
        "rank:3:loss_func(stage_id=1,",
        step("forward_step", 1, 30.0, "linear_fwd"),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, found, _ = findings(str(path))
    assert code == 1
    assert [(f["line"], f["code"]) for f in found] == [(3, "TL001"), (4, "TL115")]
    assert found[1]["message"] == "forward_step of micro-batch 1 has 1 TP layer all-reduces but no backward_step"
