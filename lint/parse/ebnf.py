"""What Lark's grammar of grammars reads from a format grammar - its rules as EBNF trees, its terminals as
regexes - and the regexes derived from them (see :mod:`lint.parse.grammar`, which asks and remembers the
answers: a check whose answers are remembered imports none of this).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from lint.parse.pyliteral import read_literal
from lint.store.digest import hex_digest

if TYPE_CHECKING:
    from lark import Lark, Token, Tree


class NotRegularError(ValueError):
    """A grammar rule that cannot be turned into a regular expression (it recurses)."""


class Rules:
    """The rules and terminals of grammar ``name`` (its ``text``), and what the fast path asks of them."""

    def __init__(self, name: str, text: str) -> None:
        self.name = name
        self.ebnf = _ebnf(text)

    def field_names(self, rule: str) -> list[str]:
        """The named rules that ``rule`` is made of, looking through `_inlined` rules, in order."""
        rules = self.ebnf.rules
        names: list[str] = []

        def visit(name: str) -> None:
            for symbol in _names_in(rules[name]):
                if not _is_rule(symbol):
                    continue  # a terminal
                if symbol.startswith("_"):
                    visit(symbol)
                elif symbol not in names:
                    names.append(symbol)

        visit(rule)
        return names

    def alternatives(self, rule: str) -> list[str]:
        """The symbols a one-symbol-per-alternative rule such as ``batch_id: INT | NONE`` stands for."""
        body = self.ebnf.rules[rule]
        symbols = []
        for alternative in body.children if body.data == "expansions" else [body]:
            if not (isinstance(alternative, _Node) and alternative.data == "name"):
                raise ValueError(f"grammar {self.name!r}: rule {rule!r} is not a choice of single symbols")
            symbols.append(str(alternative.children[0]))
        return symbols

    def terminal_regex(self, name: str) -> str:
        return self.ebnf.terminals[name]

    def derive(self, rule: str, fields: list[str], loose: dict[str, str]) -> tuple[str, list[str]]:
        """The regex of grammar rule ``rule`` and the fields it captures (see :meth:`lint.parse.grammar.Grammar.derive`)."""
        return _Deriver(self, set(fields), loose).pattern(rule)


class _Deriver:
    def __init__(self, grammar: Rules, fields: set[str], loose: dict[str, str]) -> None:
        self.grammar = grammar
        self.fields = fields
        self.loose = loose
        self.rules = grammar.ebnf.rules
        self.named: list[str] = []

    def pattern(self, rule: str) -> tuple[str, list[str]]:
        body = self._rule(rule, stack=(), repeated=False)
        return body, self.named

    def _rule(self, name: str, stack: tuple[str, ...], repeated: bool) -> str:
        if name in stack:
            raise NotRegularError(f"grammar {self.grammar.name!r}: rule {name!r} recurses")
        if name in self.loose:
            body = self.loose[name]
        else:
            if name not in self.rules:
                raise NotRegularError(f"grammar {self.grammar.name!r}: no rule {name!r}")
            body = self._node(self.rules[name], (*stack, name), repeated)
        if name in self.fields and not repeated and name not in self.named:
            self.named.append(name)
            return f"(?P<{name}>{body})"
        return _in_sequence(body)

    def _node(self, node: _Node, stack: tuple[str, ...], repeated: bool) -> str:
        def name_regex(name: str, inner_repeated: bool) -> str:
            if _is_rule(name):
                return self._rule(name, stack, inner_repeated)
            return _in_sequence(self.grammar.terminal_regex(name))

        return _ebnf_regex(node, name_regex, repeated)


def _is_rule(name: str) -> bool:
    """Lark's naming: rules are lower case, terminals upper case, either may start with ``_``."""
    return name.lstrip("_")[:1].islower()


def _names_in(node: _Node) -> list[str]:
    """The rule and terminal names ``node`` refers to, in order."""
    if node.data == "name":
        return [str(node.children[0])]
    return [name for child in node.children if isinstance(child, _Node) for name in _names_in(child)]


@dataclass(frozen=True, slots=True)
class _Node:
    """A node of an EBNF tree, as Lark's grammar of grammars parses a grammar (Lark's ``Tree``, without Lark)."""

    data: str
    children: list[_Node | _Word]


class _Word(str):
    """A token of an EBNF tree: its text, and the name of its terminal (Lark's ``Token``, without Lark)."""

    type: str

    def __new__(cls, text: str, type_: str) -> _Word:
        word = super().__new__(cls, text)
        word.type = type_
        return word

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Word) and str.__eq__(self, other) and self.type == other.type

    __hash__ = str.__hash__

    def __reduce__(self) -> tuple[Callable[[str, str], _Word], tuple[str, str]]:
        return _Word, (str(self), self.type)


