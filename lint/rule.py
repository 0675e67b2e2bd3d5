"""What a rule is, and the registry that loads one rule per module from ``rules/``.

A rule knows its stable code, kebab-case name, default severity, formats and scope, typed options,
and its documentation (its docstring).  It only yields :class:`Violation` objects - where and what;
the engine stamps code, name, severity and path on them (as yamllint does).
"""

from __future__ import annotations

import copyreg
import importlib.util
import json
import os
import re
import sys
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping
from enum import StrEnum
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar

from lint.models.common import Record
from lint.models.report import Severity as Severity  # the rule API: a rule module declares its severity with it
from lint.store.digest import hex_digest
from lint.store.resources import rules_dir


class Scope(StrEnum):
    PARSER = "parser"  # produced by the readers and parsers themselves
    FILE = "file"  # sees the records of one file, streamed
    RUN = "run"  # sees the per-file summaries of every rank of a run


class OptionSpec(Record):
    """A rule option's default, and its description and bounds (``ge``, ``gt``, ``le``, ``lt``, as ``pydantic.Field``
    takes them): what :func:`option` declares."""

    __slots__ = ("default", "metadata")

    def __init__(self, default: Any, metadata: dict[str, Any]) -> None:
        self.default = default
        self.metadata = metadata


def option(default: Any, *, description: str, **bounds: Any) -> Any:
    """A field of a rule's options (see :class:`RuleOptions`): its default, its description, and the bounds
    pydantic checks a configured value against."""
    return OptionSpec(default, {"description": description, **bounds})


class RuleOptions(Record):
    """Options of a rule without options.  A rule's options subclass it and declare each option as a class
    attribute, ``tolerance_ms: float = option(0.01, ge=0, description=...)``; an instance holds a value for
    each, set by keyword, immutable, and compared, shown and hashed by them: a Record whose fields are its
    options.

    Plain records: a check with no configured option never imports pydantic; one that configures options
    validates them with pydantic (:func:`validated_options`), the boundary users see, strictly: a value of
    another type is an error (``tolerance_ms = "0.05"``), never converted (an integer is a float all the same).
    """

    specs: ClassVar[dict[str, OptionSpec]] = {}  # name -> its declaration, in the order declared

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        declared = {name: value for name, value in vars(cls).items() if isinstance(value, OptionSpec)}
        cls.specs = {**cls.specs, **declared}
        setattr(cls, "__match_args__", tuple(cls.specs))  # noqa: B010  # its fields, for Record (mypy takes it for read-only)
        for name, spec in declared.items():
            setattr(cls, name, spec.default)  # read on the class, the default, as a dataclass's field

    def __init__(self, **values: Any) -> None:
        unknown = sorted(values.keys() - self.specs.keys())
        if unknown:
            raise TypeError(f"{type(self).__name__} has no option {unknown[0]!r}")
        for name, spec in self.specs.items():
            object.__setattr__(self, name, values.get(name, spec.default))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: cannot set {name!r}")

    __hash__ = Record.hash_of_fields  # immutable

    def values(self) -> dict[str, Any]:
        """Each option's value, by name."""
        return {name: getattr(self, name) for name in self.specs}


def validated_options(options: type[RuleOptions], values: Any) -> RuleOptions:
    """``options`` with the configured ``values``, validated by pydantic (its ValidationError when they are wrong)."""
    from pydantic import ConfigDict, Field, TypeAdapter, create_model

    hints = typing.get_type_hints(options)
    fields: dict[str, Any] = {name: (hints[name], Field(spec.default, **spec.metadata)) for name, spec in options.specs.items()}
    model = create_model(options.__name__, __config__=ConfigDict(extra="forbid", strict=True), **fields)
    checked = TypeAdapter(model).validate_python(values)
    return options(**checked.model_dump())


