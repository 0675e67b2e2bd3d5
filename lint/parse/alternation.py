"""Named regexes tried in order, indexed by the character each can begin with.

One regex ``(?P<a>…)|(?P<b>…)|…`` tries its alternatives one after the other at every position: with
sixty of them (the start rules of ``grammars/optprime-log.lark``) that is most of the cost of finding
which record begins there, though a given character begins only a few of them.  :class:`Alternation`
works out from each regex the characters a match can begin with, and keeps one alternation per
character of only the regexes that can begin with it, in the same order.  It matches what the one
regex matches, with the same group winning: an alternative left out of a character's alternation
cannot match a text that begins with that character.

The characters come from Python's own parse of each regex (``re._parser``, the tree ``re.compile``
compiles): a construct it does not know, a case-insensitive part, a negated or category set, or a
regex that can match the empty text makes that regex a candidate at every position.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

_parser: Any = None
try:  # private, but what re.compile itself reads; a Python that keeps it elsewhere gets no index (one alternation)
    _parser = importlib.import_module("re._parser")
    _constants: Any = importlib.import_module("re._constants")
    _REPEATS = frozenset({_constants.MAX_REPEAT, _constants.MIN_REPEAT, _constants.POSSESSIVE_REPEAT})
    _ZERO_WIDTH = frozenset({_constants.AT, _constants.ASSERT, _constants.ASSERT_NOT})
except (ImportError, AttributeError):
    _parser = None
_RANGE_LIMIT = 256  # a wider range (``[^…]`` aside) is taken as any character

# (the characters a match may begin with, None: any; whether it may match the empty text)
_First = tuple[frozenset[str] | None, bool]


class Alternation:
    """``(?P<name>regex)|…`` for ``patterns`` (name -> regex text, in order), matched through a per-character index."""

    def __init__(self, patterns: dict[str, str]) -> None:
        self.patterns = dict(patterns)
        firsts = {name: first_characters(pattern) for name, pattern in patterns.items()}
        characters = sorted(set().union(*(first for first in firsts.values() if first is not None)))
        self._names = {character: tuple(name for name, first in firsts.items() if first is None or character in first) for character in characters}
        self._elsewhere = tuple(name for name, first in firsts.items() if first is None)  # other characters, and the end of the text
        # Compiled when a character is first met: a file meets a few of them, and compiling the alternation of
        # every character costs a short file's check more than its matching does.
        self._by_character: dict[str, re.Pattern[str]] = {}
        self._by_names: dict[tuple[str, ...], re.Pattern[str]] = {}  # characters that begin the same regexes share one

    def match(self, text: str, position: int = 0) -> re.Match[str] | None:
        """As the one regex's ``match``: ``lastgroup`` names the first alternative that matched."""
        character = text[position : position + 1]
        alternation = self._by_character.get(character)
        if alternation is None:
            alternation = self._by_character[character] = self._alternation(self._names.get(character, self._elsewhere))
        return alternation.match(text, position)

    def _alternation(self, names: tuple[str, ...]) -> re.Pattern[str]:
        if names not in self._by_names:
            self._by_names[names] = re.compile("|".join(f"(?P<{name}>{self.patterns[name]})" for name in names))
        return self._by_names[names]


def first_characters(pattern: str) -> frozenset[str] | None:
    """The characters a match of ``pattern`` can begin with; None when that may be any (or the match empty), or
    when this Python's parse of regexes is not the one read here."""
    if _parser is None:
        return None
    try:
        parsed = _parser.parse(pattern)
        if parsed.state.flags & re.IGNORECASE:
            return None
        first, empty = _first_of_sequence(list(parsed))
    except (AttributeError, TypeError, ValueError):  # a tree of another shape: the regex is tried everywhere
        return None
    return None if empty else first


def _first_of_sequence(items: list[tuple[Any, Any]]) -> _First:
    characters: set[str] = set()
    for op, argument in items:
        first, empty = _first_of(op, argument)
        if first is None:
            return None, True
        characters |= first
        if not empty:
            return frozenset(characters), False
    return frozenset(characters), True


def _first_of(op: Any, argument: Any) -> _First:
    if op is _constants.LITERAL:
        return frozenset(chr(argument)), False
    if op is _constants.IN:
        return _first_of_set(argument), False
    if op is _constants.SUBPATTERN:
        _group, added_flags, _removed_flags, inner = argument
        return (None, True) if added_flags else _first_of_sequence(list(inner))
    if op is _constants.BRANCH:
        characters: set[str] = set()
        any_empty = False
        for inner in argument[1]:
            first, empty = _first_of_sequence(list(inner))
            if first is None:
                return None, True
            characters |= first
            any_empty = any_empty or empty
        return frozenset(characters), any_empty
    if op in _REPEATS:
        least, _most, inner = argument
        first, empty = _first_of_sequence(list(inner))
        return first, empty or least == 0
    if op in _ZERO_WIDTH:  # anchors and look-arounds: they take no character, and only narrow the match
        return frozenset(), True
    return None, True


def _first_of_set(items: list[tuple[Any, Any]]) -> frozenset[str] | None:
    characters: set[str] = set()
    for op, argument in items:
        if op is _constants.LITERAL:
            characters.add(chr(argument))
        elif op is _constants.RANGE and argument[1] - argument[0] < _RANGE_LIMIT:
            characters.update(map(chr, range(argument[0], argument[1] + 1)))
        else:  # NEGATE, CATEGORY (\s, \d …) and the like
            return None
    return frozenset(characters)
