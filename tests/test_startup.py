"""What a command imports: `tlint --version` nothing heavy, a check of one file only what checking needs."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "megatron-trace_rank7.txt"


def imported_by(*argv: str, env: dict[str, str] | None = None) -> set[str]:
    """The modules loaded by ``tlint ARGV`` in a fresh interpreter (the command's own output discarded; the
    probe itself imports nothing but io and sys, which Python has loaded already)."""
    probe = f"import io, sys; from lint.cli import main; main({list(argv)!r}, stdout=io.StringIO(), stderr=io.StringIO()); print(sorted(sys.modules))"
    environment = {**os.environ, **(env or {})}
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True, env=environment)
    modules: list[str] = ast.literal_eval(done.stdout.splitlines()[-1])
    return set(modules)


def top_level(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


def test_version_imports_no_validation_rendering_or_parsing_library() -> None:
    modules = imported_by("--version")
    assert top_level(modules).isdisjoint({"pydantic", "pydantic_core", "rich", "lark", "distributed", "dask"})
    assert {name for name in modules if name.startswith("lint.")} == {"lint.cli"}
    # nor the standard library's heavier modules: the command line is parsed only for a command
    assert top_level(modules).isdisjoint({"argparse", "re", "typing", "contextlib", "pathlib"})


def test_checking_one_file_imports_no_renderer_or_cluster_client_it_does_not_use() -> None:
    modules = imported_by("check", str(EXAMPLE), "--no-cache", "--jobs", "1")
    assert "lint.check.engine" in modules and "lint.report.concise" in modules
    assert top_level(modules).isdisjoint({"rich", "distributed", "dask"})
    assert not {name for name in modules if name.startswith(("lint.diff", "lint.models.diff", "lint.report.diff", "lint.report.sarif", "lint.check.baseline"))}
    assert "lint.models.categories" not in modules  # the diff's, imported for its own arguments only


def test_a_check_in_a_warm_cache_directory_finds_the_formats_without_pkgutil(tmp_path: Path) -> None:
    cache = {"TLINT_CACHE_DIR": str(tmp_path / "cache")}
    imported_by("check", str(EXAMPLE), "--no-cache", "--jobs", "1", env=cache)  # the first reads the grammar with Lark, which imports it
    assert "pkgutil" not in imported_by("check", str(EXAMPLE), "--no-cache", "--jobs", "1", env=cache)


def test_a_plain_check_validates_and_renders_with_neither_pydantic_nor_rich(tmp_path: Path) -> None:
    """pydantic reads a configuration (past its plain keys) and writes JSON or SARIF; rich draws the progress
    bar of a terminal and the full format: a concise check of a file without them imports neither."""
    cache = {"TLINT_CACHE_DIR": str(tmp_path / "cache")}
    imported_by("check", str(EXAMPLE), "--jobs", "1", env=cache)  # the first reads the grammar with Lark, and fills the cache
    for argv in (("--no-cache",), ()):  # read, and served from the cache
        modules = imported_by("check", str(EXAMPLE), "--jobs", "1", *argv, env=cache)
        assert top_level(modules).isdisjoint({"pydantic", "pydantic_core", "rich", "lark"})


def test_a_check_keys_its_memos_without_openssl(tmp_path: Path) -> None:
    """hashlib imports _hashlib, which loads OpenSSL: the cache's and the memos' keys are BLAKE2b from _blake2."""
    cache = {"TLINT_CACHE_DIR": str(tmp_path / "cache")}
    imported_by("check", str(EXAMPLE), "--jobs", "1", env=cache)  # the first fills the cache (Lark, which imports hashlib)
    for argv in (("--no-cache",), ()):
        assert top_level(imported_by("check", str(EXAMPLE), "--jobs", "1", *argv, env=cache)).isdisjoint({"hashlib", "_hashlib"})


def test_an_unchanged_configuration_is_read_without_tomllib(tmp_path: Path) -> None:
    """The project's pyproject.toml (its [tool.tlint]) is parsed once, then read from the cache directory."""
    cache = {"TLINT_CACHE_DIR": str(tmp_path / "cache")}
    assert "tomllib" in imported_by("check", str(EXAMPLE), "--no-cache", "--jobs", "1", env=cache)
    assert "tomllib" not in imported_by("check", str(EXAMPLE), "--no-cache", "--jobs", "1", env=cache)


