"""What a rule is, and the registry that loads one rule per module from ``rules/``.

A rule knows its stable code, kebab-case name, default severity, formats and scope, typed options,
and its documentation (its docstring).  It only yields :class:`Violation` objects - where and what;
the engine stamps code, name, severity and path on them (as yamllint does).
"""

from __future__ import annotations

import copyreg
import importlib.util
import inspect
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

from lint.resources import rules_dir


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"info": 0, "warning": 1, "error": 2}[self.value]


class Scope(StrEnum):
    PARSER = "parser"  # produced by the readers and parsers themselves
    FILE = "file"  # sees the records of one file, streamed
    RUN = "run"  # sees the per-file summaries of every rank of a run


class RuleOptions(BaseModel):
    """Options of a rule without options; subclasses add typed fields with defaults and descriptions."""

    model_config = ConfigDict(extra="forbid", frozen=True)


@dataclass(slots=True)
class Violation:
    """Where a rule found a problem and what it is."""

    line: int | None
    column: int | None
    message: str
    rank: int | None = None
    path: str | None = None  # run rules name the rank file they blame


def at(record: Any, message: str, column: int | None = None) -> Violation:
    """A violation located at ``record`` (anything with ``line``, ``column`` and maybe ``rank``)."""
    return Violation(record.line, column or record.column, message, getattr(record, "rank", None))


_SECTIONS = ("Why it matters", "Example")


@dataclass(frozen=True)
class RuleDocs:
    summary: str
    why: str
    example: str
    options: list[tuple[str, str, str, str]]  # name, type, default, description


class Rule:
    """Base class of every rule; see ``rules/`` for the rule set."""

    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Severity]
    formats: ClassVar[tuple[str, ...]]
    scope: ClassVar[Scope] = Scope.FILE
    aliases: ClassVar[tuple[str, ...]] = ()  # former codes or names that still select this rule
    # The ``op`` values of the records the rule looks at (None: every record): the engine does not call
    # the rule on the others, which on a trace of millions of records saves most of its calls.
    ops: ClassVar[frozenset[str] | None] = None
    Options: ClassVar[type[RuleOptions]] = RuleOptions

    def __init__(self, options: RuleOptions | None = None) -> None:
        self.options: Any = options if options is not None else self.Options()

    def share(self, shared: dict[type, Any]) -> None:
        """Called before a file's first record, with one dict per file that every rule of the file sees.

        Rules that keep the same per-file state take one copy of it from there (``shared.setdefault``) and
        bind their ``check_<kind>`` attributes to that copy's methods: the engine calls a handler that
        several rules share once per record, so the state is built once however many rules read it (rules
        that share a handler must look at the same records: the same ``ops``).
        """

    def finish(self) -> Iterable[Violation]:
        """Called after the last record: rules that compare across records report here."""
        return ()

    @classmethod
    def handlers(cls) -> dict[str, str]:
        """Record kind -> method name, from the ``check_<kind>`` methods the rule defines."""
        return {name.removeprefix("check_"): name for name in dir(cls) if name.startswith("check_")}

    @classmethod
    def docs(cls) -> RuleDocs:
        text = inspect.cleandoc(cls.__doc__ or "")
        parts = re.split(r"^(" + "|".join(_SECTIONS) + r"):\s*$", text, flags=re.M)
        summary = parts[0].strip()
        sections = {parts[i]: inspect.cleandoc(parts[i + 1]).strip() for i in range(1, len(parts) - 1, 2)}
        options = [(name, _type_name(info.annotation), repr(info.default), info.description or "") for name, info in cls.Options.model_fields.items()]
        return RuleDocs(summary, sections.get("Why it matters", ""), sections.get("Example", ""), options)

    @classmethod
    def summary(cls) -> str:
        return cls.docs().summary.split("\n\n")[0].replace("\n", " ")


def _type_name(annotation: Any) -> str:
    return getattr(annotation, "__name__", None) or str(annotation).replace("typing.", "")


class InstallError(Exception):
    """The installed rule modules cannot make one registry: a user-facing error (exit 2), not a crash."""


@cache
def registry() -> dict[str, type[Rule]]:
    """Every rule, by code, loaded from the rule modules in ``rules/`` (one rule per module)."""
    rules: dict[str, type[Rule]] = {}
    origin: dict[str, Path] = {}
    for path in sorted(rules_dir().glob("tl*.py")):
        rule = _load_rule(path)
        if rule.code in rules:
            # Seen when another distribution left an older rule module in the same folder (a renamed rule):
            # name both files so that the user can tell which one is stale.
            raise InstallError(
                f"{path}: code {rule.code} ({rule.name}) is already defined by {origin[rule.code]} ({rules[rule.code].name}); "
                "a file left by an older install? Reinstall tlint-traces into a fresh environment"
            )
        rules[rule.code] = rule
        origin[rule.code] = path
        if rule.Options.__module__ == rule.__module__:
            # Rule modules are loaded from files, not imported by name, so another process (a Dask worker)
            # could not find an options class by its name: the options travel as their rule's code and values.
            copyreg.dispatch_table[rule.Options] = _rebuilt_by_code(rule.code)
    return rules


def _load_rule(path: Path) -> type[Rule]:
    module_name = f"lint_rules.{path.stem}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise InstallError(f"{path}: not a loadable rule module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as error:  # a broken or stale module must name itself, not end tlint with a traceback
        raise InstallError(f"{path}: cannot load this rule module: {type(error).__name__}: {error}") from None
    found = [obj for obj in vars(module).values() if isinstance(obj, type) and issubclass(obj, Rule) and obj.__module__ == module_name]
    if len(found) != 1:
        raise InstallError(f"{path}: a rule module defines exactly one rule, found {len(found)}")
    return found[0]


def _rebuilt_by_code(code: str) -> Callable[[RuleOptions], tuple[Any, ...]]:
    def reduce(options: RuleOptions) -> tuple[Any, ...]:
        return rule_options, (code, options.model_dump())

    return reduce


def rule_options(code: str, values: dict[str, Any]) -> RuleOptions:
    """The options of rule ``code`` with these values: how a rule's options are rebuilt in another process."""
    return registry()[code].Options(**values)


def lookup(key: str) -> list[type[Rule]]:
    """Rules selected by a code, a name, a code prefix (family) or an alias; [] when none."""
    rules = registry().values()
    exact = [r for r in rules if key in (r.code, r.name) or key in r.aliases]
    if exact:
        return exact
    if re.fullmatch(r"TL[0-9]{0,3}", key):
        return [r for r in rules if r.code.startswith(key)]
    return []


def iter_rules() -> Iterator[type[Rule]]:
    return iter(sorted(registry().values(), key=lambda r: r.code))