def _light(node: Tree[Token] | Token) -> _Node | _Word:
    """Lark's tree of a grammar as :class:`_Node` and :class:`_Word`: what the derivation reads, remembered or not."""
    from lark import Token, Tree

    if isinstance(node, Token):
        return _Word(str(node), node.type)
    if isinstance(node, Tree) and isinstance(node.data, str):
        return _Node(str(node.data), [_light(child) for child in node.children])
    raise NotRegularError(f"not a tree of Lark's grammar of grammars: {node!r}")


@dataclass(frozen=True)
class _Ebnf:
    rules: dict[str, _Node]  # rule name -> its EBNF tree, as Lark's own grammar of grammars parses it
    terminals: dict[str, str]  # terminal name -> its regex

    def as_json(self) -> bytes:
        return json.dumps([{name: _tree_as_json(tree) for name, tree in self.rules.items()}, self.terminals]).encode()

    @classmethod
    def from_json(cls, data: bytes) -> _Ebnf:
        rules, terminals = json.loads(data)
        if not (isinstance(terminals, dict) and all(isinstance(regex, str) for regex in terminals.values())):
            raise ValueError("not a grammar memo")
        return cls({name: _tree_from_json(tree) for name, tree in rules.items()}, terminals)


def _tree_as_json(node: _Node | _Word) -> Any:
    """A tree as JSON: ``[data, [children]]``; a token as ``{"type": ..., "value": ...}``."""
    if isinstance(node, _Word):
        return {"type": node.type, "value": str(node)}
    return [node.data, [_tree_as_json(child) for child in node.children]]


def _tree_from_json(value: Any) -> Any:
    if isinstance(value, dict):
        token_type, text = value["type"], value["value"]
        if not (isinstance(token_type, str) and isinstance(text, str)):
            raise ValueError("not a grammar memo")
        return _Word(text, token_type)
    data, children = value
    if not (isinstance(data, str) and isinstance(children, list)):
        raise ValueError("not a grammar memo")
    return _Node(data, [_tree_from_json(child) for child in children])


@cache
def _meta_parser() -> Lark:
    """Lark's published grammar of Lark grammars (``lark/grammars/lark.lark``): public API only."""
    from lark import Lark

    return Lark.open_from_package("lark", "lark.lark", ("grammars",), parser="lalr", maybe_placeholders=False)


@cache
def _ebnf(text: str) -> _Ebnf:
    """The rules and terminals of grammar ``text``, remembered in the cache directory.

    Building Lark's grammar of grammars costs more than checking a small file, so what it reads from a
    grammar is kept, keyed by the grammar's text, Lark's version and all of tlint's code (which names
    Python's version): any change to what it depends on is a new key.  A missing, damaged or unwritable
    memo only costs the parse again.
    """
    from lint.store import disk as memo  # the result cache's directory, its atomic writes, the code's fingerprint

    key = hex_digest(b"grammar", memo.lark_version(), memo.code_fingerprint().encode(), text.encode())
    if (remembered := memo.recall(key)) is not None:
        try:
            return _Ebnf.from_json(remembered)
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError):  # json recurses: `[` thousands deep exhaust the stack
            pass  # damaged: parsed again below, and the memo rewritten
    ebnf = _parsed_ebnf(text)
    memo.remember(key, ebnf.as_json())
    return ebnf


def _parsed_ebnf(text: str) -> _Ebnf:
    rules: dict[str, _Node] = {}
    terminal_trees: dict[str, _Node] = {}
    parsed = _light(_meta_parser().parse(text))
    for item in parsed.children if isinstance(parsed, _Node) else ():
        if not isinstance(item, _Node) or item.data not in ("rule", "token"):
            continue  # %ignore, %declare: nothing a derived regex needs
        name_token, *_params_and_priority, body = item.children
        name = str(name_token).lstrip("!?")
        if not isinstance(body, _Node):
            raise NotRegularError(f"{name}: a definition Lark's grammar of grammars does not describe")
        (rules if item.data == "rule" else terminal_trees)[name] = body
    terminals: dict[str, str] = {}

    def terminal(name: str, stack: tuple[str, ...] = ()) -> str:
        if name not in terminals:
            if name in stack or name not in terminal_trees:
                raise NotRegularError(f"terminal {name!r} is undefined or recursive")
            terminals[name] = _ebnf_regex(terminal_trees[name], lambda inner, _repeated: _in_sequence(terminal(inner, (*stack, name))))
        return terminals[name]

    for name in terminal_trees:
        terminal(name)
    return _Ebnf(rules, terminals)


