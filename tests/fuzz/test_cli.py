"""The whole command line on damaged and random files, in every output format: it exits 0, 1 or 2, writes
a well-formed report, no traceback, and no rule or parser fails on the input (TL000)."""

from __future__ import annotations

import io
import os
import re
import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from lint.cli import main
from lint.formats import FORMAT_NAMES
from lint.report import CHECK_REPORTERS
from tests.fuzz.budget import fuzz_settings
from tests.fuzz.inputs import SEEDS, fuzzed_files
from tests.readers import read_github, read_json_report, read_junit, read_sarif

# A Python traceback, not the word: rule docs quote the tracebacks of failed training runs.
PYTHON_TRACEBACK = re.compile(r'Traceback \(most recent call last\):\n\s+File "')

READERS = {
    "json": read_json_report,
    "sarif": read_sarif,
    "junit": read_junit,
    "github": read_github,
}


def check(directory: Path, *options: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["check", str(directory), "--jobs", "1", *options], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@fuzz_settings(100)
@given(
    files=st.lists(fuzzed_files, min_size=1, max_size=3),
    forced=st.sampled_from((None, *FORMAT_NAMES)),
    output_format=st.sampled_from(sorted(CHECK_REPORTERS)),
)
def test_check_survives_any_files_in_every_output_format(files: list[bytes], forced: str | None, output_format: str) -> None:
    with tempfile.TemporaryDirectory(prefix="tlint-fuzz-") as name:
        directory = Path(name)
        for rank, data in enumerate(files):  # rank names: several files of one megatron run meet the run rules
            (directory / f"trace_rank{rank}.txt").write_bytes(data)
        options = ("--trace-format", forced) if forced else ()

        code, out, err = check(directory, "--output-format", "json", "--max-findings", "0", *options)
        assert code in (0, 1), err  # every path exists: exit 2 would be a read error
        assert not PYTHON_TRACEBACK.search(out + err)
        report = read_json_report(out)
        assert not [f for f in report["findings"] if f["code"] == "TL000"], err
        assert report["summary"]["files"] == len(files)

        code_again, out, err = check(directory, "--output-format", output_format, *options)
        assert code_again == code and not PYTHON_TRACEBACK.search(out + err)
        if output_format in READERS:
            READERS[output_format](out)


# What a POSIX file name may hold: any byte but '/' and NUL, also bytes that are not UTF-8.
_name_bytes = st.binary(min_size=1, max_size=12).map(lambda b: b.replace(b"/", b"_").replace(b"\0", b"_").lstrip(b"."))


@fuzz_settings(30)
@given(
    stem=_name_bytes,
    directory=_name_bytes.filter(bool),
    output_format=st.sampled_from(sorted(CHECK_REPORTERS)),
    seed=st.sampled_from(SEEDS[:2]),
)
def test_any_file_name_reaches_every_output_format_as_text(stem: bytes, directory: bytes, output_format: str, seed: bytes) -> None:
    with tempfile.TemporaryDirectory(prefix="tlint-fuzz-") as name:
        parent = os.path.join(os.fsencode(name), directory)
        os.mkdir(parent)
        for rank in (0, 1):  # two ranks of one run: its findings are named after the run's stem
            with open(os.path.join(parent, stem + b"rank%d.txt" % rank), "wb") as file:
                file.write(seed.replace(b"rank:7:", b"rank:%d:" % rank))
        code, out, err = check(Path(os.fsdecode(parent)), "--output-format", output_format)
        assert code in (0, 1) and not PYTHON_TRACEBACK.search(out + err)
        (out + err).encode("utf-8")  # strict: what a UTF-8 terminal or file accepts
        if output_format in READERS:
            READERS[output_format](out)
