"""Configuration: ``[tool.tlint]`` in ``pyproject.toml`` or a ``tlint.toml``, plus command-line overrides.

Selection works like ruff's: ``select`` (all rules by default) plus ``extend-select``, minus ``ignore``;
each entry is a code, a name, an alias or a code prefix (a family), and where a rule is matched by both
sides the more specific entry wins (an exact code beats a family prefix).  The command line is a layer
over the file: its ``--select`` starts the selection afresh (the file's ``ignore`` included) and its
``--extend-select`` switches on a rule the file ignores, as in ruff.
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import re
import sys
from collections.abc import Iterable
from functools import cache, lru_cache
from pathlib import Path, PurePosixPath
from typing import Any

from lint import formats
from lint.check import config_memo
from lint.models.common import Record
from lint.models.consumers import Judged
from lint.models.errors import ConfigError
from lint.models.report import Severity
from lint.rule import Listed, Rule, RuleOptions, Scope, catalog, lookup, options_json, rule_class, rule_suggestion

CONFIG_FILES = (".tlint.toml", "tlint.toml", "pyproject.toml")  # in one folder, the first found wins (as ruff's)


class FileConfig(Record):
    """The keys of ``[tool.tlint]`` (or of a whole ``tlint.toml``), as read (:mod:`lint.check.config_schema`
    says what each may hold): the defaults, each set by keyword."""

    __slots__ = (
        "select",
        "extend_select",
        "ignore",
        "severity",
        "rules",
        "per_path_ignores",
        "consumer",
        "per_path_consumer",
        "fail_on",
        "max_findings",
        "runs",
        "exclude",
        "extend_exclude",
        "respect_gitignore",
    )

    def __init__(self, **keys: Any) -> None:
        self.select: list[str] | None = None
        self.extend_select: list[str] = []
        self.ignore: list[str] = []
        self.severity: dict[str, Severity] = {}
        self.rules: dict[str, dict[str, Any]] = {}  # rule code or name -> options
        self.per_path_ignores: dict[str, list[str]] = {}
        self.consumer: str | None = None  # the program the files are judged for (`tlint check --help` lists them)
        self.per_path_consumer: dict[str, str] = {}  # glob -> consumer of the files it matches
        self.fail_on: Severity | None = None
        self.max_findings: int | None = None
        self.runs: dict[str, Any] = {}  # glob -> its RunLayout (lint.check.config_schema)
        self.exclude: list[str] | None = None  # gitignore-style patterns left out when walking
        self.extend_exclude: list[str] = []
        self.respect_gitignore = True
        for key, value in keys.items():  # the schema's keys (lint.check.config_schema), validated
            setattr(self, key, value)


class Overrides(Record):
    """What the command line says about selection; it takes precedence over the file."""

    __slots__ = ("select", "extend_select", "ignore", "consumer")

    def __init__(
        self, select: list[str] | None = None, extend_select: list[str] | None = None, ignore: list[str] | None = None, consumer: str | None = None
    ) -> None:
        self.select = select
        self.extend_select = extend_select or []
        self.ignore = ignore or []
        self.consumer = consumer


class ConsumerChoice(Record):
    """A consumer the user names, and where (what the report gives as the reason)."""

    __slots__ = ("name", "where")

    def __init__(self, name: str, where: str) -> None:
        self.name = name
        self.where = where


class Selection(Record):
    """The enabled rules with their effective severity and options, per-path ignores, and the consumers the
    user names (see :meth:`consumer_for`)."""

    __slots__ = (
        "severities",
        "options",
        "per_path_ignores",
        "root",
        "configured_severities",
        "command_line_consumer",
        "per_path_consumers",
        "consumer",
    )

    def __init__(
        self,
        severities: dict[str, Severity],
        options: dict[str, RuleOptions],
        per_path_ignores: list[tuple[str, frozenset[str]]],
        root: Path,
        configured_severities: dict[str, Severity],
        command_line_consumer: ConsumerChoice | None,
        per_path_consumers: list[tuple[str, ConsumerChoice]],
        consumer: ConsumerChoice | None,
    ) -> None:
        self.severities = severities
        self.options = options  # of enabled rules: as configured, else made on first use
        self.per_path_ignores = per_path_ignores
        self.root = root
        self.configured_severities = configured_severities  # the configuration's `severity` table: for every consumer
        self.command_line_consumer = command_line_consumer
        self.per_path_consumers = per_path_consumers
        self.consumer = consumer

    @classmethod
    def default(cls) -> Selection:
        return build_selection(FileConfig(), Overrides(), Path.cwd(), "defaults")

    def enabled(self, code: str) -> bool:
        return code in self.severities

    def rules_for(self, format_name: str, scope: Scope, consumer: str | None = None) -> list[Rule]:
        """The enabled rules of ``scope`` that read ``format_name`` and hold for ``consumer`` (see Rule.consumers),
        made with their options (only their modules loaded)."""
        made = []
        for rule_type in _rule_classes(frozenset(self.severities), format_name, scope):
            if rule_type.severity_for(consumer) is not None or consumer is None:
                rule = rule_type(self.options_of(rule_type.code))
                rule.consumer = consumer
                made.append(rule)
        return made

    def severity_of(self, code: str, consumer: str | None) -> Severity:
        """The severity of rule ``code``'s findings on a file judged for ``consumer``: as configured, else the rule's for it."""
        configured = self.configured_severities.get(code)
        if configured is not None:
            return configured
        if consumer is not None and (for_consumer := catalog()[code].severity_for(consumer)) is not None:
            return for_consumer
        return self.severities.get(code, Severity.ERROR)

    def consumer_for(self, path: str, format_name: str) -> Judged | None:
        """The consumer the user names for ``path`` among those that read ``format_name``: ``--consumer``, else the
        last ``per-path-consumer`` pattern that matches it, else ``consumer``; None when none is named (the
        format then infers it from the file)."""
        matching = [choice for pattern, choice in reversed(self.per_path_consumers) if self._matches(path, pattern)]
        for choice in (self.command_line_consumer, *matching, self.consumer):
            if choice is not None and formats.consumer_reads(choice.name, format_name):
                return Judged(choice.name, choice.where)
        return None

    def options_of(self, code: str) -> RuleOptions:
        """The options of enabled rule ``code``: as configured, else its defaults."""
        if code not in self.options:
            self.options[code] = rule_class(code).Options()
        return self.options[code]

    def options_json(self, format_name: str) -> dict[str, dict[str, Any]]:
        """The options of the enabled rules that read ``format_name``, as JSON values: what a file's result
        depends on.  Default options are read from the catalog, so that a check served from the cache loads
        no rule module."""
        listed = catalog()
        return {
            code: options_json(self.options[code]) if code in self.options else listed[code].defaults
            for code in sorted(self.severities)
            if format_name in listed[code].formats
        }

    def ignored_for(self, path: str) -> frozenset[str]:
        """Codes that per-path ignores switch off for ``path``."""
        if not self.per_path_ignores:
            return frozenset()
        codes: set[str] = set()
        for pattern, ignored in self.per_path_ignores:
            if self._matches(path, pattern):
                codes |= ignored
        return frozenset(codes)

    def _matches(self, path: str, pattern: str) -> bool:
        """Whether ``path`` as given, or relative to the configuration's folder, matches the glob ``pattern``."""
        candidates = {PurePosixPath(Path(path).as_posix())}
        with contextlib.suppress(ValueError):  # a path outside the root matches the patterns as given only
            candidates.add(PurePosixPath(Path(path).resolve().relative_to(self.root.resolve()).as_posix()))
        return any(fnmatch.fnmatchcase(str(candidate), pattern) for candidate in candidates)


