"""The per-format Lark grammars: loading, plain-words syntax errors, and the derived fast path.

Every grammar in ``grammars/`` is the single definition of its format.  Lark parses with it (LALR,
contextual lexer) wherever a line is rejected or a format is small.  For the million-line formats a
regular expression is derived mechanically from the same grammar rules, so that valid lines are
matched at C speed while rejected lines are re-parsed by Lark to say exactly where and why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Any

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.lexer import PatternStr
from lark.load_grammar import GrammarBuilder, _literal_to_pattern  # the EBNF tree, before BNF expansion

from lint.resources import grammar_path

_EXPECT_COMMENT = re.compile(r"^//\s*expect\s+(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*:\s*(?P<words>.+?)\s*$", re.M)
_FOUND_WORD = re.compile(r"[^\s,()'\[\]{}=:]+")
_FOUND_LIMIT = 40
_END_NAMES = frozenset({"$END", "<END-OF-FILE>"})
_CONTROL_ESCAPES = {code: f"\\x{code:02x}" for code in (*range(0x20), 0x7F)}
_BLANKS = {" ": "a space", "\t": "a tab", "\r": "a carriage return"}


class GrammarSyntaxError(Exception):
    """A text the grammar rejects: 1-based column within the parsed text, and what went wrong."""

    def __init__(self, column: int, found: str, expected: str) -> None:
        self.column = column
        self.found = found
        self.expected = expected
        super().__init__(self.message)

    @property
    def message(self) -> str:
        return f"expected {self.expected}, found {self.found}"


class NotRegularError(ValueError):
    """A grammar rule that cannot be turned into a regular expression (it recurses)."""


@dataclass(frozen=True, slots=True)
class DerivedPattern:
    """A regex derived from one grammar rule; ``fields`` are the rule names captured as named groups."""

    rule: str
    regex: re.Pattern[str]
    fields: tuple[str, ...]


class Grammar:
    """One format's grammar: a Lark LALR parser plus what is needed to explain its errors."""

    def __init__(self, name: str, *, start: list[str], transformer: Any = None, positions: bool = False) -> None:
        self.name = name
        self.text = grammar_path(name).read_text(encoding="utf-8")
        self._lark_options = {"start": start, "transformer": transformer, "propagate_positions": positions}
        self._expect_words = {m["name"]: m["words"] for m in _EXPECT_COMMENT.finditer(self.text)}

    @cached_property
    def lark(self) -> Lark:
        """The LALR parser, built on first use: a file whose lines all take the fast path never needs it."""
        return Lark(self.text, parser="lalr", lexer="contextual", maybe_placeholders=False, **self._lark_options)

    def terminal_regex(self, name: str) -> str:
        return _ebnf(self.text).terminals[name]

    def parse(self, text: str, start: str | None = None) -> Any:
        """Parse ``text`` or raise :class:`GrammarSyntaxError`."""
        try:
            return self.lark.parse(text, start=start)
        except UnexpectedInput as exc:
            raise self.explain(exc, text) from None

    # -- errors ---------------------------------------------------------------------------------

    def explain(self, exc: UnexpectedInput, text: str) -> GrammarSyntaxError:
        if isinstance(exc, UnexpectedCharacters):
            names = exc.allowed or set()
            column = exc.column
            found = _found_at(text, exc.pos_in_stream)
        elif isinstance(exc, UnexpectedToken):
            names = exc.expected or set()
            if exc.token.type == "$END":
                column, found = len(text) + 1, "end of line"
            else:
                column, found = exc.column, _found_at(text, exc.token.start_pos)
        elif isinstance(exc, UnexpectedEOF):
            names = set(exc.expected or ())
            column, found = len(text) + 1, "end of line"
        else:  # pragma: no cover - lark has no other UnexpectedInput kinds
            names, column, found = set(), 1, _found_at(text, 0)
        return GrammarSyntaxError(column if isinstance(column, int) and column > 0 else 1, found, self.describe(names))

    def describe(self, names: set[str] | frozenset[str]) -> str:
        """Say in words what the terminals ``names`` stand for: 'a dtype such as torch.float32 or None'."""
        words = sorted({self._describe_terminal(n) for n in names})
        if not words:
            return "nothing more"
        if len(words) == 1:
            return words[0]
        return "one of " + ", ".join(words[:-1]) + " or " + words[-1]

    def _describe_terminal(self, name: str) -> str:
        if name in _END_NAMES:
            return "end of line"
        if name in self._expect_words:
            return self._expect_words[name]
        try:
            pattern = self.lark.get_terminal(name).pattern
        except KeyError:
            return name.lower().replace("_", " ")
        if isinstance(pattern, PatternStr):
            return quote(pattern.value)
        return name.lower().replace("_", " ")

    # -- the derived fast path --------------------------------------------------------------------

    def field_names(self, rule: str) -> list[str]:
        """The named rules that ``rule`` is made of, looking through `_inlined` rules, in order."""
        rules = _ebnf_rules(self.text)
        names: list[str] = []

        def visit(name: str) -> None:
            for symbol in rules[name].scan_values(lambda v: type(v).__name__ == "NonTerminal"):
                if symbol.name.startswith("_"):
                    visit(symbol.name)
                elif symbol.name not in names:
                    names.append(symbol.name)

        visit(rule)
        return names

    def alternatives(self, rule: str) -> tuple[str, ...]:
        """The symbols a one-symbol-per-alternative rule such as ``batch_id: INT | NONE`` stands for."""
        symbols = []
        for expansion in _ebnf_rules(self.text)[rule].children:
            values = list(expansion.scan_values(lambda v: type(v).__name__ in ("Terminal", "NonTerminal")))
            if len(values) != 1:
                raise ValueError(f"grammar {self.name!r}: rule {rule!r} is not a choice of single symbols")
            symbols.append(values[0].name)
        return tuple(symbols)

    def derive(self, rule: str, fields: frozenset[str] | set[str] = frozenset(), loose: dict[str, str] | None = None) -> DerivedPattern:
        """Compile grammar rule ``rule`` into one regex that accepts exactly the same texts.

        Each rule named in ``fields`` becomes a named group (outside repetitions only, where a group
        would keep just its last iteration).  ``loose`` replaces the body of a rule by a looser regex
        for callers that check that part more strictly themselves.
        """
        return _Deriver(self, fields, loose or {}).pattern(rule)


