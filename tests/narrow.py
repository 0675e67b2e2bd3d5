"""What the code under test gives, narrowed to the type a test knows it has, and checked to have it.

``lint.formats.parser`` answers with the ``Parser`` protocol (its ``parse`` alone), and a parser yields
records of its format or syntax problems; a test that reaches a parser's grammar or a record's fields
states which class it expects, and fails where the object is another.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from lint import formats

T = TypeVar("T")


def typed_parser(name: str, kind: type[T]) -> T:
    """``formats.parser(name)``, checked to be a ``kind``."""
    found = formats.parser(name)
    assert isinstance(found, kind), f"the parser of {name} is a {type(found).__name__}, not a {kind.__name__}"
    return found


def each(kind: type[T], items: Iterable[object]) -> list[T]:
    """``items``, each checked to be a ``kind``."""
    checked: list[T] = []
    for item in items:
        assert isinstance(item, kind), f"{item!r} is not a {kind.__name__}"
        checked.append(item)
    return checked