def _ebnf_regex(node: _Node | _Word, name_regex: Callable[[str, bool], str], repeated: bool = False) -> str:
    """The regex of an EBNF tree; ``name_regex(name, repeated)`` gives that of a rule or terminal it names.

    Regexes are derived with no group that order does not need (one to the regex compiler is work: Python
    parses a pattern in Python code at every start-up, and a format's parser compiles dozens): each regex is
    one that may stand in a sequence as it is (an alternation is grouped), and what a quantifier applies to
    is grouped unless it is one atom already.

    ``repeated`` tells whether the node sits inside a repetition, where a named group would keep only
    its last iteration.
    """
    if isinstance(node, _Word):
        raise NotRegularError(f"cannot derive a regex from the bare token {node!r}")
    kind = node.data
    if kind == "expansions":  # alternatives; grouped when an inline (a | b) sits inside a longer sequence
        alternatives = node.children
        words = [_string_literal(child) for child in alternatives]
        if all(word is not None for word in words):
            # as Lark's lexer does: the longest word first, so that a word is never cut at a shorter one
            alternatives = [child for _word, child in sorted(zip(words, alternatives, strict=True), key=lambda pair: -len(pair[0] or ""))]
        if len(alternatives) == 1:
            return _ebnf_regex(alternatives[0], name_regex, repeated)
        return "(?:" + "|".join(_ebnf_regex(child, name_regex, repeated) for child in alternatives) + ")"
    if kind == "expansion":
        return "".join(_ebnf_regex(child, name_regex, repeated) for child in node.children)
    if kind == "alias":  # `a b -> name`: the name only labels the tree Lark builds
        return _ebnf_regex(node.children[0], name_regex, repeated)
    if kind == "name":
        return name_regex(str(node.children[0]), repeated)
    if kind == "literal":
        (value,) = node.children
        return literal_regex(str(value), getattr(value, "type", ""))
    if kind == "maybe":
        return _atom(_ebnf_regex(node.children[0], name_regex, repeated)) + "?"
    if kind == "expr":
        atom, *op = node.children
        return _repeat(_ebnf_regex(atom, name_regex, repeated or str(op[0]) != "?"), op)
    raise NotRegularError(f"cannot derive a regex from {kind!r}")


def _string_literal(node: _Node | _Word) -> str | None:
    """The word a case-sensitive ``"string"`` literal stands for; None for anything else."""
    if not (isinstance(node, _Node) and node.data == "literal"):
        return None
    (value,) = node.children
    if not (isinstance(value, _Word) and value.type == "STRING") or value.endswith("i"):
        return None
    word: str = read_literal(value)
    return word


def _repeat(inner: str, op: list[Any]) -> str:
    """``inner`` under an EBNF operator: ``?``, ``*``, ``+``, ``~ n`` or ``~ n..m``."""
    if len(op) == 1 and str(op[0]) in ("?", "*", "+"):
        return f"{_atom(inner)}{op[0]}"
    if len(op) == 2:
        return f"{_atom(inner)}{{{int(str(op[0]))},{int(str(op[1]))}}}"
    if len(op) == 1:
        return f"{_atom(inner)}{{{int(str(op[0]))}}}"
    raise NotRegularError(f"cannot derive a regex from the operator {op!r}")


def literal_regex(text: str, kind: str) -> str:
    """The regex of a grammar literal of ``kind`` STRING (``"word"``, ``"word"i`` for any case) or REGEXP (``/regex/flags``)."""
    if kind == "REGEXP":
        body, _, flags = text[1:].rpartition("/")
        body = body.replace("\\/", "/")
        return f"(?{flags}:{body})" if flags else _in_sequence(body)
    insensitive = text.endswith("i")
    value = read_literal(text[:-1] if insensitive else text)
    return f"(?i:{re.escape(value)})" if insensitive else re.escape(value)


def _in_sequence(regex: str) -> str:
    """``regex``, grouped when an alternation at its top level would otherwise take in its neighbours."""
    return f"(?:{regex})" if _scan(regex)[0] else regex


def _atom(regex: str) -> str:
    """``regex`` as one atom, which a quantifier applies to whole: grouped unless it is one character, one
    escape, one class or one group already."""
    return regex if _scan(regex)[1] else f"(?:{regex})"


def _scan(regex: str) -> tuple[bool, bool]:
    """Whether ``regex`` has an alternation at its top level, and whether it is one atom: a single character,
    escape, class or group, unquantified.  (An escape longer than two characters, ``\\u202a``, is not taken for
    one atom: grouping it costs nothing but the group.)"""
    depth, pieces, quantified, alternation, index = 0, 0, False, False, 0
    while index < len(regex):
        character = regex[index]
        if character == "\\":
            pieces += depth == 0
            index += 2
            continue
        if character == "[":  # up to the class's end: a ']' first (after an optional '^') is a member
            pieces += depth == 0
            index += 2 if regex[index + 1 : index + 2] == "^" else 1
            index += 1 if regex[index : index + 1] == "]" else 0
            while index < len(regex) and regex[index] != "]":
                index += 2 if regex[index] == "\\" else 1
        elif character == "(":
            pieces += depth == 0
            depth += 1
        elif character == ")":
            depth -= 1
        elif depth == 0:
            if character == "|":
                alternation = True
            elif character in "*+?{":
                quantified = True
            else:
                pieces += 1
        index += 1
    return alternation, pieces == 1 and not quantified and not alternation
