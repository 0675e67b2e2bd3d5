"""A progress bar on stderr for long checks: only on a terminal, only beside human-readable output."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from rich.progress import TaskID  # rich is imported only when a bar is drawn

SHOW_AFTER_SECONDS = 1.0  # a check that ends sooner never draws a bar


@contextmanager
def progress_bar(stream: TextIO, *, enabled: bool) -> Iterator[Callable[[int, int], None] | None]:
    if not enabled or not stream.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    started = time.monotonic()
    bar = Progress(TextColumn("checking"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), transient=True, console=Console(file=stream))
    task: list[TaskID] = []

    def advance(done: int, total: int) -> None:
        if not task and time.monotonic() - started >= SHOW_AFTER_SECONDS:
            bar.start()
            task.append(bar.add_task("files", total=total))
        if task:
            bar.update(task[0], completed=done, total=total)

    try:
        yield advance
    finally:
        if task:
            bar.stop()