class _Deriver:
    def __init__(self, grammar: Grammar, fields: frozenset[str] | set[str], loose: dict[str, str]) -> None:
        self.grammar = grammar
        self.fields = fields
        self.loose = loose
        self.rules = _ebnf_rules(grammar.text)
        self.named: list[str] = []

    def pattern(self, rule: str) -> DerivedPattern:
        body = self._rule(rule, stack=(), repeated=False)
        return DerivedPattern(rule, re.compile(body), tuple(self.named))

    def _rule(self, name: str, stack: tuple[str, ...], repeated: bool) -> str:
        if name in stack:
            raise NotRegularError(f"grammar {self.grammar.name!r}: rule {name!r} recurses")
        if name in self.loose:
            body = self.loose[name]
        else:
            if name not in self.rules:
                raise NotRegularError(f"grammar {self.grammar.name!r}: no rule {name!r}")
            body = self._node(self.rules[name], stack + (name,), repeated)
        if name in self.fields and not repeated and name not in self.named:
            self.named.append(name)
            return f"(?P<{name}>{body})"
        return f"(?:{body})"

    def _node(self, node: Any, stack: tuple[str, ...], repeated: bool) -> str:
        if isinstance(node, Tree):
            kind = node.data
            if kind == "expansions":  # grouped: an inline (a | b) sits inside a larger sequence
                return "(?:" + "|".join(self._node(child, stack, repeated) for child in node.children) + ")"
            if kind == "expansion":
                return "".join(self._node(child, stack, repeated) for child in node.children)
            if kind == "alias":
                return self._node(node.children[0], stack, repeated)
            if kind == "value":
                return self._node(node.children[0], stack, repeated)
            if kind == "maybe":
                return f"(?:{self._node(node.children[0], stack, repeated)})?"
            if kind == "literal":
                return f"(?:{_literal_to_pattern(node.children[0]).to_regexp()})"
            if kind == "expr":
                return self._repetition(node, stack, repeated)
            raise NotRegularError(f"grammar {self.grammar.name!r}: cannot derive a regex from {kind!r}")
        kind = type(node).__name__
        if kind == "NonTerminal":
            return self._rule(node.name, stack, repeated)
        if kind == "Terminal":
            return f"(?:{self.grammar.terminal_regex(node.name)})"
        raise NotRegularError(f"grammar {self.grammar.name!r}: cannot derive a regex from {node!r}")

    def _repetition(self, node: Tree, stack: tuple[str, ...], repeated: bool) -> str:
        atom, *op = node.children
        if len(op) == 1 and isinstance(op[0], Token) and op[0].value in "?":
            return f"(?:{self._node(atom, stack, repeated)})?"
        inner = self._node(atom, stack, True)
        if len(op) == 1 and isinstance(op[0], Token) and op[0].value in ("*", "+"):
            return f"(?:{inner}){op[0].value}"
        if len(op) == 2:  # the ~ n..m range operator
            low, high = (int(str(x)) for x in op)
            return f"(?:{inner}){{{low},{high}}}"
        if len(op) == 1:  # ~ n
            count = int(str(op[0]))
            return f"(?:{inner}){{{count}}}"
        raise NotRegularError(f"grammar {self.grammar.name!r}: cannot derive a regex from {node!r}")


@dataclass(frozen=True)
class _Ebnf:
    rules: dict[str, Tree]  # rule name -> its EBNF tree (before Lark expands it to BNF)
    terminals: dict[str, str]  # terminal name -> its compiled regex


@cache
def _ebnf(text: str) -> _Ebnf:
    builder = GrammarBuilder()
    builder.load_grammar(text, "<grammar>")
    grammar = builder.build()
    rules = {name: tree for name, _params, tree, _options in grammar.rule_defs}
    terminals, _, _ = grammar.compile([name for name in rules if not name.startswith("_")], "*")
    return _Ebnf(rules, {t.name: t.pattern.to_regexp() for t in terminals})


def _ebnf_rules(text: str) -> dict[str, Tree]:
    return _ebnf(text).rules


def quote(text: str) -> str:
    """A value as findings show it: quoted, control characters escaped, long values cut."""
    if len(text) > _FOUND_LIMIT:
        text = text[:_FOUND_LIMIT] + "…"
    if not text:
        return "nothing"
    text = text.translate(_CONTROL_ESCAPES)
    return f'"{text}"' if "'" in text else f"'{text}'"


def _found_at(text: str, pos: int) -> str:
    if pos >= len(text):
        return "end of line"
    word = _FOUND_WORD.match(text, pos)
    if word:
        return quote(word.group())
    return _BLANKS.get(text[pos]) or quote(text[pos])