class Violation(Record):
    """Where a rule found a problem and what it is."""

    __slots__ = ("line", "column", "message", "rank", "path", "peer", "field", "record", "index")

    def __init__(
        self,
        line: int | None,
        column: int | None,
        message: str,
        rank: int | None = None,
        path: str | None = None,
        peer: int | None = None,
        field: str | None = None,
        record: Any = None,
        index: int | None = None,
    ) -> None:
        self.line = line
        self.column = column
        self.message = message
        self.rank = rank
        self.path = path  # run rules name the rank file they blame
        self.peer = peer  # run rules: the other rank of a pair the finding is about (a send's receiver)
        # The field the finding is about, of ``record`` (a sub-operation's: the ``index``-th, from 0); the engine
        # asks the format's parser where it is on the line, which gives the finding's column.
        self.field = field
        self.record = record
        self.index = index


def by_consumer(severities: dict[str, Severity]) -> Mapping[str, Severity]:
    """A rule's ``consumers`` (see Rule.consumers): read-only, as a class attribute must be."""
    return MappingProxyType(severities)


def at(record: Any, message: str, column: int | None = None, *, field: str | None = None, index: int | None = None) -> Violation:
    """A violation located at ``record`` (anything with ``line``, ``column`` and maybe ``rank``), at the column of
    its ``field`` (an attribute of the record, or of its ``index``-th sub-operation) where it can be found."""
    violation = Violation(record.line, column or record.column, message, getattr(record, "rank", None))
    if field is not None:
        violation.field, violation.record, violation.index = field, record, index
    return violation


_SECTIONS = ("Why it matters", "Example")


class RuleDocs(Record):
    """A rule's documentation, from its docstring and its options (what `tlint rule` prints)."""

    __slots__ = ("summary", "why", "example", "options")

    def __init__(self, summary: str, why: str, example: str, options: list[tuple[str, str, str, str]]) -> None:
        self.summary = summary
        self.why = why
        self.example = example
        self.options = options  # name, type, default, description


class Rule:
    """Base class of every rule; see ``rules/`` for the rule set.

    A rule handles the records of a kind with ``check_<kind>(record)``, which yields (or returns) its violations.
    A rule whose conclusion about such a record follows from what the record says alone - its values but its
    line and column, and what the rule learnt before the first record of the kind (a file's header) - may
    say so with ``judge_<kind>(record)``: the engine then judges each distinct record of the file once and
    hands every record its verdict, ``check_<kind>(record, verdict)``.  A workload repeats a few dozen rows
    thousands of times (docs/performance.md, "Rows that repeat").  Records are compared as values: the rule
    must conclude the same of two equal records, whatever their text.
    """

    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Severity]
    formats: ClassVar[tuple[str, ...]]
    scope: ClassVar[Scope] = Scope.FILE
    aliases: ClassVar[tuple[str, ...]] = ()  # former codes or names that still select this rule
    # The ``op`` values of the op records the rule looks at (None: every record): the engine does not call
    # the rule on the others, which on a trace of millions of records saves most of its calls.  Records
    # of no op (syntax problems, say) still reach the rule's handler of their kind.
    ops: ClassVar[frozenset[str] | None] = None
    Options: ClassVar[type[RuleOptions]] = RuleOptions
    # The consumers of its format the rule holds for, each with the severity of a finding for it
    # (lint.models.consumers): a file judged for another consumer is not checked by it.  Empty: every consumer, at
    # ``severity``.  A rule that names consumers need not state ``severity``: it is the highest of theirs.
    consumers: ClassVar[Mapping[str, Severity]] = MappingProxyType({})

    def __init__(self, options: RuleOptions | None = None) -> None:
        self.options: Any = options if options is not None else self.Options()
        self.consumer: str | None = None  # the consumer the file is judged for (the engine sets it): what messages name

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.consumers and "severity" not in vars(cls):
            cls.severity = max(cls.consumers.values(), key=lambda severity: severity.rank)

    @classmethod
    def severity_for(cls, consumer: str | None) -> Severity | None:
        """The severity of a finding on a file judged for ``consumer``; None when the rule does not hold for it."""
        if not cls.consumers:
            return cls.severity
        return cls.consumers.get(consumer) if consumer is not None else None

    def finish(self) -> Iterable[Violation]:
        """Called after the last record: rules that compare across records report here."""
        return ()

    @classmethod
    def handlers(cls) -> dict[str, tuple[str, str | None]]:
        """Record kind -> the names of the rule's ``check_<kind>`` method and of its ``judge_<kind>`` method (None:
        it judges every record itself), from the methods the rule defines (asked once per class: the engine asks
        it for every file)."""
        return _handlers_of(cls)

    @classmethod
    def docs(cls) -> RuleDocs:
        import inspect  # the docs of a rule are read by `tlint rule`, not by a check

        text = inspect.cleandoc(cls.__doc__ or "")
        parts = re.split(r"^(" + "|".join(_SECTIONS) + r"):\s*$", text, flags=re.M)
        summary = parts[0].strip()
        sections = {parts[i]: inspect.cleandoc(parts[i + 1]).strip() for i in range(1, len(parts) - 1, 2)}
        hints = typing.get_type_hints(cls.Options)
        options = [(name, _type_name(hints[name]), repr(spec.default), spec.metadata.get("description", "")) for name, spec in cls.Options.specs.items()]
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
    return rules


