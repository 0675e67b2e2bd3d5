"""Every real file - the seeds and the public SimAI/ASTRA-sim corpus - parses, and gets no error but
the one real defect of the corpus: the 17-column row of target_10t_workload.txt."""

from __future__ import annotations

import io
import json
from pathlib import Path

from lint.cli import main

FIXTURES = Path(__file__).parent / "fixtures"


def test_real_files_get_no_error_but_the_known_defect() -> None:
    out = io.StringIO()
    code = main(["check", str(FIXTURES / "seeds"), str(FIXTURES / "corpus"), "--output-format", "json", "--max-findings", "0"],
                stdout=out, stderr=io.StringIO())
    report = json.loads(out.getvalue())
    errors = [(Path(f["path"]).name, f["line"], f["code"]) for f in report["findings"] if f["severity"] == "error"]
    assert code == 1
    assert errors == [("simai-ascend__tests__contract__fixtures__target_10t_workload.txt", 3, "TL002")]
    assert [Path(f["path"]).name for f in report["files"] if not f["parsed"]] == ["simai-ascend__tests__contract__fixtures__target_10t_workload.txt"]
    assert report["summary"]["skipped"] == [str(FIXTURES / "corpus" / "simai_workload" / "PROVENANCE.md")]
    assert report["summary"]["checked"] == 34
