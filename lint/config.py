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
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path, PurePosixPath
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from lint.rule import Listed, Rule, RuleOptions, Scope, Severity, catalog, lookup, options_json, rule_class, rule_suggestion

CONFIG_FILES = ("tlint.toml", "pyproject.toml")


class ConfigError(Exception):
    """A configuration that cannot be used; the message names the file and the key."""


# A severity is written as its name: strict validation would take only the enum itself.
SeverityName = Annotated[Severity, Field(strict=False)]


class RunLayout(BaseModel):
    """A ``[tool.tlint.runs."<glob>"]`` entry: the parallel layout of the runs under that glob."""

    # Strict, as the README promises: `tp = "2"`, `pp = 2.0` or `tp = true` is an error, not a 2 or a 1.
    model_config = ConfigDict(extra="forbid", populate_by_name=True, strict=True)
    tp: int | None = Field(default=None, ge=1)
    pp: int | None = Field(default=None, ge=1)
    dp: int | None = Field(default=None, ge=1)
    ep: int | None = Field(default=None, ge=1)
    layers: int | None = Field(default=None, ge=1, description="transformer layers of the model")
    log: str | None = Field(default=None, description="the optprime-log of the same job")
    workload: str | None = Field(default=None, description="the simai-workload written for the same job")


class FileConfig(BaseModel):
    """The keys of ``[tool.tlint]`` (or of a whole ``tlint.toml``)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, strict=True)
    select: list[str] | None = None
    extend_select: list[str] = Field(default_factory=list, alias="extend-select")
    ignore: list[str] = Field(default_factory=list)
    severity: dict[str, SeverityName] = Field(default_factory=dict)
    rules: dict[str, dict[str, Any]] = Field(default_factory=dict, description="rule code or name -> options")
    per_path_ignores: dict[str, list[str]] = Field(default_factory=dict, alias="per-path-ignores")
    fail_on: SeverityName | None = Field(default=None, alias="fail-on")
    max_findings: int | None = Field(default=None, ge=0, alias="max-findings")
    runs: dict[str, RunLayout] = Field(default_factory=dict)
    exclude: list[str] | None = Field(default=None, description="gitignore-style patterns left out when walking")
    extend_exclude: list[str] = Field(default_factory=list, alias="extend-exclude")
    respect_gitignore: bool = Field(default=True, alias="respect-gitignore")


@dataclass
class Overrides:
    """What the command line says about selection; it takes precedence over the file."""

    select: list[str] | None = None
    extend_select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)


@dataclass
class Selection:
    """The enabled rules with their effective severity and options, and per-path ignores."""

    severities: dict[str, Severity] = field(default_factory=dict)
    options: dict[str, RuleOptions] = field(default_factory=dict)  # of enabled rules: as configured, else made on first use
    per_path_ignores: list[tuple[str, frozenset[str]]] = field(default_factory=list)
    root: Path = field(default_factory=Path.cwd)

    @classmethod
    def default(cls) -> Selection:
        return build_selection(FileConfig(), Overrides(), Path.cwd(), "defaults")

    def enabled(self, code: str) -> bool:
        return code in self.severities

    def rules_for(self, format_name: str, scope: Scope) -> list[Rule]:
        """The enabled rules of ``scope`` that read ``format_name``, made with their options (only their modules loaded)."""
        return [rule(self.options_of(rule.code)) for rule in _rule_classes(frozenset(self.severities), format_name, scope)]

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
        candidates = {PurePosixPath(Path(path).as_posix())}
        with contextlib.suppress(ValueError):  # a path outside the root matches the patterns as given only
            candidates.add(PurePosixPath(Path(path).resolve().relative_to(self.root.resolve()).as_posix()))
        codes: set[str] = set()
        for pattern, ignored in self.per_path_ignores:
            if any(fnmatch.fnmatchcase(str(candidate), pattern) for candidate in candidates):
                codes |= ignored
        return frozenset(codes)


@dataclass
class Settings:
    """Everything configuration decides for a check."""

    selection: Selection
    fail_on: Severity | None
    max_findings: int | None
    runs: dict[str, RunLayout]
    source: str  # the file the settings came from, or "defaults"
    exclude: list[str] | None  # None: the walker's defaults
    extend_exclude: list[str]
    respect_gitignore: bool


def find_config(paths: Iterable[str]) -> Path | None:
    """The first tlint.toml, or pyproject.toml with a [tool.tlint] table, walking up from the paths."""
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
                if os.path.isfile(candidate) and (name == "tlint.toml" or _has_tool_table(candidate)):
                    return candidate
    return None


def _has_tool_table(pyproject: Path) -> bool:
    """Whether ``pyproject`` has a [tool.tlint] table; ConfigError when it is no TOML (as ruff, tlint does not
    pass over a configuration it cannot read: its settings would silently be lost)."""
    return _tool_table(_parse_toml(pyproject)[1]) is not None


def _parse_toml(path: Path) -> tuple[str, dict[str, Any]]:
    """The text of ``path`` and what it holds; ConfigError naming the file, line and column where it is no TOML."""
    from lint.source import InputError, open_regular  # here: the readers of traces are no part of reading a configuration

    try:
        with open_regular(path, str(path)) as stream:
            raw = stream.read()
        text = raw.decode("utf-8")
        return text, tomllib.loads(text)
    except InputError as error:
        raise ConfigError(str(error)) from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise ConfigError(f"{path}:{line}: not valid TOML: invalid UTF-8 byte 0x{raw[error.start]:02x}") from None
    except tomllib.TOMLDecodeError as error:
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


def _tool_table(pyproject: dict[str, Any]) -> object:
    """What ``[tool.tlint]`` holds, None when there is none: ``tool`` may be any value (`tool = 5`), not only a table."""
    tool = pyproject.get("tool")
    return tool.get("tlint") if isinstance(tool, dict) else None


def load_settings(config_path: Path | None, overrides: Overrides) -> Settings:
    """Read ``config_path`` (None: defaults) and apply the command-line ``overrides``."""
    if config_path is None:
        file_config, root, source, where = FileConfig(), Path.cwd(), "defaults", None
    else:
        where = _Located.read(config_path)
        file_config, root, source = where.validated(FileConfig), config_path.resolve().parent, str(config_path)
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


@dataclass(frozen=True)
class _Located:
    """A configuration file's table of tlint settings, and where in its text each key is: errors name file, line and key."""

    path: Path
    text: str
    table: tuple[str, ...]  # where the settings are: ("tool", "tlint") in a pyproject.toml, () in a tlint.toml
    settings: Any

    @classmethod
    def read(cls, path: Path) -> _Located:
        text, data = _parse_toml(path)
        if path.name == "pyproject.toml":
            return cls(path, text, ("tool", "tlint"), _tool_table(data) or {})
        return cls(path, text, (), data)

    def validated(self, model: type[M], keys: tuple[str, ...] = (), values: Any = None) -> M:
        """``values`` (the settings themselves by default), under ``keys`` in the table, as ``model``."""
        try:
            return model.model_validate(self.settings if values is None else values)
        except ValidationError as error:
            problem = error.errors()[0]
            raise ConfigError(self.problem((*keys, *(str(part) for part in problem["loc"])), _wording(problem))) from None

    def problem(self, keys: tuple[str, ...], what: str) -> str:
        """``file:line: key 'a.b': what``; the line where the key is set (else its table's), when it can be found."""
        line = key_line(self.text, (*self.table, *keys))
        table = f"[{'.'.join(self.table)}] " if self.table else ""
        key = f"{table}key '{'.'.join(keys)}'" if keys else f"the table {table}".strip()  # no key: the table itself is wrong
        return f"{self.path}{f':{line}' if line else ''}: {what.format(key=key)}"


