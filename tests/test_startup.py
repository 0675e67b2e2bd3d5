"""What a command imports: `tlint --version` nothing heavy, a check of one file only what checking needs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "megatron-trace_rank7.txt"


def imported_by(*argv: str) -> set[str]:
    """The modules loaded by ``tlint ARGV`` in a fresh interpreter (the command's own output discarded)."""
    probe = (
        "import io, json, sys; from lint.cli import main; "
        f"main({list(argv)!r}, stdout=io.StringIO(), stderr=io.StringIO()); print(json.dumps(sorted(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    return set(json.loads(done.stdout.splitlines()[-1]))


def top_level(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


def test_version_imports_no_validation_rendering_or_parsing_library() -> None:
    modules = imported_by("--version")
    assert top_level(modules).isdisjoint({"pydantic", "pydantic_core", "rich", "lark", "distributed", "dask"})
    assert {name for name in modules if name.startswith("lint.")} == {"lint.cli"}


def test_checking_one_file_imports_no_renderer_or_cluster_client_it_does_not_use() -> None:
    modules = imported_by("check", str(EXAMPLE), "--no-cache", "--jobs", "1")
    assert "lint.engine" in modules and "lint.report.concise" in modules
    assert top_level(modules).isdisjoint({"rich", "distributed", "dask"})
    assert not {name for name in modules if name.startswith(("lint.diff", "lint.report.diff", "lint.report.sarif", "lint.baseline"))}