class Settings(Record):
    """Everything configuration decides for a check."""

    __slots__ = ("selection", "fail_on", "max_findings", "runs", "source", "exclude", "extend_exclude", "respect_gitignore")

    def __init__(
        self,
        selection: Selection,
        fail_on: Severity | None,
        max_findings: int | None,
        runs: dict[str, Any],
        source: str,
        exclude: list[str] | None,
        extend_exclude: list[str],
        respect_gitignore: bool,
    ) -> None:
        self.selection = selection
        self.fail_on = fail_on
        self.max_findings = max_findings
        self.runs = runs  # glob -> its RunLayout (lint.check.config_schema)
        self.source = source  # the file the settings came from, or "defaults"
        self.exclude = exclude  # None: the walker's defaults
        self.extend_exclude = extend_exclude
        self.respect_gitignore = respect_gitignore


def find_config(paths: Iterable[str]) -> Path | None:
    """The first .tlint.toml, tlint.toml, or pyproject.toml with a [tool.tlint] table, walking up from the paths."""
    # realpath, not Path.resolve: a named symbolic link loop is reported by the walk, not raised here.
    starts = [Path(os.path.realpath(p)) for p in paths] or [Path.cwd()]
    seen: set[Path] = set()
    for start in starts:
        # os.path, not Path: a folder without permission on the way is no configuration, not a PermissionError
        # (the walk reports what it cannot read).
        directory = start if os.path.isdir(start) else start.parent
        for folder in (directory, *directory.parents):
            if folder in seen:
                break
            seen.add(folder)
            for name in CONFIG_FILES:
                candidate = folder / name
                if os.path.isfile(candidate) and (name != "pyproject.toml" or _has_tool_table(candidate)):
                    return candidate
    return None


