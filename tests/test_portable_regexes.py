"""Every regex tlint matches with means the same on every Python >= 3.11.

CPython before 3.11.5 (Debian 12's system Python is 3.11.2) mis-matches possessive quantifiers and atomic
groups (gh-100061, gh-106052): with them in the megatron-trace grammar, every real megatron record was a
false TL001 there.  So none may appear: not in a grammar's terminals, not in a regex literal of the
code, not in a pattern a parser derives at start-up.  ``.ci/run`` also runs the grammar and real-file
tests under /usr/bin/python3.11 where that is 3.11.2.
"""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lint import formats
from lint.read.source import Source

ROOT = Path(__file__).resolve().parents[1]
# The regex compiler's own parser (Python 3.11+; typeshed has no stubs for these private modules).
sre_parser: Any = importlib.import_module("re._parser")
sre_constants: Any = importlib.import_module("re._constants")
_UNPORTABLE = {sre_constants.POSSESSIVE_REPEAT: "a possessive quantifier", sre_constants.ATOMIC_GROUP: "an atomic group"}
_RE_FUNCTIONS = {"compile", "match", "fullmatch", "search", "findall", "finditer", "split", "sub", "subn"}


def unportable(pattern: str) -> list[str]:
    """What ``pattern`` holds that old 3.11 releases mis-match."""
    return list(_walk(sre_parser.parse(pattern)))


def _walk(node: Any) -> Iterator[str]:
    if isinstance(node, sre_parser.SubPattern):
        for op, argument in node.data:
            if op in _UNPORTABLE:
                yield _UNPORTABLE[op]
            yield from _walk(argument)
    elif isinstance(node, list | tuple):
        for item in node:
            yield from _walk(item)


def test_the_check_finds_what_it_looks_for() -> None:
    assert unportable(r"[0-9]++x") == ["a possessive quantifier"]
    assert unportable(r"(?:a|(?>bc))") == ["an atomic group"]
    assert unportable(r"(?:a|b)+?(?=c)") == []


def _terminals(grammar: Path) -> Iterator[tuple[str, str]]:
    for line in grammar.read_text(encoding="utf-8").splitlines():
        if match := re.match(r"([A-Z_][A-Z0-9_]*)(?:\.\d+)?\s*:\s*/(.*)/[imsulx]*\s*$", line):
            yield match.group(1), match.group(2)


@pytest.mark.parametrize("grammar", sorted((ROOT / "grammars").glob("*.lark")), ids=lambda path: path.name)
def test_grammar_terminals_are_portable(grammar: Path) -> None:
    terminals = dict(_terminals(grammar))
    assert terminals, "no regex terminal found: the pattern above no longer reads this grammar"
    assert {name: found for name, pattern in terminals.items() if (found := unportable(pattern))} == {}


def _regex_literals(path: Path) -> Iterator[tuple[int, str]]:
    """The string literals passed as a pattern to a function of ``re``."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "re"
            and node.func.attr in _RE_FUNCTIONS
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            yield node.lineno, node.args[0].value


def test_regex_literals_of_the_code_are_portable() -> None:
    found = {
        f"{path.relative_to(ROOT)}:{line}": problems
        for folder in ("lint", "rules")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for line, pattern in _regex_literals(path)
        if (problems := unportable(pattern))
    }
    assert found == {}


def _patterns(value: Any, seen: set[int], depth: int = 0) -> Iterator[re.Pattern[str]]:
    """The compiled patterns ``value`` holds, within a few levels of containers and objects."""
    if id(value) in seen or depth > 4:
        return
    seen.add(id(value))
    if isinstance(value, re.Pattern):
        yield value
    elif isinstance(value, list | tuple | set | frozenset | dict):
        for item in value.values() if isinstance(value, dict) else value:
            yield from _patterns(item, seen, depth + 1)
    elif hasattr(value, "__dict__") and not isinstance(value, type):
        for item in vars(value).values():
            yield from _patterns(item, seen, depth + 1)


@pytest.mark.parametrize("format_name", formats.FORMAT_NAMES)
def test_the_patterns_each_parser_derives_are_portable(format_name: str) -> None:
    parser = formats.parser(format_name)
    for example in sorted((ROOT / "examples").iterdir()):  # parsers derive some patterns on first use
        source = Source(example, str(example))
        if formats.detect(source.head()) == format_name:
            for _ in parser.parse(source.lines()):
                pass
    module = importlib.import_module(type(parser).__module__)
    seen: set[int] = set()
    patterns = [*_patterns(parser, seen), *(value for value in vars(module).values() if isinstance(value, re.Pattern))]
    assert patterns, f"the {format_name} parser keeps no compiled pattern: nothing was checked"
    assert {pattern.pattern[:80]: found for pattern in patterns if isinstance(pattern.pattern, str) and (found := unportable(pattern.pattern))} == {}
