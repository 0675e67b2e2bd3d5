"""The categories ``tlint diff`` sorts changes into: apart from the diff's models, which the command line
needs (its ``--fail-on`` choices) without building them."""

from __future__ import annotations

from typing import Literal

Category = Literal["config", "structure", "comm", "timing"]
CATEGORIES: tuple[Category, ...] = ("config", "structure", "comm", "timing")