def _has_tool_table(pyproject: Path) -> bool:
    """Whether ``pyproject`` has a [tool.tlint] table; ConfigError when it is no TOML (as ruff, tlint does not
    pass over a configuration it cannot read: its settings would silently be lost)."""
    return _tool_table(_parse_toml(pyproject)[1]) is not None


def _parse_toml(path: Path) -> tuple[str, dict[str, Any]]:
    """The text of ``path`` and what it holds; ConfigError naming the file, line and column where it is no TOML."""
    from lint.models.errors import InputError
    from lint.store.files import open_regular  # here: reading a configuration needs none of it otherwise

    try:
        with open_regular(path, str(path)) as stream:
            raw = stream.read()
        text = raw.decode("utf-8")
        return text, _toml(str(path), text)
    except InputError as error:
        raise ConfigError(str(error)) from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise ConfigError(f"{path}:{line}: not valid TOML: invalid UTF-8 byte 0x{raw[error.start]:02x}") from None
    except _toml_error() as error:  # imported only when an exception gets this far: a remembered file needs no tomllib
        # tomllib says where as "(at line 3, column 5)" (it has no attributes for it before Python 3.14)
        message = str(error)
        if where := re.search(r" \(at line (\d+), column (\d+)\)$", message):
            message, place = message[: where.start()], f":{where.group(1)}:{where.group(2)}"
        elif message.endswith(" (at end of document)"):
            message, place = message.removesuffix(" (at end of document)") + " at the end of the file", f":{text.rstrip().count(chr(10)) + 1}"
        else:
            place = ""
        raise ConfigError(f"{path}{place}: not valid TOML: {message}") from None
    except RecursionError:
        # tomllib descends into nested arrays and inline tables recursively: a few thousand `[` exhaust the stack.
        raise ConfigError(f"{path}: not valid TOML: arrays or inline tables nested too deeply") from None
    except ValueError as error:
        # Not a TOMLDecodeError: Python refuses to convert an integer of more than sys.get_int_max_str_digits()
        # digits (4,300 by default), and tomllib lets that ValueError through.
        limit = sys.get_int_max_str_digits()
        if (digits := re.search(rf"\d{{{limit + 1},}}", text)) is None:
            raise ConfigError(f"{path}: not valid TOML: {error}") from None
        line = text.count("\n", 0, digits.start()) + 1
        raise ConfigError(f"{path}:{line}: not valid TOML: an integer of more than {limit:,} digits") from None