_HANDLERS: dict[type[Rule], dict[str, tuple[str, str | None]]] = {}


def _handlers_of(rule: type[Rule]) -> dict[str, tuple[str, str | None]]:
    found = _HANDLERS.get(rule)
    if found is None:
        names = dir(rule)
        kinds = [name.removeprefix("check_") for name in names if name.startswith("check_")]
        found = _HANDLERS[rule] = {kind: (f"check_{kind}", f"judge_{kind}" if f"judge_{kind}" in names else None) for kind in kinds}
    return found


class Listed(Record):
    """What selecting a rule needs to know of it, without loading its module: a check loads only the rules
    of the formats it reads (the others' modules import the models of their own formats)."""

    __slots__ = ("code", "name", "severity", "formats", "scope", "aliases", "module", "defaults", "consumers")

    def __init__(
        self,
        code: str,
        name: str,
        severity: Severity,
        formats: tuple[str, ...],
        scope: Scope,
        aliases: tuple[str, ...],
        module: str,
        defaults: dict[str, Any],
        consumers: dict[str, Severity],
    ) -> None:
        self.code = code
        self.name = name
        self.severity = severity
        self.formats = formats
        self.scope = scope
        self.aliases = aliases
        self.module = module  # its file in ``rules/``
        self.defaults = defaults  # its default options as JSON values (what cache keys are made of)
        self.consumers = consumers  # see Rule.consumers

    def severity_for(self, consumer: str | None) -> Severity | None:
        """See :meth:`Rule.severity_for`."""
        if not self.consumers:
            return self.severity
        return self.consumers.get(consumer) if consumer is not None else None

    def load(self) -> type[Rule]:
        rule = _load_rule(rules_dir() / self.module)
        if rule.code != self.code:  # a listing out of date with the files cannot happen: it is keyed on them
            raise InstallError(f"{rules_dir() / self.module}: defines {rule.code}, listed as {self.code}")
        return rule

    def as_json(self) -> list[Any]:
        consumers = {name: severity.value for name, severity in self.consumers.items()}
        return [self.code, self.name, self.severity.value, list(self.formats), self.scope.value, list(self.aliases), self.module, self.defaults, consumers]

    @classmethod
    def from_json(cls, value: list[Any]) -> Listed:
        code, name, severity, formats, scope, aliases, module, defaults, consumers = value
        if not (all(isinstance(text, str) for text in (code, name, module, *formats, *aliases)) and isinstance(defaults, dict) and isinstance(consumers, dict)):
            raise TypeError("not a rule listing")
        by_consumer = {str(consumer): Severity(level) for consumer, level in consumers.items()}
        return cls(code, name, Severity(severity), tuple(formats), Scope(scope), tuple(aliases), module, defaults, by_consumer)

    @classmethod
    def of(cls, rule: type[Rule]) -> Listed:
        import inspect

        module = Path(inspect.getfile(rule)).name
        return cls(
            rule.code,
            rule.name,
            rule.severity,
            tuple(rule.formats),
            rule.scope,
            tuple(rule.aliases),
            module,
            options_json(rule.Options()),
            dict(rule.consumers),
        )


