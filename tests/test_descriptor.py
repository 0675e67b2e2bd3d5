"""Every per-format registry is a view of the format descriptors: a format added there is everywhere at once."""

from __future__ import annotations

import ast
import importlib
import sys
import types
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from lint import formats
from lint.check import engine
from lint.check.config_schema import RunLayout
from lint.diff.sides import SideOptions, load_side
from lint.formats.descriptor import Evidence, Format
from lint.models.report import CheckReport
from lint.profile.profile import Profile
from lint.profile.side import Reading
from tests.narrow import typed_parser

ROOT = Path(__file__).resolve().parent.parent
FAKE = Format("fake-trace", "tests.fake_format", "fake-trace", order=0, runs=True, states_layout="fake")


class _FakeParser:
    def parse(self, lines: Iterable[tuple[int, str]]) -> Iterator[Any]:
        return iter(())


def _fake_detect(lines: list[str]) -> Evidence:
    matched = sum(1 for text in lines if text.startswith("FAKE "))
    return Evidence.majority(matched, len([text for text in lines if text.strip()]), "start with FAKE")


def _fake_load(path: str, sources: list[Any], reading: Reading) -> Profile:
    return Profile(format=FAKE.name, path=path, files=len(sources), units={})


@pytest.fixture
def fake_format(monkeypatch: pytest.MonkeyPatch) -> Format:
    """A fifth format, added the way a real one is: one package, its descriptor and the modules of its roles."""
    parser_module = types.ModuleType(FAKE.parser)
    vars(parser_module).update(detect=_fake_detect, Parser=_FakeParser)
    adapter_module = types.ModuleType(FAKE.diff_adapter)
    vars(adapter_module).update(load=_fake_load)
    monkeypatch.setitem(sys.modules, FAKE.parser, parser_module)
    monkeypatch.setitem(sys.modules, FAKE.diff_adapter, adapter_module)
    monkeypatch.setattr(formats, "FORMATS", (FAKE, *formats.FORMATS))
    return FAKE


def test_the_descriptors_name_each_format_once_with_modules_that_exist() -> None:
    names = [f.name for f in formats.FORMATS]
    assert len(set(names)) == len(names)
    assert formats.FORMAT_NAMES == formats.names() == tuple(names)
    assert [f.order for f in formats.FORMATS] == sorted({f.order for f in formats.FORMATS})  # one place each in detection order
    for described in formats.FORMATS:
        assert importlib.import_module(described.package).FORMAT is described
        parser_class = importlib.import_module(described.parser).Parser
        if described.binary:  # read from bytes by its own reader: no grammar
            assert described.grammar is None and hasattr(parser_class, "read")
        else:
            assert (ROOT / "grammars" / f"{described.grammar}.lark").is_file()
            assert typed_parser(described.name, parser_class).grammar.name == described.grammar
        roles = [described.parser, described.model, described.diff_adapter]
        roles += [described.summary] if described.runs else []
        roles += [described.stated] if described.states_layout else []
        for module in roles:
            assert (ROOT / (module.replace(".", "/") + ".py")).is_file(), module


def test_a_described_format_is_detected_in_descriptor_order(fake_format: Format) -> None:
    assert formats.names()[0] == fake_format.name
    assert formats.detect(["FAKE 1", "FAKE 2"]) == fake_format.name
    assert fake_format.name in formats.identify(["nothing known"]).why  # named among the formats tried


def test_a_described_format_has_its_diff_adapter(fake_format: Format, tmp_path: Path) -> None:
    side = tmp_path / "side.txt"
    side.write_text("FAKE 1\nFAKE 2\n", encoding="utf-8")
    assert formats.diff_adapter(fake_format.name) == fake_format.diff_adapter
    assert load_side(str(side), SideOptions()).format == fake_format.name


def test_a_described_run_format_groups_its_rank_files_into_runs(fake_format: Format, tmp_path: Path) -> None:
    for rank in range(2):
        (tmp_path / f"job_rank{rank}.txt").write_text("FAKE 1\n", encoding="utf-8")
    assert formats.run_formats() == {fake_format.name, "megatron-trace", "chakra-et"}
    tasks = engine._plan([str(tmp_path)], engine.CheckOptions(), CheckReport())
    assert [task.format for task in tasks] == [fake_format.name] * 2
    assert all(task.run is not None for task in tasks)


def test_a_described_layout_statement_is_found_by_its_key(fake_format: Format) -> None:
    assert formats.stating_layout("fake") == fake_format
    assert formats.layout_keys()[0] == "fake"


def test_the_configuration_names_a_layout_statement_of_each_stating_format() -> None:
    assert set(formats.layout_keys()) <= set(RunLayout.model_fields)
    assert {formats.stating_layout(key).name for key in formats.layout_keys()} == {"optprime-log", "simai-workload"}


def test_no_module_of_the_linter_keeps_a_registry_of_formats_beside_the_descriptors() -> None:
    """A format's name appears in the code only in its descriptor and as the ``NAME`` of its own modules."""
    names = set(formats.names())
    found = []
    for path in sorted((ROOT / "lint").rglob("*.py")):
        if path.name == "__init__.py" and path.parent.parent == ROOT / "lint" / "formats":  # a format's descriptor
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        named = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["NAME"]}
        found += [
            f"{path.relative_to(ROOT)}:{node.lineno}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and node.value in names and id(node) not in named
        ]
    assert found == []


def test_the_code_points_at_docs_inside_the_repository() -> None:
    """The docs the project needs live in ``docs/``; data outside the repository may be read, its notes not cited."""
    outside = ("FORMATS.md", "PERFORMANCE.md", "shared/FORMATS", "shared/PERFORMANCE")
    cited = [
        f"{path.relative_to(ROOT)}:{number}"
        for folder in ("lint", "rules", "grammars", "docs", "tests")
        for path in sorted((ROOT / folder).rglob("*"))
        if path.suffix in (".py", ".lark", ".md", ".toml")
        for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if any(name in text for name in outside) and path != Path(__file__)
    ]
    assert cited == []
