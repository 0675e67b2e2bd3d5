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
        "scope": rule.scope.value,
        "formats": list(rule.formats),
        "summary": rule.summary(),
    }


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
        out.write(f"{e['code']}  {e['name']:<{name_width}}  {e['severity']:<7}  {e['summary']}  [{formats}; {e['scope']}]\n")


def render_rule(rule: type[Rule], out: TextIO) -> None:
    docs = rule.docs()
    formats = ", ".join(rule.formats)
    lines = [
        f"{rule.code} ({rule.name})",
        "",
        f"Severity: {rule.severity.value}    Scope: {rule.scope.value}    Formats: {formats}",
    ]
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
        lines.append(f"| {e['code']} | `{e['name']}` | {e['severity']} | {formats} | {summary} |")
    return "\n".join(lines) + "\n"
