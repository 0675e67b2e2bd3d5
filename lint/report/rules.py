"""``tlint rules`` and ``tlint rule CODE``: the rule set and each rule's documentation, from its docstring."""

from __future__ import annotations

import json
from typing import Any, TextIO

from lint.formats import FORMAT_NAMES
from lint.rule import Rule, iter_rules


def rule_entry(rule: type[Rule]) -> dict[str, Any]:
    return {
        "code": rule.code,
        "name": rule.name,
        "severity": rule.severity.value,
        "consumers": {consumer: severity.value for consumer, severity in rule.consumers.items()},
        "scope": rule.scope.value,
        "formats": list(rule.formats),
        "summary": rule.summary(),
    }


def severities(entry: dict[str, Any]) -> str:
    """A rule's severity, per consumer where it names them: ``error (simai, astra-sim-1)``, ``warning (simai), error (astra-sim-1)``."""
    by_consumer: dict[str, str] = entry["consumers"]
    if not by_consumer:
        return str(entry["severity"])
    grouped: dict[str, list[str]] = {}
    for consumer, severity in by_consumer.items():
        grouped.setdefault(severity, []).append(consumer)
    return ", ".join(f"{severity} ({', '.join(consumers)})" for severity, consumers in grouped.items())


def render_rules(output_format: str, out: TextIO) -> None:
    entries = [rule_entry(rule) for rule in iter_rules()]
    if output_format == "json":
        out.write(json.dumps(entries, indent=2) + "\n")
        return
    if output_format == "markdown":
        out.write(markdown_table(entries))
        return
    name_width = max(len(e["name"]) for e in entries)
    for e in entries:
        formats = "all formats" if len(e["formats"]) == 4 else ", ".join(e["formats"])
        consumers = f"; {severities(e)}" if e["consumers"] else ""
        out.write(f"{e['code']}  {e['name']:<{name_width}}  {e['severity']:<7}  {e['summary']}  [{formats}; {e['scope']}{consumers}]\n")


def render_rule(rule: type[Rule], out: TextIO) -> None:
    docs = rule.docs()
    formats = ", ".join(rule.formats)
    severity = severities(rule_entry(rule))
    lines = [
        f"{rule.code} ({rule.name})",
        "",
        f"Severity: {severity}    Scope: {rule.scope.value}    Formats: {formats}",
    ]
    if rule.consumers:
        lines.append(f"Consumers: {', '.join(rule.consumers)} (other consumers' files are not checked by it)")
    if rule.aliases:
        lines.append(f"Also selected by: {', '.join(rule.aliases)}")
    lines += ["", "## What it does", "", docs.summary, "", "## Why it matters", "", docs.why, "", "## Example", "", docs.example]
    lines += ["", "## Options", ""]
    if docs.options:
        for name, type_name, default, description in docs.options:
            lines.append(f"- `{name}` ({type_name}, default {default}): {description}")
    else:
        lines.append("None.")
    out.write("\n".join(lines) + "\n")


def markdown_table(entries: list[dict[str, Any]]) -> str:
    """The README's rule table (a test keeps the README in step with the rules)."""
    lines = ["| Code | Name | Severity | Formats | What it checks |", "|---|---|---|---|---|"]
    for e in entries:
        formats = "all" if set(e["formats"]) == set(FORMAT_NAMES) else ", ".join(f"`{f}`" for f in e["formats"])
        if e["scope"] == "run":
            formats += " (run)"
        summary = e["summary"].replace("|", "\\|")
        lines.append(f"| {e['code']} | `{e['name']}` | {severities(e)} | {formats} | {summary} |")
    return "\n".join(lines) + "\n"