@lru_cache(maxsize=1)  # find_config reads a pyproject.toml for its [tool.tlint], then load_settings reads it: parsed once
def _toml(path: str, text: str) -> dict[str, Any]:
    """The document ``text`` of ``path`` as far as tlint reads it: remembered in the cache directory
    (:mod:`lint.check.config_memo`), so that a file parsed before, unchanged since, needs no tomllib."""
    if (remembered := config_memo.recall(path, text)) is not None:
        return remembered
    import tomllib

    document = tomllib.loads(text)
    if os.path.basename(path) == "pyproject.toml":  # of the project's file, only tlint's table
        table = _tool_table(document)
        document = {} if table is None else {"tool": {"tlint": table}}
    config_memo.remember(path, text, document)
    return document


def _toml_error() -> type[Exception]:
    import tomllib

    return tomllib.TOMLDecodeError


def _tool_table(pyproject: dict[str, Any]) -> object:
    """What ``[tool.tlint]`` holds, None when there is none: ``tool`` may be any value (`tool = 5`), not only a table."""
    tool = pyproject.get("tool")
    return tool.get("tlint") if isinstance(tool, dict) else None


def load_settings(config_path: Path | None, overrides: Overrides) -> Settings:
    """Read ``config_path`` (None: defaults) and apply the command-line ``overrides``."""
    if config_path is None:
        file_config, root, source, where = FileConfig(), Path.cwd(), "defaults", None
    else:
        where = ConfigFile.read(config_path)
        file_config, root, source = _read(where), config_path.resolve().parent, str(config_path)
    selection = build_selection(file_config, overrides, root, source, where)
    return Settings(
        selection,
        file_config.fail_on,
        file_config.max_findings,
        file_config.runs,
        source,
        file_config.exclude,
        file_config.extend_exclude,
        file_config.respect_gitignore,
    )


class ConfigFile(Record):
    """A configuration file's table of tlint settings, and where in its text each key is: errors name the
    file, the line and the key."""

    __slots__ = ("path", "text", "table", "settings")

    def __init__(self, path: Path, text: str, table: tuple[str, ...], settings: Any) -> None:
        self.path = path
        self.text = text
        self.table = table  # where the settings are: ("tool", "tlint") in a pyproject.toml, () in a tlint.toml
        self.settings = settings

    @classmethod
    def read(cls, path: Path) -> ConfigFile:
        text, data = _parse_toml(path)
        if path.name == "pyproject.toml":
            table = _tool_table(data)
            return cls(path, text, ("tool", "tlint"), {} if table is None else table)
        return cls(path, text, (), data)

    def problem(self, keys: tuple[str, ...], what: str) -> str:
        """``file:line: key 'a.b': what`` (``what`` holds ``{key}`` where the key goes); the line where the key is
        set, else its table's, when it can be found."""
        line = key_line(self.text, (*self.table, *keys))
        table = f"[{'.'.join(self.table)}] " if self.table else ""
        key = f"{table}key '{'.'.join(keys)}'" if keys else f"the table {table}".strip()  # no key: the table itself is wrong
        return f"{self.path}{f':{line}' if line else ''}: {what.replace('{key}', key, 1)}"  # not format(): what quotes the file


def key_line(text: str, keys: tuple[str, ...]) -> int | None:
    """The line of TOML ``text`` that sets the key at ``keys`` (tables, then keys); where no line does - it is
    set in an inline table, or is missing from its table - the line of the closest table or key around it."""
    table: tuple[str, ...] = ()
    best, depth = None, 0
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if header := re.match(r"\[\[?([^\]]*)\]\]?\s*(?:#.*)?$", stripped):
            table = _toml_key(header.group(1))
            found = table
        elif (assignment := re.match(r"""((?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*'))*)\s*=""", stripped)) is not None:
            found = (*table, *_toml_key(assignment.group(1)))
        else:
            continue
        shared = len(found) if keys[: len(found)] == found else 0
        if shared == len(keys) and found == keys:
            return number
        if shared > depth:
            best, depth = number, shared
    return best