def test_a_check_finds_the_terminals_width_without_shutil(tmp_path: Path) -> None:
    """argparse's help formatter asks shutil, which imports zlib, bz2 and lzma; tlint's asks os."""
    cache = {"TLINT_CACHE_DIR": str(tmp_path / "cache")}
    imported_by("check", str(EXAMPLE), "--no-cache", "--jobs", "1", env=cache)  # the first writes memos (tempfile imports shutil)
    assert top_level(imported_by("check", str(EXAMPLE), "--no-cache", "--jobs", "1", env=cache)).isdisjoint({"shutil", "bz2", "lzma"})


def test_the_grammars_answers_are_remembered_not_derived_again(tmp_path: Path) -> None:
    """The fast path's regexes are derived from the grammar's EBNF once; later checks read them from the cache
    directory (lint.parse.grammar), without the EBNF, the derivation or the Python-literal reader."""
    cache = {"TLINT_CACHE_DIR": str(tmp_path / "cache")}
    first = imported_by("check", str(EXAMPLE), "--no-cache", "--jobs", "1", env=cache)
    assert "lint.parse.ebnf" in first
    modules = imported_by("check", str(EXAMPLE), "--no-cache", "--jobs", "1", env=cache)
    assert "lint.formats.megatron_trace.parser" in modules
    assert not modules & {"lint.parse.ebnf", "lint.parse.pyliteral"}


NEUSIGHT = ROOT / "examples" / "neusight-gpt2-large.tsv"


def test_checking_a_file_loads_only_the_rules_and_models_of_its_format() -> None:
    from lint.rule import catalog

    imported_by("check", str(NEUSIGHT), "--no-cache", "--jobs", "1")  # the first run in a cache directory remembers the catalog
    modules = imported_by("check", str(NEUSIGHT), "--no-cache", "--jobs", "1")
    loaded = {name.removeprefix("lint_rules.") for name in modules if name.startswith("lint_rules.")}
    neusight_rules = {Path(listed.module).stem for listed in catalog().values() if "neusight-tsv" in listed.formats}
    assert loaded and loaded <= neusight_rules
    # of the formats after it in detection order, only the descriptors are read (a format package's __init__)
    assert not {name for name in modules if name.startswith(("lint.formats.optprime_log.", "lint.formats.simai_workload."))}


def test_a_check_served_from_the_cache_loads_no_rule_no_parser_and_no_lark(tmp_path: Path) -> None:
    cache = {"TLINT_CACHE_DIR": str(tmp_path / "cache")}
    imported_by("check", str(EXAMPLE), "--jobs", "1", env=cache)
    for output_format in ("concise", "json"):  # the project's pyproject.toml, with its [tool.tlint], is read too
        modules = imported_by("check", str(EXAMPLE), "--jobs", "1", "--output-format", output_format, env=cache)
        # of the formats, only their descriptors are read (each package's __init__), and no module of their roles
        assert not {
            name for name in modules if name.startswith(("lint_rules.", "lint.parse.grammar")) or (name.count(".") > 2 and name.startswith("lint.formats."))
        }
        # a named file is not walked (pathspec) and starts no worker (multiprocessing); the report and the
        # configuration are pydantic models, the boundary users see
        assert top_level(modules).isdisjoint({"lark", "pathspec", "multiprocessing"})


@pytest.mark.parametrize(
    ("example", "parser"),
    [
        (EXAMPLE, "lint.formats.megatron_trace.parser"),
        (NEUSIGHT, "lint.formats.neusight_tsv.parser"),
        (ROOT / "examples" / "optprime-log.txt", "lint.formats.optprime_log.parser"),
        (ROOT / "examples" / "simai-workload.txt", "lint.formats.simai_workload.parser"),
    ],
)
def test_a_file_whose_lines_all_take_the_fast_path_does_not_import_lark(tmp_path: Path, example: Path, parser: str) -> None:
    cache = {"TLINT_CACHE_DIR": str(tmp_path / "cache")}  # holds the grammar's rules after the first check
    imported_by("check", str(example), "--no-cache", "--jobs", "1", env=cache)
    modules = imported_by("check", str(example), "--no-cache", "--jobs", "1", env=cache)
    assert parser in modules
    assert "lark" not in top_level(modules)


def test_a_megatron_check_makes_no_dataclass(tmp_path: Path) -> None:
    """@dataclass compiles generated code per class, and its module imports inspect, ast, dis and tokenize:
    the records a check of a megatron-trace file meets are Records (lint.models.common)."""
    cache = {"TLINT_CACHE_DIR": str(tmp_path / "cache")}
    imported_by("check", str(EXAMPLE), "--jobs", "1", env=cache)  # the first reads the grammar with Lark, which makes some
    for argv in (("--no-cache",), ()):
        assert top_level(imported_by("check", str(EXAMPLE), "--jobs", "1", *argv, env=cache)).isdisjoint({"dataclasses", "inspect", "ast"})
