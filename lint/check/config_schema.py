"""What ``[tool.tlint]`` may hold, as pydantic validates it: for a configuration that is not plainly valid
(:func:`lint.check.config._plainly_valid`) - rule options, runs, or a mistake to name.

The keys of ``[tool.tlint.runs."<glob>"]`` that name a file stating a run's layout are the formats'
descriptors' ``states_layout``.
"""

from __future__ import annotations

from typing import Annotated, Any, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from lint import formats
from lint.models.errors import ConfigError
from lint.models.report import Severity
from lint.rule import RuleOptions, validated_options


class ConfigFile(Protocol):
    """A configuration file's settings, and where each key is (lint.check.config.ConfigFile)."""

    @property
    def settings(self) -> Any: ...

    def problem(self, keys: tuple[str, ...], what: str) -> str: ...


# Strict, as the README promises: `tp = "2"`, `pp = 2.0`, `tp = true` or `respect-gitignore = "off"` is an error,
# never a 2, a 1 or a false.  A severity is written as its name, which strict validation of the enum would refuse.
SeverityName = Annotated[Severity, Field(strict=False)]


class _RunSizes(BaseModel):
    """The sizes a ``[tool.tlint.runs."<glob>"]`` entry states."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, strict=True)
    tp: int | None = Field(default=None, ge=1)
    pp: int | None = Field(default=None, ge=1)
    dp: int | None = Field(default=None, ge=1)
    ep: int | None = Field(default=None, ge=1)
    layers: int | None = Field(default=None, ge=1, description="transformer layers of the model")


# A ``[tool.tlint.runs."<glob>"]`` entry: the parallel layout of the runs under that glob, and under each
# format's ``states_layout`` key (``log``, ``workload``, …) a file of that format stating it.
_STATEMENTS: dict[str, Any] = {
    f.states_layout: (str | None, Field(default=None, description=f.states_layout_doc))
    for f in sorted(formats.FORMATS, key=lambda f: f.states_layout or "")
    if f.states_layout is not None
}
RunLayout = create_model(
    "RunLayout",
    __base__=_RunSizes,
    __doc__="""A ``[tool.tlint.runs."<glob>"]`` entry: the parallel layout of the runs under that glob.""",
    **_STATEMENTS,
)


class FileSchema(BaseModel):
    """The keys of ``[tool.tlint]`` (or of a whole ``tlint.toml``)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, strict=True)
    select: list[str] | None = None
    extend_select: list[str] = Field(default_factory=list, alias="extend-select")
    ignore: list[str] = Field(default_factory=list)
    severity: dict[str, SeverityName] = Field(default_factory=dict)
    rules: dict[str, dict[str, Any]] = Field(default_factory=dict, description="rule code or name -> options")
    per_path_ignores: dict[str, list[str]] = Field(default_factory=dict, alias="per-path-ignores")
    consumer: str | None = Field(default=None, description="the program the files are judged for (`tlint check --help` lists them)")
    per_path_consumer: dict[str, str] = Field(default_factory=dict, alias="per-path-consumer", description="glob -> consumer of the files it matches")
    fail_on: SeverityName | None = Field(default=None, alias="fail-on")
    max_findings: int | None = Field(default=None, ge=0, alias="max-findings")
    runs: dict[str, RunLayout] = Field(default_factory=dict)
    exclude: list[str] | None = Field(default=None, description="gitignore-style patterns left out when walking")
    extend_exclude: list[str] = Field(default_factory=list, alias="extend-exclude")
    respect_gitignore: bool = Field(default=True, alias="respect-gitignore")


def validated(where: ConfigFile) -> dict[str, Any]:
    """The keys of the configuration ``where`` holds by field name, or a ConfigError naming its first problem
    by file, line and key."""
    try:
        checked = FileSchema.model_validate(where.settings)
    except ValidationError as error:
        raise ConfigError(first_problem(error, where)) from None
    return {name: getattr(checked, name) for name in FileSchema.model_fields}


def configured_options(options: type[RuleOptions], values: Any, where: ConfigFile | None, keys: tuple[str, ...]) -> RuleOptions:
    """A rule's ``options`` with the ``values`` the configuration ``where`` gives under ``keys``, or a ConfigError
    naming their first problem."""
    try:
        return validated_options(options, values)
    except ValidationError as error:
        if where is None:  # options made by code, not read from a file
            raise
        raise ConfigError(first_problem(error, where, keys)) from None


def first_problem(error: Any, where: ConfigFile, keys: tuple[str, ...] = ()) -> str:
    """The first problem pydantic's ValidationError ``error`` names, in words: file, line, key, what is wrong."""
    problem = error.errors()[0]
    located = (*keys, *(str(part) for part in problem["loc"]))
    if problem["type"] == "extra_forbidden":
        return where.problem(located, "unknown {key}")
    return where.problem(located, f"{{key}}: {problem['msg']} (found {problem.get('input')!r})")