def _toml_key(text: str) -> tuple[str, ...]:
    """The parts of a dotted TOML key (``a."b.c".d``)."""
    return tuple(part.strip().strip("\"'") for part in re.findall(r"""\s*(?:"[^"]*"|'[^']*'|[^.]+)\s*""", text))


def _read(where: ConfigFile) -> FileConfig:
    plain = _plainly_valid(where.settings)
    if plain is not None:
        return plain
    from lint.check.config_schema import validated  # pydantic says what is wrong, and reads what is not plain

    return FileConfig(**validated(where))


# The keys whose values _plainly_valid reads without pydantic: the value's type and, for severities, its values.
_STRINGS = {"select": "select", "extend-select": "extend_select", "ignore": "ignore", "exclude": "exclude", "extend-exclude": "extend_exclude"}
_SEVERITIES = frozenset(severity.value for severity in Severity)


def _plainly_valid(table: object) -> FileConfig | None:
    """The configuration of a table whose every key is known and every value plainly of its type (lists of
    strings, severities by name, a count, a flag; no rule options, no runs), which pydantic would accept as it
    is; None for anything else, which pydantic validates (and names what is wrong)."""
    if not isinstance(table, dict):
        return None
    config = FileConfig()
    for key, value in table.items():
        if key in _STRINGS and isinstance(value, list) and all(isinstance(item, str) for item in value):
            setattr(config, _STRINGS[key], list(value))
        elif key == "severity" and isinstance(value, dict) and all(isinstance(level, str) and level in _SEVERITIES for level in value.values()):
            config.severity = {code: Severity(level) for code, level in value.items()}
        elif (
            key == "per-path-ignores"
            and isinstance(value, dict)
            and all(isinstance(codes, list) and all(isinstance(c, str) for c in codes) for codes in value.values())
        ):
            config.per_path_ignores = {pattern: list(codes) for pattern, codes in value.items()}
        elif key == "consumer" and isinstance(value, str):
            config.consumer = value
        elif key == "per-path-consumer" and isinstance(value, dict) and all(isinstance(name, str) for name in value.values()):
            config.per_path_consumer = dict(value)
        elif key == "fail-on" and isinstance(value, str) and value in _SEVERITIES:
            config.fail_on = Severity(value)
        elif key == "max-findings" and type(value) is int and value >= 0:
            config.max_findings = value
        elif key == "respect-gitignore" and isinstance(value, bool):
            config.respect_gitignore = value
        elif key in ("rules", "runs") and value == {}:
            continue
        else:
            return None
    return config


def build_selection(config: FileConfig, overrides: Overrides, root: Path, source: str, where: ConfigFile | None = None) -> Selection:
    """The selection ``config`` (read from ``source``, whose keys ``where`` locates) and ``overrides`` make."""
    rules = catalog()
    for entry in (*(overrides.select or ()), *overrides.extend_select, *overrides.ignore):
        _resolve(entry, "command line")
    resolve = _Resolver(source, where)
    enabled = _apply_layer(set(), config.select or ["TL"], config.extend_select, config.ignore, resolve)
    enabled = _apply_layer(enabled, overrides.select, overrides.extend_select, overrides.ignore, _Resolver("command line"))
    enabled_codes = sorted(enabled)

    severities = {code: rules[code].severity for code in enabled_codes}
    configured_severities: dict[str, Severity] = {}
    for key, severity in config.severity.items():
        for rule in resolve(key, ("severity", key)):
            if rule.code in severities:
                severities[rule.code] = configured_severities[rule.code] = severity

    options: dict[str, RuleOptions] = {}  # as configured; the others' defaults are made when their rules are
    for key, values in config.rules.items():
        from lint.check.config_schema import configured_options  # configured options are validated by pydantic

        for rule in resolve(key, ("rules", key)):
            options_value = configured_options(rule.load().Options, values, where, ("rules", key))
            if rule.code in severities:
                options[rule.code] = options_value

    per_path = [
        (pattern, frozenset(r.code for code in codes for r in resolve(code, ("per-path-ignores", pattern))))
        for pattern, codes in config.per_path_ignores.items()
    ]
    command_line = ConsumerChoice(_consumer(overrides.consumer, "--consumer"), f"--consumer {overrides.consumer}") if overrides.consumer else None
    per_path_consumers = [
        (pattern, ConsumerChoice(_consumer(name, f"{source}: per-path-consumer.{pattern}"), f"per-path-consumer '{pattern}' in {source}"))
        for pattern, name in config.per_path_consumer.items()
    ]
    configured = ConsumerChoice(_consumer(config.consumer, f"{source}: consumer"), f"consumer in {source}") if config.consumer else None
    return Selection(severities, options, per_path, root, configured_severities, command_line, per_path_consumers, configured)


