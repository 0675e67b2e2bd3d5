"""Spies: a function that notes each call it gets, then does what the real one does."""

from __future__ import annotations

from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


def spy(real: Callable[P, R], note: Callable[P, object]) -> Callable[P, R]:
    """``real``, calling ``note`` with the same arguments first."""

    def spied(*args: P.args, **kwargs: P.kwargs) -> R:
        note(*args, **kwargs)
        return real(*args, **kwargs)

    return spied