def options_json(options: RuleOptions) -> dict[str, Any]:
    """A rule's options as JSON values: what cache keys hold of them."""
    values: dict[str, Any] = json.loads(json.dumps(options.values(), default=str))
    return values


@cache
def catalog() -> dict[str, Listed]:
    """Every rule, by code, as :class:`Listed`: derived from the rule modules by loading them all (as
    :func:`registry` does) and remembered in the cache directory, keyed by the text of all of tlint's code
    and rules, so that a check does not load the modules of rules it will not run.  A missing or damaged
    memo costs loading them all again."""
    from lint.store import disk as memo  # the fingerprint of tlint's code and the cache's atomic writes

    modules = _rule_module_names()
    try:
        key = _catalog_key(memo.code_fingerprint(), modules)
    except OSError:  # a rule module that cannot be read: loading them all says which
        key = None
    if key is not None and (remembered := memo.recall(key)) is not None:
        try:
            listing = {listed.code: listed for listed in map(Listed.from_json, json.loads(remembered))}
            if sorted(listed.module for listed in listing.values()) == modules:
                return listing
        except (ValueError, TypeError, RecursionError):  # json recurses: a memo nested thousands deep exhausts the stack
            pass  # damaged: listed again below, and the memo rewritten
    listing = {code: Listed.of(rule) for code, rule in registry().items()}
    if key is not None:
        memo.remember(key, json.dumps([listed.as_json() for listed in listing.values()]).encode())
    return listing


def _rule_module_names() -> list[str]:
    """The names of the rule modules :func:`registry` loads (``rules/tl*.py``), sorted."""
    return sorted(name for name in os.listdir(rules_dir()) if name.startswith("tl") and name.endswith(".py"))  # not glob: its pattern costs start-up


def _catalog_key(code_fingerprint: str, modules: list[str]) -> str:
    """tlint's code (the rule modules' text among it: see :func:`lint.store.disk.code_fingerprint`) and the
    names of the rule modules this registry loads."""
    return hex_digest(b"rule catalog", code_fingerprint.encode(), *map(os.fsencode, modules))


def rule_class(code: str) -> type[Rule]:
    """The rule ``code`` (KeyError for none), its module loaded on first use."""
    return catalog()[code].load()


@cache
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
    rule: type[Rule] = found[0]
    if rule.Options.__module__ == rule.__module__:
        # Rule modules are loaded from files, not imported by name, so another process (a Dask worker)
        # could not find an options class by its name: the options travel as their rule's code and values.
        copyreg.dispatch_table[rule.Options] = _rebuilt_by_code(rule.code)
    return rule


def _rebuilt_by_code(code: str) -> Callable[[RuleOptions], tuple[Any, ...]]:
    def reduce(options: RuleOptions) -> tuple[Any, ...]:
        return rule_options, (code, options.values())

    return reduce


def rule_options(code: str, values: dict[str, Any]) -> RuleOptions:
    """The options of rule ``code`` with these values: how a rule's options are rebuilt in another process."""
    return rule_class(code).Options(**values)


def lookup(key: str) -> list[Listed]:
    """Rules selected by a code, a name, a code prefix (family) or an alias; [] when none."""
    rules = catalog().values()
    exact = [r for r in rules if key in (r.code, r.name) or key in r.aliases]
    if exact:
        return exact
    if re.fullmatch(r"TL[0-9]{0,3}", key):
        return [r for r in rules if r.code.startswith(key)]
    return []


def did_you_mean(wrong: str, known: Iterable[str]) -> str:
    """ "; did you mean 'x'?" naming the closest of ``known`` to ``wrong`` (a mistyped rule, flag or choice), or ""."""
    import difflib

    close = difflib.get_close_matches(wrong, list(known), n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


def rule_suggestion(key: str) -> str:
    """:func:`did_you_mean` among the rule codes, names and aliases."""
    return did_you_mean(key, [word for listed in catalog().values() for word in (listed.code, listed.name, *listed.aliases)])


def iter_rules() -> Iterator[type[Rule]]:
    return iter(sorted(registry().values(), key=lambda r: r.code))
