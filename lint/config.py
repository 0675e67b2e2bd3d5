"""Which rules run, at which severity, with which options."""

from __future__ import annotations

from dataclasses import dataclass, field

from lint.rule import Rule, RuleOptions, Scope, Severity, registry


@dataclass
class Selection:
    """The enabled rules with their effective severity and options."""

    severities: dict[str, Severity] = field(default_factory=dict)
    options: dict[str, RuleOptions] = field(default_factory=dict)

    @classmethod
    def default(cls) -> Selection:
        rules = registry()
        return cls({code: rule.severity for code, rule in rules.items()}, {code: rule.Options() for code, rule in rules.items()})

    def enabled(self, code: str) -> bool:
        return code in self.severities

    def rules_for(self, format_name: str, scope: Scope) -> list[Rule]:
        rules = registry()
        return [
            rules[code](self.options[code])
            for code in sorted(self.severities)
            if rules[code].scope == scope and format_name in rules[code].formats
        ]
