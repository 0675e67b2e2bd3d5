"""The per-format Lark grammars: loading, plain-words syntax errors, and the derived fast path.

Every grammar in ``grammars/`` is the single definition of its format.  Lark parses with it (LALR,
contextual lexer) wherever a line is rejected or a format is small.  For the million-line formats a
regular expression is derived mechanically from the same grammar rules, so that valid lines are
matched at C speed while rejected lines are re-parsed by Lark to say exactly where and why.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, cached_property
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lint.parse.pyliteral import read_literal
from lint.store.resources import grammar_path

if TYPE_CHECKING:
    # Lark is imported where a line is parsed or a grammar read afresh: a file whose lines all take the fast
    # path, with the grammar's rules remembered (see _ebnf), needs none of it.
    from lark import Lark, Token, Tree
    from lark.exceptions import UnexpectedInput

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


class DerivedPattern:
    """A regex derived from one grammar rule; ``fields`` are the rule names captured as named groups.

    Compiled when ``regex`` is first read: a caller that joins the texts of many (the alternation of a
    format's start rules) needs none of them compiled on their own.
    """

    def __init__(self, rule: str, text: str, fields: tuple[str, ...]) -> None:
        self.rule = rule
        self.text = text
        self.fields = fields

    @cached_property
    def regex(self) -> re.Pattern[str]:
        return re.compile(self.text)


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
        from lark import Lark

        return Lark(self.text, parser="lalr", lexer="contextual", maybe_placeholders=False, **self._lark_options)

    def terminal_regex(self, name: str) -> str:
        return _ebnf(self.text).terminals[name]

    def parse(self, text: str, start: str | None = None) -> Any:
        """Parse ``text`` or raise :class:`GrammarSyntaxError`."""
        from lark.exceptions import UnexpectedInput

        try:
            return self.lark.parse(text, start=start)
        except UnexpectedInput as exc:
            raise self.explain(exc, text) from None

    # -- errors ---------------------------------------------------------------------------------

    def explain(self, exc: UnexpectedInput, text: str) -> GrammarSyntaxError:
        from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken

        if isinstance(exc, UnexpectedCharacters):
            names = exc.allowed or set()
            column = exc.column
            found = _found_at(text, exc.pos_in_stream or 0)
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
        from lark.lexer import PatternStr

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
        rules = _ebnf(self.text).rules
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

    def alternatives(self, rule: str) -> tuple[str, ...]:
        """The symbols a one-symbol-per-alternative rule such as ``batch_id: INT | NONE`` stands for."""
        body = _ebnf(self.text).rules[rule]
        symbols = []
        for alternative in body.children if body.data == "expansions" else [body]:
            if not (isinstance(alternative, _Node) and alternative.data == "name"):
                raise ValueError(f"grammar {self.name!r}: rule {rule!r} is not a choice of single symbols")
            symbols.append(str(alternative.children[0]))
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
        self.rules = _ebnf(grammar.text).rules
        self.named: list[str] = []

    def pattern(self, rule: str) -> DerivedPattern:
        body = self._rule(rule, stack=(), repeated=False)
        return DerivedPattern(rule, body, tuple(self.named))

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
        return f"(?:{body})"

    def _node(self, node: _Node, stack: tuple[str, ...], repeated: bool) -> str:
        def name_regex(name: str, inner_repeated: bool) -> str:
            if _is_rule(name):
                return self._rule(name, stack, inner_repeated)
            return f"(?:{self.grammar.terminal_regex(name)})"

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

    key = hashlib.sha256(b"\0".join([b"grammar", _lark_version(), memo.code_fingerprint().encode(), text.encode()])).hexdigest()
    if (remembered := memo.recall(key)) is not None:
        try:
            return _Ebnf.from_json(remembered)
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError):  # json recurses: `[` thousands deep exhaust the stack
            pass  # damaged: parsed again below, and the memo rewritten
    ebnf = _parsed_ebnf(text)
    memo.remember(key, ebnf.as_json())
    return ebnf


def _lark_version() -> bytes:
    """The text of Lark's package module (its ``__version__`` is in it): reading it costs far less than importing
    Lark, which a check whose lines all take the fast path does not otherwise need."""
    spec = find_spec("lark")
    try:
        if spec is not None and spec.origin is not None:
            return Path(spec.origin).read_bytes()
    except OSError:
        pass
    import lark

    return lark.__version__.encode()


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
            terminals[name] = _ebnf_regex(terminal_trees[name], lambda inner, _repeated: f"(?:{terminal(inner, (*stack, name))})")
        return terminals[name]

    for name in terminal_trees:
        terminal(name)
    return _Ebnf(rules, terminals)


def _ebnf_regex(node: _Node | _Word, name_regex: Callable[[str, bool], str], repeated: bool = False) -> str:
    """The regex of an EBNF tree; ``name_regex(name, repeated)`` gives that of a rule or terminal it names.

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
        return f"(?:{_ebnf_regex(node.children[0], name_regex, repeated)})?"
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
        return f"(?:{inner}){op[0]}"
    if len(op) == 2:
        return f"(?:{inner}){{{int(str(op[0]))},{int(str(op[1]))}}}"
    if len(op) == 1:
        return f"(?:{inner}){{{int(str(op[0]))}}}"
    raise NotRegularError(f"cannot derive a regex from the operator {op!r}")


def literal_regex(text: str, kind: str) -> str:
    """The regex of a grammar literal of ``kind`` STRING (``"word"``, ``"word"i`` for any case) or REGEXP (``/regex/flags``)."""
    if kind == "REGEXP":
        body, _, flags = text[1:].rpartition("/")
        body = body.replace("\\/", "/")
        return f"(?{flags}:{body})" if flags else f"(?:{body})"
    insensitive = text.endswith("i")
    value = read_literal(text[:-1] if insensitive else text)
    return f"(?i:{re.escape(value)})" if insensitive else f"(?:{re.escape(value)})"


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