M = TypeVar("M", bound=BaseModel)


def _wording(problem: Any) -> str:
    """What is wrong, with ``{key}`` where the key goes."""
    if problem["type"] == "extra_forbidden":
        return "unknown {key}"
    return f"{{key}}: {problem['msg']} (found {problem.get('input')!r})"


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


def build_selection(config: FileConfig, overrides: Overrides, root: Path, source: str, where: _Located | None = None) -> Selection:
    """The selection ``config`` (read from ``source``, whose keys ``where`` locates) and ``overrides`` make."""
    rules = catalog()
    for entry in (*(overrides.select or ()), *overrides.extend_select, *overrides.ignore):
        _resolve(entry, "command line")
    resolve = _Resolver(source, where)
    enabled = _apply_layer(set(), config.select or ["TL"], config.extend_select, config.ignore, resolve)
    enabled = _apply_layer(enabled, overrides.select, overrides.extend_select, overrides.ignore, _Resolver("command line"))
    enabled_codes = sorted(enabled)

    severities = {code: rules[code].severity for code in enabled_codes}
    for key, severity in config.severity.items():
        for rule in resolve(key, ("severity", key)):
            if rule.code in severities:
                severities[rule.code] = severity

    options: dict[str, RuleOptions] = {}  # as configured; the others' defaults are made when their rules are
    for key, values in config.rules.items():
        for rule in resolve(key, ("rules", key)):
            if where is not None:
                options_value = where.validated(rule.load().Options, ("rules", key), values)
            else:
                options_value = rule.load().Options.model_validate(values)
            if rule.code in severities:
                options[rule.code] = options_value

    per_path = [
        (pattern, frozenset(r.code for code in codes for r in resolve(code, ("per-path-ignores", pattern))))
        for pattern, codes in config.per_path_ignores.items()
    ]
    return Selection(severities, options, per_path, root)


@dataclass(frozen=True)
class _Resolver:
    """Rule entries of one layer (the file, or the command line) to rules; an unknown one is an error naming
    the file and line, or the command line."""

    source: str
    where: _Located | None = None

    def __call__(self, entry: str, keys: tuple[str, ...] | None = None) -> list[Listed]:
        if self.where is None or keys is None:  # the command line: `--select X` says where X is
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