def _consumer(name: str, where: str) -> str:
    """``name`` when it is a consumer's, else a ConfigError saying where it was found and which there are."""
    known = formats.consumers()
    if name not in known:
        raise ConfigError(f"{where}: unknown consumer '{name}' (known: {', '.join(sorted(known))})")
    return name


class _Resolver(Record):
    """Rule entries of one layer (the file, or the command line) to rules; an unknown one is an error naming
    the file and line, or the command line."""

    __slots__ = ("source", "where")

    def __init__(self, source: str, where: ConfigFile | None = None) -> None:
        self.source = source
        self.where = where

    def __call__(self, entry: str, keys: tuple[str, ...]) -> list[Listed]:
        if self.where is None:  # the command line (`--select X` says where X is), or no file
            return _resolve(entry, self.source)
        rules = lookup(entry)
        if not rules:
            raise ConfigError(self.where.problem(keys, f"{{key}}: unknown rule code or name '{entry}'; `tlint rules` lists them{rule_suggestion(entry)}"))
        return rules


def _apply_layer(enabled: set[str], select: list[str] | None, extend_select: list[str], ignore: list[str], resolve: _Resolver) -> set[str]:
    """``enabled`` after one layer (the file, then the command line): its ``select`` replaces what came
    before; within the layer the more specific entry wins, and ``ignore`` wins a tie."""
    positive = [(entry, "select") for entry in select or []] + [(entry, "extend-select") for entry in extend_select]
    best: dict[str, tuple[int, bool]] = {}  # code -> (specificity, enabled)
    for entries, on in ((positive, True), ([(entry, "ignore") for entry in ignore], False)):
        for entry, key in entries:
            matched = resolve(entry, (key,))
            specificity = 100 if entry in {r.code for r in matched} or entry in {r.name for r in matched} else len(entry)
            for rule in matched:
                current = best.get(rule.code)
                if current is None or specificity > current[0] or (specificity == current[0] and not on):
                    best[rule.code] = (specificity, on)
    kept = set() if select is not None else set(enabled)
    return (kept | {code for code, (_, on) in best.items() if on}) - {code for code, (_, on) in best.items() if not on}


def _resolve(key: str, source: str, where: str | None = None) -> list[Listed]:
    rules = lookup(key)
    if not rules:
        place = f" (in {where})" if where else ""
        raise ConfigError(f"{source}: unknown rule code or name '{key}'{place}; `tlint rules` lists them{rule_suggestion(key)}")
    return rules


@cache
def _rule_classes(codes: frozenset[str], format_name: str, scope: Scope) -> tuple[type[Rule], ...]:
    """The classes of the rules among ``codes`` of ``scope`` that read ``format_name``, by code: worked out once,
    not for every file of a 10,000-rank run."""
    listed = catalog()
    return tuple(listed[code].load() for code in sorted(codes) if listed[code].scope == scope and format_name in listed[code].formats)
