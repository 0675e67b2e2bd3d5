"""Read the ``repr()`` of small Python values (the dicts, lists and tuples training scripts print).

A reader of its own, not the standard library's literal evaluator: it knows only ints, floats, quoted strings, ``None``,
``True``, ``False``, tuples, lists and dicts, and refuses nesting deeper than ``MAX_DEPTH``, so that no
input line can make tlint evaluate code or recurse without bound.
"""

from __future__ import annotations

import re
from typing import Any

from lint.models.common import int64

MAX_DEPTH = 16

_TOKEN = re.compile(
    r"""\s*(?:(?P<number>-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)|(?P<string>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")|(?P<name>None|True|False)|(?P<punct>[()\[\]{}:,]))"""
)
_CONSTANTS = {"None": None, "True": True, "False": False}
_CLOSE = {"(": ")", "[": "]", "{": "}"}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"'}


def read_literal(text: str) -> Any:
    """The value ``text`` is the repr of; ValueError when it is not such a repr, OverflowError for an integer
    past an int64."""
    tokens = _tokens(text)
    value, position = _value(tokens, 0, 0)
    if position != len(tokens):
        raise ValueError(f"unexpected {tokens[position][1]!r} after a complete value")
    return value


def _tokens(text: str) -> list[tuple[str, str]]:
    tokens, position, end = [], 0, len(text.rstrip())
    while position < end:
        match = _TOKEN.match(text, position)
        if match is None:
            raise ValueError(f"no Python literal at {text[position : position + 20]!r}")
        kind = match.lastgroup
        assert kind is not None
        tokens.append((kind, match.group(kind)))
        position = match.end()
    return tokens


def _value(tokens: list[tuple[str, str]], position: int, depth: int) -> tuple[Any, int]:
    if depth > MAX_DEPTH:
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels")
    if position >= len(tokens):
        raise ValueError("the value ends early")
    kind, text = tokens[position]
    if kind == "number":
        if any(c in text for c in ".eE"):
            return float(text), position + 1
        # Past an int64 an OverflowError, as for every integer field: no writer prints such a number, and past
        # 4300 digits Python would not even convert it.
        magnitude = int64(text.removeprefix("-"))
        return (-magnitude if text.startswith("-") else magnitude), position + 1
    if kind == "string":
        return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(0)), text[1:-1]), position + 1
    if kind == "name":
        return _CONSTANTS[text], position + 1
    if text not in _CLOSE:
        raise ValueError(f"unexpected {text!r}")
    items, position = _items(tokens, position + 1, _CLOSE[text], depth, pairs=text == "{")
    if text == "{":
        return dict(items), position
    if text == "(" and len(items) == 1 and tokens[position - 2][1] != ",":
        return items[0], position  # parentheses around one value, not a tuple
    return (tuple(items) if text == "(" else list(items)), position


def _items(tokens: list[tuple[str, str]], position: int, close: str, depth: int, *, pairs: bool) -> tuple[list[Any], int]:
    items: list[Any] = []
    while True:
        if position < len(tokens) and tokens[position][1] == close:
            return items, position + 1
        item, position = _value(tokens, position, depth + 1)
        if pairs:
            if position >= len(tokens) or tokens[position][1] != ":":
                raise ValueError("a dict entry without ':'")
            value, position = _value(tokens, position + 1, depth + 1)
            item = (item, value)
        items.append(item)
        if position < len(tokens) and tokens[position][1] == ",":
            position += 1
        elif position >= len(tokens) or tokens[position][1] != close:
            raise ValueError(f"expected ',' or {close!r}")
