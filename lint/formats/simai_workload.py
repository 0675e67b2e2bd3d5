"""``simai-workload``: not parsed yet."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

NAME = "simai-workload"


def detect(lines: list[str]) -> bool:
    return False


class Parser:
    def parse(self, lines: Iterable[tuple[int, str]]) -> Iterator[Any]:
        return iter(())
